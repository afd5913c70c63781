import type { Delivery, DeliveryPriority, DeliveryTarget } from '../delivery/domain.js';
import { type AttemptFailure, DeliveryAttemptError, type DeliverySender } from '../delivery/ports.js';
import { assistantMethod, sendAssistant } from './assistant-delivery.js';
import type { SlackMessage } from './messages/types.js';
import { respondOnce } from './response-url-call.js';
import {
  type Classified,
  isBlocksProblem,
  isPermanentSlackError,
  SlackAttemptError,
} from './slack-errors.js';
import {
  MESSAGE_EVENT_TYPE,
  type SlackGateway,
  type SlackPriority,
  type WebClient,
} from './slack-gateway.js';
import type { TokenRejections } from './token-rejections.js';
import { unfurlOnce } from './unfurl-call.js';

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
  // Never sent: shutting down, or this replica's queue for the method is full.
  if (kind.code === 'shutting_down' || kind.code === 'slack_queue_full')
    return { kind: 'not_sent', code: kind.code };
  // No answer at all (timeout, reset): Slack may still be storing it, so the look-up waits for that.
  if (kind.type === 'ambiguous')
    return { kind: 'unknown', code: kind.code, inFlight: kind.code === 'request_failed' };
  if (!isPermanentSlackError(kind.code)) return { kind: 'unknown', code: kind.code };
  return { kind: 'permanent', code: kind.code };
}

/**
 * The outbox's Slack side: one `chat.postMessage`, `chat.update` or set of reactions per attempt, each call
 * in its pacing slot with the lease renewed right before it (a lease lost while waiting skips the call).
 * Never retries. Posts carry their key in message metadata, which is how a look-up finds them.
 */
export class SlackDeliverySender implements DeliverySender {
  private readonly client: WebClient;

