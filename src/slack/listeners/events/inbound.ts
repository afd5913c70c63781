import type { Context } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import type { InboundMessage } from '../../../jobs/conversation-service.js';
import type { SlackDeps } from '../deps.js';

/** The fields of `message` and `app_mention` events the bot reads; Slack sends more. */
interface RawMessageEvent {
  type?: string;
  subtype?: string;
  channel?: string;
  channel_type?: string;
  user?: string;
  bot_id?: string;
  ts?: string;
  thread_ts?: string;
  parent_user_id?: string;
  text?: string;
  team?: string;
}

/** A Slack message event as the conversation service takes it (nothing filtered here: the service does). */
export function toInbound(
  kind: InboundMessage['kind'],
  event: unknown,
  body: unknown,
  context: Context,
): InboundMessage | undefined {
  const e = event as RawMessageEvent;
  if (!e.channel || !e.ts) return undefined;
  const envelope = body as {
    team_id?: string;
    authorizations?: Array<{ user_id?: string; is_bot?: boolean }>;
  };
  const botUserId = context.botUserId ?? envelope.authorizations?.find((a) => a.is_bot)?.user_id ?? undefined;
  return {
    kind,
    teamId: envelope.team_id ?? context.teamId ?? e.team ?? null,
    channelId: e.channel,
    channelType: e.channel_type ?? (e.channel.startsWith('D') ? 'im' : undefined),
    userId: e.user,
    botId: e.bot_id,
    subtype: e.subtype,
    ts: e.ts,
    threadTs: e.thread_ts,
    text: e.text ?? '',
    botUserId,
    parentUserId: e.parent_user_id,
  };
}

/** Runs after Bolt acknowledged the event; failures are logged (a Slack retry is not coming). */
export async function handleInbound(
  deps: Pick<SlackDeps, 'conversations' | 'logger'>,
  message: InboundMessage | undefined,
): Promise<void> {
  if (!message) return;
  try {
    const outcome = await deps.conversations.handle(message);
    deps.logger.debug(
      {
        channelId: message.channelId,
        ts: message.ts,
        event: message.kind,
        outcome: outcome.kind,
        ...(outcome.kind === 'ignored' ? { why: outcome.why } : {}),
      },
      'message event handled',
    );
  } catch (error) {
    deps.logger.error(
      { channelId: message.channelId, ts: message.ts, error: describeError(error) },
      'could not handle a message event',
    );
  }
}
