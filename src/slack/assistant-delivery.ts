import type { TaskUpdateChunk } from '@slack/types';
import type { Delivery, DeliveryTarget } from '../delivery/domain.js';
import type { SlackMessage } from './messages/types.js';
import { isBlocksProblem } from './slack-errors.js';
import { MESSAGE_EVENT_TYPE, type SlackGateway, type WebClient } from './slack-gateway.js';

type AssistantTarget = Extract<DeliveryTarget, { kind: 'assistant' }>;

/** Keys of agent-session statuses (a `status` delivery sent with agents.sessions.setStatus). */
export const SESSION_KEY_PREFIX = 'agent-session:';

/** Slack's answers once a stream is over (stopped by anyone, or past its few minutes of life). */
export const STREAM_OVER = new Set(['message_not_in_streaming_state', 'message_not_found']);

const METHODS = {
  status: 'assistant.threads.setStatus',
  append: 'chat.appendStream',
  stop: 'chat.stopStream',
} as const;

/** The Web API method a delivery is paced as. */
export function assistantMethod(key: string, target: AssistantTarget): string {
  return key.startsWith(SESSION_KEY_PREFIX) ? 'agents.sessions.setStatus' : METHODS[target.call];
}

/** What an assistant delivery carries (each kind uses its part). */
export interface AssistantPayload {
  /** The status line's text (`status`). */
  status?: string;
  /** An agent session's lifecycle status (`status` under an agent-session key), and its title on creation. */
  session?: string;
  title?: string;
  /** A stream's steps (`append`, `stop`). */
  chunks?: TaskUpdateChunk[];
  /**
   * A stop that ends the stream with a result: its text and blocks (buttons) end the message. When Slack no
   * longer streams it (closed after its few minutes, or by the person's Stop), the result is posted as a
   * reply in `threadTs` instead, found again by the delivery's key: one result, one message.
   */
  result?: { threadTs: string } & SlackMessage;
}

/** The attempt's lease was lost before its next call: nothing more was sent (the new holder decides). */
export const LEASE_LOST: unique symbol = Symbol('lease lost');

/**
 * One attempt of an assistant delivery; resolves the ts of a result posted as a reply, else undefined.
 * Throws Slack's errors as they come (the sender classifies them). `lease` renews the attempt's lease: the
 * fallback reply is posted only while it is still held, so two replicas can never both post the result.
 */
export async function sendAssistant(
  client: WebClient,
  gateway: Pick<SlackGateway, 'findPosted'>,
  key: string,
  delivery: Delivery,
  withBlocks: boolean,
  lease: () => Promise<Delivery | undefined>,
): Promise<string | undefined | typeof LEASE_LOST> {
  const target = delivery.target as AssistantTarget;
  const payload = (delivery.payload ?? {}) as AssistantPayload;
  const { channel, ts } = target;
  if (target.call === 'status') {
    if (key.startsWith(SESSION_KEY_PREFIX))
      await client.agents.sessions.setStatus({
        channel_id: channel,
        thread_ts: ts,
        status: payload.session ?? 'active',
        ...(payload.title ? { title: payload.title } : {}),
      });
    else
      await client.assistant.threads.setStatus({
        channel_id: channel,
        thread_ts: ts,
        status: payload.status ?? '',
      });
    return undefined;
  }
  const chunks = payload.chunks ?? [];
  if (target.call === 'append') {
    await client.chat.appendStream({ channel, ts, chunks });
    return undefined;
  }
  const result = payload.result;
  if (!result) {
    // Ending a stream someone else already ended is done: the stream is over, as asked.
    await client.chat.stopStream({ channel, ts, chunks }).catch(ignoreStreamOver);
    return undefined;
  }
  const metadata = { event_type: MESSAGE_EVENT_TYPE, event_payload: { key } };
  if (withBlocks) {
    try {
      await client.chat.stopStream({ channel, ts, chunks, blocks: result.blocks ?? [], metadata });
      return undefined;
    } catch (error) {
      const code = codeOf(error);
      if (!STREAM_OVER.has(code) && !isBlocksProblem(code)) throw error;
      // Slack refused the result's layout in a stream: the stream ends with its steps, the result follows.
      if (isBlocksProblem(code))
        await client.chat.stopStream({ channel, ts, chunks }).catch(ignoreStreamOver);
    }
  } else await client.chat.stopStream({ channel, ts, chunks }).catch(ignoreStreamOver);
  // The stream could not carry the result. An earlier attempt may have landed (its answer lost): the stream
  // or a reply then carries the key. The stream's own ts bounds the look-up from below.
  if (delivery.uncertainSince !== undefined) {
    const found = await gateway.findPosted(channel, result.threadTs, key, Number(ts) * 1000);
    if (found) return found;
  }
  if (!(await lease())) return LEASE_LOST;
  const posted = await client.chat.postMessage({
    channel,
    thread_ts: result.threadTs,
    text: result.text,
    ...(withBlocks && result.blocks?.length ? { blocks: result.blocks } : {}),
    metadata,
    unfurl_links: false,
    unfurl_media: false,
  });
  return typeof posted.ts === 'string' ? posted.ts : undefined;
}

function codeOf(error: unknown): string {
  return (error as { data?: { error?: string } }).data?.error ?? '';
}

function ignoreStreamOver(error: unknown): void {
  if (!STREAM_OVER.has(codeOf(error))) throw error;
}
