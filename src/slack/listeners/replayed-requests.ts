import type { AnyMiddlewareArgs, Context } from '@slack/bolt';
import { describeError } from '../../common/errors.js';
import type { SlackDeps } from './deps.js';

export type ReplayedRequestsDeps = Pick<SlackDeps, 'logger' | 'requests'>;

/** Interactions a person makes once each; Slack never retries them, so the same signature twice is a replay. */
const ONCE_ONLY = new Set(['block_actions', 'view_submission', 'message_action', 'shortcut']);

type MiddlewareArgs = AnyMiddlewareArgs & {
  context: Context;
  next: () => Promise<void>;
  ack?: (response?: unknown) => Promise<void>;
};

/**
 * Slack's signature is valid for five minutes, so a captured command or click could be sent again within
 * that window and run twice (a second job, a second vote). Every signed body differs (Slack mints a new
 * trigger_id per invocation), so its signature is claimed in the shared store: the first one runs, a replay
 * is acknowledged and dropped. Events have their own de-duplication (event ids and message claims). A
 * store that cannot answer lets the request through: a person's click is worth more than this guard.
 */
export function ignoreReplayedRequests(deps: ReplayedRequestsDeps) {
  return async (args: MiddlewareArgs): Promise<void> => {
    const signature = args.context.slackSignature;
    const body = args.body as { command?: unknown; type?: unknown };
    const onceOnly = typeof body.command === 'string' || ONCE_ONLY.has(String(body.type));
    if (!deps.requests || typeof signature !== 'string' || !onceOnly) return args.next();
    let first = true;
    try {
      first = await deps.requests.firstSeen(signature);
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not check a request for replay; handled');
    }
    if (first) return args.next();
    deps.logger.warn(
      { kind: body.command ?? body.type },
      'ignored a replayed Slack request (same signature)',
    );
    await args.ack?.();
  };
}
