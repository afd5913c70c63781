import type { Delivery, DeliveryPriority, DeliveryTarget } from '../delivery/domain.js';
import { type AttemptFailure, DeliveryAttemptError, type DeliverySender } from '../delivery/ports.js';
import { type AssistantPayload, assistantMethod, LEASE_LOST, sendAssistant } from './assistant-delivery.js';
import type { SlackMessage } from './messages/types.js';
import { applyOwedEdit, type OwedEdits } from './owed-edits.js';
import { SHARED_MESSAGE_KEY } from './posted-message-edits.js';
import { respondOnce } from './response-url-call.js';
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
    /** Changes owed to shared messages at a later time (a mute's end). */
    private readonly edits?: OwedEdits,
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
      if (target.kind === 'edit') return await applyOwedEdit(this.edits, target, lease);
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
        async (d): Promise<string | undefined | typeof LEASE_LOST> => {
          const blocks = await gate.blocksFor(messageOf(d).blocks);
          type Sent = string | undefined | typeof LEASE_LOST;
          return this.call(d, key, blocks, lease).catch(async (error: unknown): Promise<Sent> => {
            const code = slackCodeOf(error);
            // Slack refused the layout (nothing was stored): without charts where the workspace lacks them,
            // else the plain text, which still tells the user. Each call is made under the lease, checked
            // again right before it: a holder that lost it meanwhile must not post next to the new one.
            if (!isBlocksProblem(code)) throw error;
            if (!(await lease())) return LEASE_LOST;
            const fewer = await gate.retryWithout(blocks, code, messageOf(d).blocks);
            if (fewer) {
              const sent = await this.call(d, key, fewer, lease).then(
                (ts): { ts: Sent } => ({ ts }),
                (retryError: unknown) => {
                  if (isBlocksProblem(slackCodeOf(retryError))) return undefined;
                  throw retryError;
                },
              );
              if (sent) {
                await gate.confirm();
                return sent.ts;
              }
              if (!(await lease())) return LEASE_LOST;
            }
            // A shared message (an alert, a report) is never replaced by its bare text: refused, it stays.
            if (key.startsWith(SHARED_MESSAGE_KEY)) throw error;
            return this.call(d, key, undefined, lease);
          });
        },
      );
      if (!result.called) return { sent: false as const };
      const ts = result.value;
      if (ts === LEASE_LOST) return { sent: false as const };
      this.tokens?.accepted();
      return { sent: true as const, delivery: result.ready, ts };
    } catch (error) {
      if (error instanceof SlackAttemptError)
        throw new DeliveryAttemptError(this.tokens?.failureOf(error.kind.code) ?? failureOf(error.kind));
      throw error;
    }
  }

  async lookup(delivery: Delivery): Promise<string | undefined> {
    if (delivery.target.kind !== 'post') return undefined;
    const { channel, threadTs } = delivery.target;
    return this.gateway
      .findPosted(channel, threadTs, delivery.key, delivery.createdAt)
      .catch((error: unknown) => Promise.reject(this.readFailure(error)));
  }

  /**
   * One sweep pass: a post's copies, or those of an assistant's result posted as a reply in its thread
   * (the stream could not carry it), found since the stream began.
   */
  async removeDuplicates(delivery: Delivery, keepTs: string): Promise<number> {
    const { target, key } = delivery;
    if (target.kind === 'post')
      return this.gateway.removeDuplicates(target.channel, target.threadTs, key, delivery.createdAt, keepTs);
    const result = (delivery.payload as AssistantPayload | null)?.result;
    if (target.kind !== 'assistant' || !result) return 0;
    const since = Number(target.ts) * 1000;
    return this.gateway.removeDuplicates(target.channel, result.threadTs, key, since, keepTs);
  }

  /**
   * A look-up's read that failed: refused for good (the bot removed from the channel, the thread or
   * channel gone, a scope missing, the token revoked past its window) ends the record; anything else is
   * "not sent" (a read changes nothing) and looked up again later.
   */
  private readFailure(error: unknown): unknown {
    if (!(error instanceof SlackDeliveryError)) return error;
    const failure: AttemptFailure =
      this.tokens?.failureOf(error.code) ??
      (isPermanentSlackError(error.code)
        ? { kind: 'permanent', code: error.code }
        : { kind: 'not_sent', code: error.code });
    return new DeliveryAttemptError(failure);
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
    lease: () => Promise<Delivery | undefined>,
  ): Promise<string | undefined | typeof LEASE_LOST> {
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
      return sendAssistant(this.client, this.gateway, key, delivery, blocks !== undefined, lease);
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
