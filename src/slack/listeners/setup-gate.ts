import type { AnyMiddlewareArgs } from '@slack/bolt';
import { describeError } from '../../common/errors.js';
import { notSetUpText } from '../messages/project-settings.js';
import { preferenceCommand } from './commands/preference-subcommands.js';
import type { SlackDeps } from './deps.js';

export type SetupGateDeps = Pick<SlackDeps, 'settings' | 'logger'>;

type Json = Record<string, unknown>;
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null ? (value as Json) : {});

const GATED_COMMANDS = new Set(['/docs-agent', '/docs-views', '/docs-health']);
const HELP = /^(help|-h|--help|\?)?$/i;

/**
 * What runs before a project is connected: `/docs-agent connect`, every command's help, and who manages
 * and the tenant's settings (`managers …`, `settings …`): setting up can start with adding a manager.
 */
export function passesSetupGate(command: string, text: string): boolean {
  const word = text.trim();
  if (HELP.test(word)) return true;
  if (command !== '/docs-agent') return false;
  return /^connect$/i.test(word) || preferenceCommand(text) !== undefined;
}

type MiddlewareArgs = AnyMiddlewareArgs & {
  next: () => Promise<void>;
  ack?: (response?: unknown) => Promise<void>;
};

/**
 * OAuth mode, before any docs project is connected: every command answers one line saying an admin must
 * run `/docs-agent connect` (and who can), and nothing else happens: no docs call, no job, no budget spent.
 */
export function requireConnectedProject(deps: SetupGateDeps) {
  return async (args: MiddlewareArgs): Promise<void> => {
    const settings = deps.settings;
    const body = obj(args.body);
    const command = typeof body.command === 'string' ? body.command : undefined;
    if (!settings || !command || !GATED_COMMANDS.has(command) || settings.isSetUp()) return args.next();
    if (passesSetupGate(command, typeof body.text === 'string' ? body.text : '')) return args.next();
    try {
      await args.ack?.({ response_type: 'ephemeral', text: notSetUpText(settings.installerUserId) });
    } catch (error) {
      deps.logger.info({ error: describeError(error) }, 'could not answer a command before setup');
    }
  };
}
