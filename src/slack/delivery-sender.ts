import type { TaskUpdateChunk } from '@slack/types';
import type { Delivery, DeliveryPriority, DeliveryTarget } from '../delivery/domain.js';
import { type AttemptFailure, DeliveryAttemptError, type DeliverySender } from '../delivery/ports.js';
import { plainTextOf } from './listeners/respond-safely.js';
import type { SlackMessage } from './messages/types.js';
import {
  type Classified,
  isBlocksProblem,
  isPermanentSlackError,
  SlackAttemptError,
  SlackDeliveryError,
} from './slack-errors.js';
import {
  MESSAGE_EVENT_TYPE,
  type SlackGateway,
  type SlackPriority,
  type WebClient,
} from './slack-gateway.js';
import type { TokenRejections } from './token-rejections.js';

const ASSISTANT_METHODS = {
  status: 'assistant.threads.setStatus',
  append: 'chat.appendStream',
  stop: 'chat.stopStream',
} as const;

const PACING: Record<DeliveryPriority, SlackPriority> = {
  reply: 'reply',
  final: 'final',
  intermediate: 'refresh',
};

/** A delivery's payload as Slack renders it. */
function messageOf(delivery: Delivery): SlackMessage {
  const payload = delivery.payload as Partial<SlackMessage> | null;
  return { text: typeof payload?.text === 'string' ? payload.text : '', blocks: payload?.blocks ?? [] };
}

/** Slack's answers as the outbox needs them: refused for good, not sent, or unknown. */
export function failureOf(kind: Classified): AttemptFailure {
  if (kind.type === 'rate_limited')
    return { kind: 'not_sent', code: kind.code, retryAfterMs: kind.retryAfterMs };
  if (kind.code === 'shutting_down') return { kind: 'not_sent', code: kind.code };
  // No answer at all (timeout, reset): Slack may still be storing it, so the look-up waits for that.
  if (kind.type === 'ambiguous')
    return { kind: 'unknown', code: kind.code, inFlight: kind.code === 'request_failed' };
  if (!isPermanentSlackError(kind.code)) return { kind: 'unknown', code: kind.code };
  return { kind: 'permanent', code: kind.code };
}

/**
 * The outbox's Slack side: one `chat.postMessage`, `chat.update` or set of reactions per attempt, in the
 * target's pacing slot (the lease is taken inside it, right before the call, so waiting for a slot never
 * eats the lease). Posts carry their key in message metadata, which is how a later attempt finds them.
 */
export class SlackDeliverySender implements DeliverySender {
  private readonly client: WebClient;

  constructor(
    private readonly gateway: SlackGateway,
    /** Timeout of one response_url POST (the Web API client's own timeout applies to the rest). */
    private readonly timeoutMs = 10_000,
    /** Refusals of the bot token during a token change: retried for a while, not abandoned at once. */
    private readonly tokens?: TokenRejections,
  ) {
    this.client = gateway.web;
  }

  async send(
    key: string,
    priority: DeliveryPriority,
    target: DeliveryTarget,
    lease: () => Promise<Delivery | undefined>,
  ) {
    try {
      if (target.kind === 'reactions') return await this.react(target, priority, lease);
      if (target.kind === 'respond') return await respondOnce(target.url, lease, this.timeoutMs);
      const method =
        target.kind === 'post'
          ? 'chat.postMessage'
          : target.kind === 'assistant'
            ? ASSISTANT_METHODS[target.call]
            : 'chat.update';
      const result = await this.gateway.attemptOnce(method, target.channel, PACING[priority], lease, (d) =>
        this.call(d, key, true).catch((error: unknown) => {
          // Slack refused the layout (nothing was stored): the plain text still tells the user.
          if (
            error instanceof Error &&
            isBlocksProblem((error as { data?: { error?: string } }).data?.error ?? '')
          )
            return this.call(d, key, false);
          throw error;
        }),
      );
      if (!result.called) return { sent: false as const };
      this.tokens?.accepted();
      return { sent: true as const, delivery: result.ready, ts: result.value };
    } catch (error) {
      if (error instanceof SlackAttemptError)
        throw new DeliveryAttemptError(this.tokens?.failureOf(error.kind.code) ?? failureOf(error.kind));
      // Reactions after the first call go through the gateway's own retries: their final error is coded.
      if (error instanceof SlackDeliveryError) {
        const code = error.code;
        throw new DeliveryAttemptError(
          this.tokens?.failureOf(code) ??
            (isPermanentSlackError(code) ? { kind: 'permanent', code } : { kind: 'not_sent', code }),
        );
      }
      throw error;
    }
  }

