import type { MessageRef } from '../ports.js';

/** A message event (`app_mention` or `message`) as the Slack layer hands it over: raw, unfiltered. */
export interface InboundMessage {
  kind: 'app_mention' | 'message';
  teamId: string | null;
  channelId: string;
  /** `im` for DMs with the bot; anything else is treated as a channel. */
  channelType: string | undefined;
  userId: string | undefined;
  /** Set on any message posted by a bot or an app, ours or not. */
  botId: string | undefined;
  /** Edits, deletions, joins, `thread_broadcast` copies…: never forwarded. */
  subtype: string | undefined;
  ts: string;
  /** Root of the thread when the message is in one (equal to `ts` for a thread's root). */
  threadTs: string | undefined;
  /** Slack markup, as received. */
  text: string;
  /** Our bot's user id, to recognise and strip mentions of it. */
  botUserId: string | undefined;
  /** Author of the thread's root message, when Slack says (thread replies carry `parent_user_id`). */
  parentUserId?: string | undefined;
  /**
   * Set for a message in an assistant thread (Slack's AI app container): a job started there is an
   * `assistant` job, in the docs project of the channel the user is looking at (`contextChannelId`).
   */
  assistant?: { contextChannelId?: string | undefined };
}

/** A reply inside a thread (not the thread's root, not a top-level message). */
export function isThreadReply(message: Pick<InboundMessage, 'ts' | 'threadTs'>): boolean {
  return message.threadTs !== undefined && message.threadTs !== message.ts;
}

/** Where to answer a message: in its thread, or under the message itself when it is top-level. */
export function refOf(message: InboundMessage, userId: string): MessageRef {
  return {
    channelId: message.channelId,
    ts: message.ts,
    threadTs: isThreadReply(message) ? (message.threadTs as string) : message.ts,
    userId,
  };
}

/** The identity of a message across deliveries (retries, new event ids, app_mention/message twins). */
export function messageKey(message: Pick<InboundMessage, 'teamId' | 'channelId' | 'ts'>): string {
  return `${message.teamId ?? '-'}:${message.channelId}:${message.ts}`;
}
