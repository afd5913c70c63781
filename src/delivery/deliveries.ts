import { randomUUID } from 'node:crypto';
import { backoffDelay } from '../common/backoff.js';
import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { AcquireRefusal, Delivery, NewDelivery, Settlement } from './domain.js';
import {
  type AttemptResult,
  DeliveryAttemptError,
  type DeliveryMetrics,
  type DeliverySender,
  type DeliveryStore,
  type Outbox,
} from './ports.js';

export type { AttemptResult } from './ports.js';

export interface DeliveriesOptions {
  store: DeliveryStore;
  sender: DeliverySender;
  /** Operational time (leases, retries, give-up): the system clock, never a domain clock a test may freeze. */
  now?: () => number;
  logger: Logger;
  /** This replica in leases (default: a random id per process). */
  holder?: string;
  /** How long one call may hold a delivery (renewed before each call): longer than the call (default 30 s). */
  leaseMs?: number;
  /** How long a call whose outcome is unknown may still land (default 4 s): looked up only after it. */
  settleMs?: number;
  /** A new record is its recorder's alone this long; other replicas' reconcilers wait (default `settleMs`). */
  graceMs?: number;
  /** How long copies of an uncertain post are swept for (the look-up window; default 2 × lease + settle). */
  sweepForMs?: number;
  /** Reconciler attempts running at once in this replica (default 16): one slow channel blocks no batch. */
  concurrency?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** A delivery still failing this long after it was recorded is abandoned (default 24 h). */
  giveUpAfterMs?: number;
  metrics?: DeliveryMetrics;
  random?: () => number;
}

/** The lease an attempt works under: its fencing token is the attempt number the store gave it. */
interface Lease {
  record: Delivery;
  token: number;
}

/**
 * The one delivery path: every message the bot owes is recorded first, then attempted under a lease. Every
 * decision is made on the record the lease returned (an uncertain one is looked up first), every settle
 * carries the lease's fencing token, and a post whose outcome was ever unknown keeps a durable sweep in the
 * store until no late copy can land. `reconcile` retries whatever is due, in every replica.
 */
export class Deliveries implements Outbox {
  readonly holder: string;
  private readonly leaseMs: number;
  private readonly settleMs: number;
  /** Attempts running in this process, by key, and those asked for again meanwhile. */
  private readonly running = new Set<string>();
  private readonly again = new Set<string>();
  /** Leases this process holds, by key (handed back at shutdown). */
  private readonly leased = new Map<string, number>();
  private closed = false;
  private readonly now: () => number;

  constructor(private readonly o: DeliveriesOptions) {
    this.now = o.now ?? Date.now;
    this.holder = o.holder ?? `replica-${randomUUID()}`;
    this.leaseMs = o.leaseMs ?? 30_000;
    this.settleMs = o.settleMs ?? 4_000;
  }

  /** Records a delivery and attempts it in the background; resolves once it is recorded. */
  async owe(delivery: NewDelivery): Promise<void> {
    await this.record(delivery);
    this.kick(delivery.key);
  }

