import type { AnyMiddlewareArgs } from '@slack/bolt';
import { findSecret } from '../../common/secret-shapes.js';
import { secretRefusalText } from '../messages/secret-notice.js';
import type { SlackDeps } from './deps.js';

type MiddlewareArgs = AnyMiddlewareArgs & {
  next: () => Promise<void>;
  ack?: (response?: unknown) => Promise<void>;
};

/**
 * Every slash command's text, before any listener reads it (subcommands, instructions, report ranges,
 * logs): one holding a credential is answered privately in the acknowledgement, by its kind only, and
 * dropped. Tokens and keys are given only in forms (`/docs-agent settings github`, `/docs-agent connect`).
 */
export function refuseSecretsInCommands(deps: Pick<SlackDeps, 'logger'>) {
  return async (args: MiddlewareArgs): Promise<void> => {
    const body = (args.body ?? {}) as { command?: unknown; text?: unknown; channel_id?: unknown };
    const secret =
      typeof body.command === 'string' && typeof body.text === 'string' ? findSecret(body.text) : undefined;
    if (!secret) return args.next();
    deps.logger.info(
      { command: body.command, channelId: body.channel_id, kind: secret.kind },
      'command text holds a credential; refused',
    );
    await args.ack?.({ response_type: 'ephemeral', text: secretRefusalText(secret.kind) });
  };
}
