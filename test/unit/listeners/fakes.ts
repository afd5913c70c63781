import type { BlockButtonAction, RespondArguments, RespondFn, SlashCommand } from '@slack/bolt';
import { vi } from 'vitest';
import { AccessPolicy } from '../../../src/common/access-policy.js';
import { createLogger } from '../../../src/common/logger.js';

/*
 * Fakes for calling a listener callback directly, as Bolt would after verifying a request: the payload,
 * `ack` and `respond` recorders, a logger whose lines are kept, and an `afterAck` that holds the work until
 * the test runs it (so a test sees what happened before and after the acknowledgement).
 */

export const CHANNEL = 'C0DOCS';
export const USER = 'U0ALICE';

/** A `/docs-agent` or `/docs-views` payload as Slack sends it. */
export function slashCommand(
  command: string,
  text: string,
  fields: Partial<SlashCommand> = {},
): SlashCommand {
  return {
    token: 'deprecated-verification-token',
    command,
    text,
    response_url: 'https://hooks.slack.test/commands/T0TEAM/1/abc',
    trigger_id: '1.2.abc',
    user_id: USER,
    user_name: 'alice',
    team_id: 'T0TEAM',
    team_domain: 'acme',
    channel_id: CHANNEL,
    channel_name: 'docs',
    api_app_id: 'A0DOCSAGENT',
    ...fields,
  };
}

/** A click on a button of a message in #docs. */
export function buttonClick(
  actionId: string,
  value: string | undefined,
  fields: Partial<BlockButtonAction> = {},
): { body: BlockButtonAction; action: BlockButtonAction['actions'][number] } {
  const action: BlockButtonAction['actions'][number] = {
    type: 'button',
    action_id: actionId,
    block_id: 'b1',
    action_ts: '1700000000.000100',
    text: { type: 'plain_text', text: 'Post to channel' },
    ...(value === undefined ? {} : { value }),
  };
  const body: BlockButtonAction = {
    type: 'block_actions',
    actions: [action],
    team: { id: 'T0TEAM', domain: 'acme' },
    user: { id: USER, username: 'alice' },
    channel: { id: CHANNEL, name: 'docs' },
    token: 'deprecated-verification-token',
    response_url: 'https://hooks.slack.test/actions/T0TEAM/1/abc',
    trigger_id: '1.2.abc',
    api_app_id: 'A0DOCSAGENT',
    container: { type: 'message', message_ts: '1700000000.000050', channel_id: CHANNEL, is_ephemeral: true },
    ...fields,
  };
  return { body, action };
}

/** Answers as Bolt's `ack` and `respond` take them: every call recorded, in order, in `calls`. */
export function answers() {
  const calls: string[] = [];
  // `unknown`: fits the ack of a command (a message) and of an action (nothing).
  const ack = vi.fn(async (_response?: unknown) => {
    calls.push('ack');
  });
  const respond = vi.fn<RespondFn>(async () => {
    calls.push('respond');
    return new Response('ok');
  });
  return { ack, respond, calls };
}

/** What the one ack (or respond) call carried, as an object. */
export function only(fn: { mock: { calls: unknown[][] } }): RespondArguments {
  if (fn.mock.calls.length !== 1) throw new Error(`expected one call, got ${fn.mock.calls.length}`);
  return fn.mock.calls[0]![0] as RespondArguments;
}

/** Every `text` in a message (top-level and in its blocks), joined: what the user reads. */
export function allText(message: unknown): string {
  const parts: string[] = [];
  const walk = (value: unknown, key?: string) => {
    if (typeof value === 'string') {
      if (key === 'text') parts.push(value);
    } else if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(message);
  return parts.join('\n');
}

/** A logger that keeps its lines (JSON), for tests that check what was logged. */
export function recordingLogger() {
  const lines: string[] = [];
  const logger = createLogger({ level: 'debug', secrets: [], destination: { write: (l) => lines.push(l) } });
  return { logger, lines };
}

/** `afterAck` that queues the work; `run()` runs what is queued, as the app would after the ack. */
export function deferredWork() {
  const queued: Array<() => Promise<void>> = [];
  return {
    afterAck: (work: () => Promise<void>) => void queued.push(work),
    queued,
    async run() {
      for (const work of queued.splice(0)) await work();
    },
  };
}

/** The real access policy: everyone allowed unless lists are given. */
export function access(
  allowed: { channelIds?: string[]; userIds?: string[]; adminUserIds?: string[] } = {},
): AccessPolicy {
  return new AccessPolicy({ channelIds: [], userIds: [], ...allowed });
}