  /**
   * Records a delivery and makes one attempt now; resolves how that attempt ended, or with `waitMs` how the
   * delivery stands once settled (by any replica) or when the wait is over.
   */
  async deliver(delivery: NewDelivery, options: { waitMs?: number } = {}): Promise<AttemptResult> {
    await this.record(delivery);
    const first = await this.attempt(delivery.key);
    const until = this.now() + (options.waitMs ?? 0);
    if (first.status !== 'pending' || this.now() >= until) return first;
    while (this.now() < until && !this.closed) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      const d = await this.o.store.get(delivery.key);
      if (d?.state === 'posted') return { status: 'posted', ts: d.postedTs };
      if (!d || d.state === 'abandoned') return { status: 'abandoned', reason: d?.reason ?? 'missing' };
    }
    return { status: 'pending' };
  }

  /**
   * Starts an attempt for every due key not already under way here, at most `concurrency` at once, without
   * waiting (a channel held back by a 429 holds only its own); resolves how many it started.
   */
  async reconcile(limit = 200): Promise<number> {
    if (this.closed) return 0;
    const free = (this.o.concurrency ?? 16) - this.running.size;
    if (free <= 0) return 0;
    const keys = await this.o.store.due(this.now(), limit);
    const fresh = keys.filter((key) => !this.running.has(key)).slice(0, free);
    for (const key of fresh) this.kick(key);
    return fresh.length;
  }

  /** Resolves when no attempt of this process is under way (shutdown: bound it with a timeout). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Shutdown: gives back every lease held here, uncertain (a call on the wire may land late: looked up first). */
  async handBack(): Promise<number> {
    this.closed = true;
    const leases = [...this.leased];
    const settlement: Settlement = { kind: 'released', uncertain: true, afterMs: this.settleMs };
    await Promise.all(
      leases.map(([key, token]) =>
        this.o.store
          .settle(key, this.holder, token, settlement, this.now())
          .catch((error: unknown) =>
            this.o.logger.warn({ key, error: describeError(error) }, 'could not hand a delivery back'),
          ),
      ),
    );
    return leases.length;
  }

  private record(delivery: NewDelivery): Promise<Delivery> {
    const graceMs = this.o.graceMs ?? this.settleMs;
    return this.o.store.record(delivery, this.now(), { holder: this.holder, graceMs });
  }

  private kick(key: string): void {
    this.attempt(key).catch((error: unknown) =>
      this.o.logger.warn({ key, error: describeError(error) }, 'delivery attempt failed; will retry'),
    );
  }

  /** One attempt of one delivery; never throws for Slack's answers (they are recorded). */
  async attempt(key: string): Promise<AttemptResult> {
    if (this.closed) return { status: 'pending' };
    // Under way here: once it ends, one more attempt takes what was owed meanwhile (a newer revision).
    if (this.running.has(key)) {
      this.again.add(key);
      return { status: 'pending' };
    }
    this.running.add(key);
    try {
      const acquired = await this.o.store.acquire(key, this.holder, this.leaseMs, this.now());
      if (!acquired.ok) return await this.refused(key, acquired.why);
      const lease = { record: acquired.delivery, token: acquired.delivery.attempts };
      this.leased.set(key, lease.token);
      try {
        return await this.attemptLeased(lease);
      } finally {
        this.leased.delete(key);
      }
    } finally {
      this.running.delete(key);
      if (this.again.delete(key)) this.kick(key);
    }
  }

  private async refused(key: string, why: AcquireRefusal): Promise<AttemptResult> {
    if (why === 'posted') return { status: 'posted', ts: (await this.o.store.get(key))?.postedTs };
    if (why === 'missing' || why === 'abandoned') return { status: 'abandoned', reason: why };
    // Held by a live lease, or not due yet: "later", never "done".
    return { status: 'pending' };
  }

  private async attemptLeased(lease: Lease): Promise<AttemptResult> {
    const { store, sender } = this.o;
    const { record } = lease;
    if (record.state === 'posted') return this.sweep(lease);
    if (this.now() - record.createdAt > (this.o.giveUpAfterMs ?? 24 * 60 * 60 * 1000)) {
      await this.settle(lease, { kind: 'abandoned', reason: 'expired' });
      this.o.metrics?.delivery('abandoned', record.priority);
      this.o.logger.error({ key: record.key }, 'a message the bot owed could not be delivered for a day');
      return { status: 'abandoned', reason: 'expired' };
    }
    const uncertain = record.uncertainSince !== undefined;
    // An earlier attempt may have landed (unknown outcome, a holder cut off mid-call): look before posting.
    if (record.target.kind === 'post' && uncertain) {
      const found = await sender.lookup(record).catch(() => null);
      if (found === null) return this.retryLater(lease, true, 'lookup_failed');
      if (found) {
        await this.settle(lease, this.posted(found, record.revision, true));
        this.o.metrics?.delivery('found', record.priority);
        return { status: 'posted', ts: found };
      }
    }
    try {
      const renew = () =>
        this.closed
          ? Promise.resolve(undefined)
          : store.renew(record.key, this.holder, lease.token, this.leaseMs, this.now());
      const result = await sender.send(record.key, record.priority, record.target, renew);
      // The lease was lost while waiting for the slot (taken over, handed back): the holder decides.
      if (!result.sent) return { status: 'pending' };
      await this.settle(lease, this.posted(result.ts, result.delivery.revision, uncertain));
      this.o.metrics?.delivery('posted', record.priority);
      return { status: 'posted', ts: result.ts };
    } catch (error) {
      if (!(error instanceof DeliveryAttemptError))
        // Our own failure (the store, a bug): retried like an unknown outcome.
        return this.retryLater(lease, true, describeError(error));
      const failure = error.failure;
      if (failure.kind === 'permanent') {
        await this.settle(lease, { kind: 'abandoned', reason: failure.code });
        this.o.metrics?.delivery('abandoned', record.priority);
        // A post nobody will see is an error; a status line or a stream Slack has closed is routine.
        const level = record.target.kind === 'post' ? 'error' : 'warn';
        this.o.logger[level](
          { key: record.key, target: record.target.kind, code: failure.code },
          'Slack refused a message the bot owed; abandoned',
        );
        return { status: 'abandoned', reason: failure.code };
      }
      if (failure.kind === 'not_sent')
        return this.retryLater(lease, false, failure.code, failure.retryAfterMs);
      // Unanswered: Slack may still be storing it, so the look-up waits for that.
      return this.retryLater(lease, true, failure.code, failure.inFlight ? this.settleMs : 0);
    }
  }

  private posted(ts: string | undefined, revision: number, uncertain: boolean): Settlement {
    const recheck = { afterMs: this.settleMs, forMs: this.o.sweepForMs ?? 2 * this.leaseMs + this.settleMs };
    return { kind: 'posted', ts, revision, uncertain, recheck };
  }

  /** One pass of a posted record's durable sweep: every copy but the recorded one is deleted. */
  private async sweep(lease: Lease): Promise<AttemptResult> {
    const { record } = lease;
    const keep = record.postedTs;
    if (keep) {
      const removed = await this.o.sender.removeDuplicates(record, keep).catch((error: unknown) => {
        this.o.logger.warn({ key: record.key, error: describeError(error) }, 'duplicate check failed');
        return 0;
      });
      if (removed > 0) this.o.logger.warn({ key: record.key, removed }, 'deleted a duplicate copy');
    }
    await this.settle(lease, { kind: 'checked', afterMs: this.settleMs });
    return { status: 'posted', ts: keep };
  }

  private async settle(lease: Lease, settlement: Settlement): Promise<boolean> {
    const applied = await this.o.store.settle(
      lease.record.key,
      this.holder,
      lease.token,
      settlement,
      this.now(),
    );
    if (!applied)
      this.o.logger.info(
        { key: lease.record.key, kind: settlement.kind },
        'stale delivery lease; not recorded',
      );
    return applied;
  }

  private async retryLater(
    lease: Lease,
    uncertain: boolean,
    code: string,
    retryAfterMs?: number,
  ): Promise<AttemptResult> {
    const { record } = lease;
    const backoff = backoffDelay(record.attempts, {
      baseMs: this.o.retryBaseMs ?? 250,
      maxMs: this.o.retryMaxMs ?? 10_000,
      random: this.o.random,
    });
    // Shutting down: due for the replicas that stay once whatever is on the wire has settled.
    const wait = Math.max(this.closed ? (uncertain ? this.settleMs : 0) : backoff, retryAfterMs ?? 0);
    const notBefore = this.now() + wait;
    await this.settle(lease, { kind: 'retry', notBefore, uncertain }).catch((error: unknown) =>
      // The lease lapses on its own; the reconciler retries then.
      this.o.logger.warn({ key: record.key, error: describeError(error) }, 'could not record a retry'),
    );
    this.o.metrics?.delivery('retry', record.priority);
    this.o.logger.warn({ key: record.key, code, retryInMs: wait }, 'delivery not confirmed; will retry');
    this.kickAt(record.key, notBefore);
    return { status: 'pending' };
  }

  /** Attempts `key` at `at`: a timer may fire a millisecond early (a monotonic clock), so it is re-armed. */
  private kickAt(key: string, at: number, rearms = 3): void {
    if (this.closed) return;
    const fire = () => (this.now() < at && rearms > 0 ? this.kickAt(key, at, rearms - 1) : this.kick(key));
    setTimeout(fire, Math.max(0, at - this.now())).unref();
  }
}
