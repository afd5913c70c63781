import { backoffDelay } from '../common/backoff.js';
import { describeError } from '../common/errors.js';
import type { DeliveriesOptions } from './delivery-timing.js';
import { type Delivery, type Recheck, resentWhole, type Settlement } from './domain.js';
import { keepingLease } from './lease-keeper.js';
import { type AttemptResult, DeliveryAttemptError } from './ports.js';

/** The lease an attempt works under: its fencing token is the attempt number the store gave it. */
export interface Lease {
  record: Delivery;
  token: number;
}

/** What an attempt needs from the `Deliveries` that runs it. */
export interface AttemptContext {
  readonly o: DeliveriesOptions;
  readonly holder: string;
  readonly leaseMs: number;
  readonly settleMs: number;
  readonly now: () => number;
  closed(): boolean;
  /** Attempts the key again at `at` (a retry's time). */
  kickAt(key: string, at: number): void;
}

/**
 * One attempt under a lease, kept (renewed) for as long as it runs: every decision is made on the record
 * the lease returned, and a settle the store refuses (the lease was lost) reports the record as it stands,
 * never what this attempt did.
 */
export function attemptLeased(c: AttemptContext, lease: Lease): Promise<AttemptResult> {
  const { key } = lease.record;
  const renew = () =>
    c.closed() ? Promise.resolve(undefined) : c.o.store.renew(key, c.holder, lease.token, c.leaseMs, c.now());
  return keepingLease(renew, c.leaseMs, () => new LeasedAttempt(c, lease, renew).run());
}

class LeasedAttempt {
  constructor(
    private readonly c: AttemptContext,
    private readonly lease: Lease,
    private readonly renew: () => Promise<Delivery | undefined>,
  ) {}

  async run(): Promise<AttemptResult> {
    const { o } = this.c;
    const { record } = this.lease;
    if (record.state === 'posted') return this.sweep();
    if (this.c.now() - record.createdAt > (o.giveUpAfterMs ?? 24 * 60 * 60 * 1000)) {
      await this.settle({ kind: 'abandoned', reason: 'expired' });
      o.metrics?.delivery('abandoned', record.priority);
      o.logger.error({ key: record.key }, 'a message the bot owed could not be delivered for a day');
      return { status: 'abandoned', reason: 'expired' };
    }
    const uncertain = record.uncertainSince !== undefined;
    // An earlier attempt may have landed (unknown outcome, a holder cut off mid-call): look before posting.
    // A post already made (re-opened with a newer payload) is edited in place instead: nothing to look for.
    if (record.target.kind === 'post' && record.postedTs === undefined && uncertain) {
      const looked = await this.lookup();
      if (looked.status !== 'not_found') return looked.result;
    }
    return this.send(uncertain);
  }

  private async lookup(): Promise<{ status: 'not_found' } | { status: 'done'; result: AttemptResult }> {
    const { o } = this.c;
    const { record } = this.lease;
    let found: string | undefined;
    try {
      found = await o.sender.lookup(record);
    } catch (error) {
      if (!(error instanceof DeliveryAttemptError))
        return { status: 'done', result: await this.retryLater(true, 'lookup_failed') };
      const failure = error.failure;
      // Slack refuses the read for good (the bot removed from the channel, the thread deleted, a scope or
      // the token gone): no later attempt can look, and posting blind could duplicate.
      if (failure.kind === 'permanent')
        return { status: 'done', result: await this.refusedForGood(failure.code, 'look-up') };
      const retryAfterMs = failure.kind === 'not_sent' ? failure.retryAfterMs : undefined;
      return { status: 'done', result: await this.retryLater(true, failure.code, retryAfterMs) };
    }
    if (!found) return { status: 'not_found' };
    // A copy found carries whichever payload its attempt sent: once the payload was replaced (a newer
    // revision), it is recorded as an older one, so the latest is then edited into it.
    const revision = record.revision > 0 ? record.revision - 1 : record.revision;
    const applied = await this.settle(this.posted(found, revision, true));
    if (applied) o.metrics?.delivery('found', record.priority);
    return { status: 'done', result: applied ? { status: 'posted', ts: found } : await this.standing() };
  }

  private async send(uncertain: boolean): Promise<AttemptResult> {
    const { o } = this.c;
    const { record } = this.lease;
    const target = sentTarget(record);
    try {
      const lease = async () => {
        const current = await this.renew();
        return current && { ...current, target: sentTarget(current) };
      };
      const result = await o.sender.send(record.key, record.priority, target, lease);
      // The lease was lost while waiting for the slot (taken over, handed back): the holder decides.
      if (!result.sent) return { status: 'pending' };
      const ts = result.ts ?? record.postedTs;
      if (!(await this.settle(this.posted(ts, result.delivery.revision, uncertain)))) return this.standing();
      o.metrics?.delivery('posted', record.priority);
      return { status: 'posted', ts };
    } catch (error) {
      if (!(error instanceof DeliveryAttemptError))
        // Our own failure (the store, a bug): retried like an unknown outcome.
        return this.retryLater(true, describeError(error));
      const failure = error.failure;
      if (failure.kind === 'permanent') return this.refusedForGood(failure.code, 'send');
      if (failure.kind === 'not_sent') return this.retryLater(false, failure.code, failure.retryAfterMs);
      // Unanswered, or answered 5xx: Slack may still be storing it, so the look-up waits for that.
      return this.retryLater(true, failure.code, this.c.settleMs);
    }
  }