  async lookup(delivery: Delivery): Promise<string | undefined> {
    if (delivery.target.kind !== 'post') return undefined;
    const { channel, threadTs } = delivery.target;
    return this.gateway.findPosted(channel, threadTs, delivery.key, delivery.createdAt);
  }

  sweepDuplicates(delivery: Delivery, keepTs: string): void {
    if (delivery.target.kind !== 'post') return;
    const { channel, threadTs } = delivery.target;
    this.gateway.removeDuplicatesLater(channel, threadTs, delivery.key, delivery.createdAt, keepTs);
  }

  /** One Web API call with the delivery's latest payload; resolves the posted ts (posts). */
  private async call(delivery: Delivery, key: string, withBlocks: boolean): Promise<string | undefined> {
    const message = messageOf(delivery);
    const target = delivery.target;
    if (target.kind === 'post') {
      const result = await this.client.chat.postMessage({
        channel: target.channel,
        text: message.text,
        ...(withBlocks && message.blocks?.length ? { blocks: message.blocks } : {}),
        ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
        metadata: { event_type: MESSAGE_EVENT_TYPE, event_payload: { key } },
        unfurl_links: false,
        unfurl_media: false,
      });
      return typeof result.ts === 'string' ? result.ts : undefined;
    }
    if (target.kind === 'assistant') {
      await this.assistantCall(target, delivery.payload);
      return undefined;
    }
    if (target.kind === 'update') {
      await this.client.chat.update({
        channel: target.channel,
        ts: target.ts,
        text: message.text,
        blocks: withBlocks ? (message.blocks ?? []) : [],
      });
    }
    return undefined;
  }

  /** The AI container's status line, or a stream's latest steps (`stop` ends it). */
  private async assistantCall(target: Extract<DeliveryTarget, { kind: 'assistant' }>, payload: unknown) {
    const { status, chunks } = (payload ?? {}) as { status?: string; chunks?: TaskUpdateChunk[] };
    const { channel, ts } = target;
    if (target.call === 'status')
      await this.client.assistant.threads.setStatus({
        channel_id: channel,
        thread_ts: ts,
        status: status ?? '',
      });
    else if (target.call === 'append')
      await this.client.chat.appendStream({ channel, ts, chunks: chunks ?? [] });
    else await this.client.chat.stopStream({ channel, ts, chunks: chunks ?? [] });
  }

  /** Reactions are idempotent: remove the managed ones not wanted, add the wanted ones. */
  private async react(
    target: Extract<DeliveryTarget, { kind: 'reactions' }>,
    priority: DeliveryPriority,
    lease: () => Promise<Delivery | undefined>,
  ) {
    const first = await this.gateway.attemptOnce(
      'reactions.add',
      target.channel,
      PACING[priority],
      lease,
      async (d) => d,
    );
    if (!first.called) return { sent: false as const };
    const latest = first.ready.target.kind === 'reactions' ? first.ready.target : target;
    for (const name of latest.managed.filter((n) => !latest.names.includes(n)))
      await this.gateway.removeReaction(latest.channel, latest.ts, name);
    for (const name of latest.names) await this.gateway.addReaction(latest.channel, latest.ts, name);
    return { sent: true as const, delivery: first.ready, ts: undefined };
  }
}

/**
 * One POST to a response_url: Slack answers 200 when it took the answer, 4xx when it never will (used up,
 * expired, a refused payload: a refused layout is sent once more as plain text), 5xx or nothing when the
 * outcome is unknown. Not paced: it is no Web API method, and each URL serves one person's request.
 */
async function respondOnce(url: string, lease: () => Promise<Delivery | undefined>, timeoutMs: number) {
  const delivery = await lease();
  if (!delivery) return { sent: false as const };
  const body = delivery.payload as { text?: string; blocks?: unknown[] } & Record<string, unknown>;
  let status = await postJson(url, body, timeoutMs);
  if (status === 400 && Array.isArray(body.blocks) && body.blocks.length > 0)
    status = await postJson(
      url,
      { ...body, blocks: undefined, text: plainTextOf(body as SlackMessage) },
      timeoutMs,
    );
  if (status >= 200 && status < 300) return { sent: true as const, delivery, ts: undefined };
  if (status >= 400 && status < 500 && status !== 429)
    throw new DeliveryAttemptError({ kind: 'permanent', code: `response_url_${status}` });
  throw new DeliveryAttemptError({ kind: 'unknown', code: `response_url_${status || 'failed'}` });
}

/** The HTTP status, or 0 when no answer came (timeout, reset). The body is always read to the end. */
async function postJson(url: string, body: unknown, timeoutMs: number): Promise<number> {
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer().catch(() => undefined);
    return response.status;
  } catch {
    return 0;
  }
}