  constructor(
    private readonly gateway: SlackGateway,
    /** Timeout of one response_url POST: the configured Slack timeout, which the lease is sized to. */
    private readonly timeoutMs: number,
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
      if (target.kind === 'respond')
        return await respondOnce(target.url, lease, this.timeoutMs, this.gateway.blocksGate);
      if (target.kind === 'unfurl') return await this.unfurl(target, priority, lease);
      const method =
        target.kind === 'post'
          ? 'chat.postMessage'
          : target.kind === 'assistant'
            ? assistantMethod(key, target)
            : 'chat.update';
      const gate = this.gateway.blocksGate;
      const result = await this.gateway.attemptOnce(
        method,
        target.channel,
        PACING[priority],
        lease,
        async (d) => {
          const blocks = await gate.blocksFor(messageOf(d).blocks);
          return this.call(d, key, blocks).catch(async (error: unknown) => {
            const code = slackCodeOf(error);
            // Slack refused the layout (nothing was stored): without charts where the workspace lacks them,
            // else the plain text, which still tells the user.
            if (!isBlocksProblem(code)) throw error;
            const fewer = await gate.retryWithout(blocks, code);
            if (fewer) {
              const sent = await this.call(d, key, fewer).then(
                (ts) => ({ ts }),
                (retryError: unknown) => {
                  if (isBlocksProblem(slackCodeOf(retryError))) return undefined;
                  throw retryError;
                },
              );
              if (sent) {
                await gate.confirm();
                return sent.ts;
              }
            }
            return this.call(d, key, undefined);
          });
        },
      );
      if (!result.called) return { sent: false as const };
      this.tokens?.accepted();
      return { sent: true as const, delivery: result.ready, ts: result.value };
    } catch (error) {
      if (error instanceof SlackAttemptError)
        throw new DeliveryAttemptError(this.tokens?.failureOf(error.kind.code) ?? failureOf(error.kind));
      throw error;
    }
  }

  async lookup(delivery: Delivery): Promise<string | undefined> {
    if (delivery.target.kind !== 'post') return undefined;
    const { channel, threadTs } = delivery.target;
    return this.gateway.findPosted(channel, threadTs, delivery.key, delivery.createdAt);
  }

  async removeDuplicates(delivery: Delivery, keepTs: string): Promise<number> {
    if (delivery.target.kind !== 'post') return 0;
    const { channel, threadTs } = delivery.target;
    return this.gateway.removeDuplicates(channel, threadTs, delivery.key, delivery.createdAt, keepTs);
  }

  /** Link previews: one chat.unfurl, again without Block Kit if Slack refuses the layout. */
  private async unfurl(
    target: Extract<DeliveryTarget, { kind: 'unfurl' }>,
    priority: DeliveryPriority,
    lease: () => Promise<Delivery | undefined>,
  ) {
    const result = await this.gateway.attemptOnce(
      'chat.unfurl',
      target.channel,
      PACING[priority],
      lease,
      (d) =>
        unfurlOnce(this.client, target, d.payload, true).catch((error: unknown) => {
          if (!isBlocksProblem(slackCodeOf(error))) throw error;
          return unfurlOnce(this.client, target, d.payload, false);
        }),
    );
    if (!result.called) return { sent: false as const };
    return { sent: true as const, delivery: result.ready, ts: undefined };
  }

  /** One Web API call with the delivery's latest payload; resolves the posted ts (posts). */
  private async call(
    delivery: Delivery,
    key: string,
    blocks: SlackMessage['blocks'] | undefined,
  ): Promise<string | undefined> {
    const message = messageOf(delivery);
    const target = delivery.target;
    if (target.kind === 'post') {
      const result = await this.client.chat.postMessage({
        channel: target.channel,
        text: message.text,
        ...(blocks?.length ? { blocks } : {}),
        ...(target.threadTs ? { thread_ts: target.threadTs } : {}),
        metadata: { event_type: MESSAGE_EVENT_TYPE, event_payload: { key } },
        unfurl_links: false,
        unfurl_media: false,
      });
      return typeof result.ts === 'string' ? result.ts : undefined;
    }
    if (target.kind === 'assistant')
      return sendAssistant(this.client, this.gateway, key, delivery, blocks !== undefined);
    if (target.kind === 'update') {
      await this.client.chat.update({
        channel: target.channel,
        ts: target.ts,
        text: message.text,
        blocks: blocks ?? [],
      });
    }
    return undefined;
  }

  /**
   * Reactions are idempotent: remove the managed ones not wanted, add the wanted ones. Each call is one
   * attempt in its own slot with the lease renewed before it, so the lease never covers more than one call.
   */
  private async react(
    target: Extract<DeliveryTarget, { kind: 'reactions' }>,
    priority: DeliveryPriority,
    lease: () => Promise<Delivery | undefined>,
  ) {
    const { channel, ts } = target;
    const calls = [
      ...target.managed.filter((n) => !target.names.includes(n)).map((name) => ({ add: false, name })),
      ...target.names.map((name) => ({ add: true, name })),
    ];
    let first = calls.length === 0 ? await lease() : undefined;
    for (const { add, name } of calls) {
      const method = add ? 'reactions.add' : 'reactions.remove';
      const done = await this.gateway.attemptOnce(method, channel, PACING[priority], lease, async (d) => {
        try {
          if (add) await this.client.reactions.add({ channel, timestamp: ts, name });
          else await this.client.reactions.remove({ channel, timestamp: ts, name });
        } catch (error) {
          const code = (error as { data?: { error?: string } }).data?.error;
          if (code !== (add ? 'already_reacted' : 'no_reaction')) throw error;
        }
        return d;
      });
      if (!done.called) return { sent: false as const };
      first ??= done.ready;
    }
    if (!first) return { sent: false as const };
    // Sent what the lease started with: a newer set recorded meanwhile is still owed (an older revision).
    const same = JSON.stringify(first.target) === JSON.stringify(target);
    return { sent: true as const, delivery: same ? first : { ...first, revision: -1 }, ts: undefined };
  }
}

/** The Web API's error code of a failed call (`invalid_blocks`), or ''. */
function slackCodeOf(error: unknown): string {
  const code = (error as { data?: { error?: unknown } } | null)?.data?.error;
  return error instanceof Error && typeof code === 'string' ? code : '';
}