  /** Slack refused for good: the record ends, with Slack's code in the log. */
  private async refusedForGood(code: string, stage: 'send' | 'look-up'): Promise<AttemptResult> {
    const { o } = this.c;
    const { record } = this.lease;
    if (!(await this.settle({ kind: 'abandoned', reason: code }))) return this.standing();
    o.metrics?.delivery('abandoned', record.priority);
    // A post nobody will see is an error; a status line or a stream Slack has closed is routine. A refused
    // look-up is said at warn: the bot lost access to where it was to answer (removed, thread deleted).
    const level = record.target.kind === 'post' && stage === 'send' ? 'error' : 'warn';
    o.logger[level](
      { key: record.key, target: record.target.kind, code, stage },
      stage === 'send'
        ? 'Slack refused a message the bot owed; abandoned'
        : 'Slack refused to show where a message the bot owed may have landed; abandoned',
    );
    await o
      .onRefused?.(record, code)
      .catch((error: unknown) =>
        o.logger.warn({ key: record.key, error: describeError(error) }, 'could not tell the person'),
      );
    return { status: 'abandoned', reason: code };
  }

  private recheck(): Recheck {
    return { afterMs: this.c.settleMs, forMs: this.c.o.sweepForMs ?? 2 * this.c.leaseMs + this.c.settleMs };
  }

  private posted(ts: string | undefined, revision: number, uncertain: boolean): Settlement {
    return { kind: 'posted', ts, revision, uncertain, recheck: this.recheck() };
  }

  /**
   * One pass of a posted record's durable check: a post's copies but the recorded one are deleted (every
   * settle time, since a late copy may land at any moment of the window); an update's latest state is sent
   * again after the settle time and once more when the window has passed (a late write it may undo).
   */
  private async sweep(): Promise<AttemptResult> {
    const { o } = this.c;
    const { record } = this.lease;
    if (resentWhole(record.target.kind)) {
      const sent = await o.sender.send(record.key, record.priority, record.target, this.renew).then(
        (result) => result.sent,
        (error: unknown) => {
          o.logger.warn(
            { key: record.key, error: describeError(error) },
            'could not re-send the latest state',
          );
          return false;
        },
      );
      const left = (record.sweepUntil ?? 0) - this.c.now();
      await this.settle({
        kind: 'checked',
        afterMs: sent ? Math.max(this.c.settleMs, left) : this.c.settleMs,
      });
      return { status: 'posted', ts: undefined };
    }
    const keep = record.postedTs;
    if (keep) {
      const removed = await o.sender.removeDuplicates(record, keep).catch((error: unknown) => {
        o.logger.warn({ key: record.key, error: describeError(error) }, 'duplicate check failed');
        return 0;
      });
      if (removed > 0) o.logger.warn({ key: record.key, removed }, 'deleted a duplicate copy');
    }
    await this.settle({ kind: 'checked', afterMs: this.c.settleMs });
    return { status: 'posted', ts: keep };
  }

  private async settle(settlement: Settlement): Promise<boolean> {
    const { o, holder } = this.c;
    const { record, token } = this.lease;
    const applied = await o.store.settle(record.key, holder, token, settlement, this.c.now());
    if (!applied)
      o.logger.info({ key: record.key, kind: settlement.kind }, 'stale delivery lease; not recorded');
    return applied;
  }

  /** How the record stands now (the lease was lost: whoever holds it decides). */
  private async standing(): Promise<AttemptResult> {
    const current = await this.c.o.store.get(this.lease.record.key);
    if (!current || current.state === 'abandoned')
      return { status: 'abandoned', reason: current?.reason ?? 'missing' };
    if (current.state === 'posted') return { status: 'posted', ts: current.postedTs };
    return { status: 'pending' };
  }

  private async retryLater(uncertain: boolean, code: string, retryAfterMs?: number): Promise<AttemptResult> {
    const { o } = this.c;
    const { record } = this.lease;
    const backoff = backoffDelay(record.attempts, {
      baseMs: o.retryBaseMs ?? 250,
      maxMs: o.retryMaxMs ?? 10_000,
      random: o.random,
    });
    // Shutting down: due for the replicas that stay once whatever is on the wire has settled.
    const closed = this.c.closed();
    const wait = Math.max(closed ? (uncertain ? this.c.settleMs : 0) : backoff, retryAfterMs ?? 0);
    const notBefore = this.c.now() + wait;
    // `recheck`: if this lease was lost meanwhile, a write of ours that may have landed is checked again.
    const settlement: Settlement = { kind: 'retry', notBefore, uncertain, recheck: this.recheck() };
    await this.settle(settlement).catch((error: unknown) =>
      // The lease lapses on its own; the reconciler retries then.
      o.logger.warn({ key: record.key, error: describeError(error) }, 'could not record a retry'),
    );
    o.metrics?.delivery('retry', record.priority);
    o.logger.warn({ key: record.key, code, retryInMs: wait }, 'delivery not confirmed; will retry');
    this.c.kickAt(record.key, notBefore);
    return { status: 'pending' };
  }
}

/**
 * What an attempt sends: a post already made (its ts recorded) that was re-opened with a newer payload, say
 * a starting card whose confirmation came after its wait, is edited in place; never posted twice.
 */
function sentTarget(record: Delivery): Delivery['target'] {
  const { target, postedTs } = record;
  if (target.kind !== 'post' || postedTs === undefined) return target;
  return { kind: 'update', channel: target.channel, ts: postedTs };
}
