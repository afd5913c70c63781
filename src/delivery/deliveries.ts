import { randomUUID } from 'node:crypto';
import { backoffDelay } from '../common/backoff.js';
import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { Delivery, NewDelivery } from './domain.js';
import {
  DeliveryAttemptError,
  type DeliveryMetrics,
  type DeliverySender,
  type DeliveryStore,
  type Outbox,
} from './ports.js';

export interface DeliveriesOptions {
  store: DeliveryStore;
  sender: DeliverySender;
  /**
   * Operational time (leases, retries, give-up): the system clock by default, never a domain clock a test
   * may freeze; the Redis store uses Redis's own clock for leases anyway.
   */
  now?: () => number;
  logger: Logger;
  /** This replica in leases (default: a random id per process). */
  holder?: string;
  /** How long an attempt may hold a delivery: about twice the longest Slack call (default 30 s). */
  leaseMs?: number;
  /** Wait after an unknown outcome before looking it up: Slack may still be storing it (default 4 s). */
  settleMs?: number;
  retryBaseMs?: number;
  retryMaxMs?: number;
  /** A delivery still failing this long after it was recorded is abandoned (default 24 h). */
  giveUpAfterMs?: number;
  metrics?: DeliveryMetrics;
  random?: () => number;
}

/** How one attempt ended, for callers that wait on it (a person waiting for an answer). */
export type AttemptResult =
  | { status: 'posted'; ts: string | undefined }
  | { status: 'abandoned'; reason: string }
  /** Not delivered yet: retried by this or another replica's reconciler. */
  | { status: 'pending' };

/**
 * The one delivery path: every message the bot owes is recorded first, then attempted under a short
 * lease. A live lease held elsewhere means "later", never "done"; an expired lease or an unknown outcome
 * is looked up before posting again; a permanent refusal is logged and abandoned. `reconcile` retries
 * whatever is due, in every replica, so nothing depends on the process that recorded it staying alive.
 */
export class Deliveries implements Outbox {
  readonly holder: string;
  private readonly leaseMs: number;
  private readonly settleMs: number;
  /** Attempts running in this process, by key and priority (a raised priority may start a second one). */
  private readonly running = new Set<string>();
  /** Keys this process holds a lease on (handed back at shutdown). */
  private readonly leased = new Set<string>();
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
    await this.o.store.record(delivery, this.now());
    this.kick(delivery.key, delivery.priority);
  }

  /** Records a delivery and makes one attempt now; resolves how that attempt ended. */
  async deliver(delivery: NewDelivery): Promise<AttemptResult> {
    await this.o.store.record(delivery, this.now());
    return this.attempt(delivery.key, delivery.priority);
  }

  /** Attempts every delivery that is due (pending, or whose lease expired); resolves how many it tried. */
  async reconcile(limit = 200): Promise<number> {
    if (this.closed) return 0;
    const keys = await this.o.store.due(this.now(), limit);
    const fresh = keys.filter((key) => ![...this.running].some((r) => r.startsWith(`${key}\u0000`)));
    await Promise.all(fresh.map((key) => this.attempt(key, undefined).catch(() => undefined)));
    return fresh.length;
  }

  /** Resolves when no attempt of this process is under way (shutdown: bound it with a timeout). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Stops attempting and gives every lease this process holds back (shutdown): others take them at once. */
  async handBack(): Promise<number> {
    this.closed = true;
    const keys = [...this.leased];
    await Promise.all(
      keys.map((key) =>
        this.o.store
          .settle(key, this.holder, { kind: 'released', uncertain: true }, this.now())
          .catch((error: unknown) =>
            this.o.logger.warn({ key, error: describeError(error) }, 'could not hand a delivery back'),
          ),
      ),
    );
    return keys.length;
  }

  private kick(key: string, priority: Delivery['priority']): void {
    this.attempt(key, priority).catch((error: unknown) =>
      this.o.logger.warn({ key, error: describeError(error) }, 'delivery attempt failed; will retry'),
    );
  }

  /** One attempt of one delivery; never throws for Slack's answers (they are recorded). */
  async attempt(key: string, priority: Delivery['priority'] | undefined): Promise<AttemptResult> {
    if (this.closed) return { status: 'pending' };
    const runKey = `${key}\u0000${priority ?? ''}`;
    if (this.running.has(runKey)) return { status: 'pending' };
    this.running.add(runKey);
    try {
      return await this.attemptOnce(key);
    } finally {
      this.running.delete(runKey);
    }
  }

  private async attemptOnce(key: string): Promise<AttemptResult> {
    const { store, sender } = this.o;
    const seen = await store.get(key);
    if (!seen) return { status: 'abandoned', reason: 'missing' };
    if (seen.state === 'posted') return { status: 'posted', ts: seen.postedTs };
    if (seen.state === 'abandoned') return { status: 'abandoned', reason: seen.reason ?? 'abandoned' };
    const now = this.now();
    if (seen.state === 'pending' && seen.notBefore > now) return { status: 'pending' };
    if (seen.state === 'in_flight' && (seen.leaseUntil ?? 0) > now) return { status: 'pending' };
    if (now - seen.createdAt > (this.o.giveUpAfterMs ?? 24 * 60 * 60 * 1000)) {
      await this.abandonExpired(seen, now);
      return { status: 'abandoned', reason: 'expired' };
    }

    // An earlier attempt may have landed (unknown outcome, or a holder that died mid-call): look first.
    // A lapsed lease is longer than twice the call's timeout: whatever its holder sent has settled by now.
    if (seen.target.kind === 'post' && (seen.uncertainSince !== undefined || seen.state === 'in_flight')) {
      const found = await sender.lookup(seen).catch(() => null);
      if (found === null) return this.retryLater(seen, false, 'lookup_failed');
      if (found) {
        await store.settle(key, this.holder, { kind: 'posted', ts: found, revision: seen.revision }, now);
        this.o.metrics?.delivery('found', seen.priority);
        // Another attempt with an unknown outcome may still land after the one found: that one is kept.
        sender.sweepDuplicates(seen, found);
        return { status: 'posted', ts: found };
      }
    }

    let leasedRecord: Delivery | undefined;
    try {
      const result = await sender.send(key, seen.priority, seen.target, async () => {
        // Handed back while waiting for the slot (shutdown): another replica takes it.
        if (this.closed) return undefined;
        const acquired = await store.acquire(key, this.holder, this.leaseMs, this.now());
        if (!acquired.ok) return undefined;
        this.leased.add(key);
        leasedRecord = acquired.delivery;
        return acquired.delivery;
      });
      if (!result.sent) {
        const latest = await store.get(key);
        return latest?.state === 'posted' ? { status: 'posted', ts: latest.postedTs } : { status: 'pending' };
      }
      const sent = result.delivery;
      await store.settle(
        key,
        this.holder,
        { kind: 'posted', ts: result.ts, revision: sent.revision },
        this.now(),
      );
      this.o.metrics?.delivery('posted', sent.priority);
      if (result.ts && sent.uncertainSince !== undefined) sender.sweepDuplicates(sent, result.ts);
      return { status: 'posted', ts: result.ts };
    } catch (error) {
      const record = leasedRecord ?? seen;
      if (!(error instanceof DeliveryAttemptError)) {
        // Our own failure (the store, a bug): the lease lapses and the reconciler tries again.
        if (leasedRecord) return this.retryLater(record, true, describeError(error));
        throw error;
      }
      const failure = error.failure;
      if (failure.kind === 'permanent') {
        await store.settle(key, this.holder, { kind: 'abandoned', reason: failure.code }, this.now());
        this.o.metrics?.delivery('abandoned', record.priority);
        // A post nobody will see is an error; a status line or a stream Slack has closed is routine.
        const level = record.target.kind === 'post' ? 'error' : 'warn';
        this.o.logger[level](
          { key, target: record.target.kind, code: failure.code },
          'Slack refused a message the bot owed; abandoned',
        );
        return { status: 'abandoned', reason: failure.code };
      }
      if (failure.kind === 'not_sent')
        return this.retryLater(record, false, failure.code, failure.retryAfterMs);
      // Unanswered: Slack may still be storing it, so the look-up waits for that.
      return this.retryLater(record, true, failure.code, failure.inFlight ? this.settleMs : 0);
    } finally {
      this.leased.delete(key);
    }
  }

  private async retryLater(
    record: Delivery,
    uncertain: boolean,
    code: string,
    retryAfterMs?: number,
  ): Promise<AttemptResult> {
    const now = this.now();
    const backoff = backoffDelay(record.attempts, {
      baseMs: this.o.retryBaseMs ?? 250,
      maxMs: this.o.retryMaxMs ?? 10_000,
      random: this.o.random,
    });
    // Shutting down: due at once, for the replicas that stay (they look first when it is uncertain).
    const wait = this.closed ? 0 : Math.max(backoff, retryAfterMs ?? 0);
    await this.o.store
      .settle(record.key, this.holder, { kind: 'retry', notBefore: now + wait, uncertain }, now)
      .catch((error: unknown) =>
        // The lease lapses on its own; the reconciler retries then.
        this.o.logger.warn({ key: record.key, error: describeError(error) }, 'could not record a retry'),
      );
    this.o.metrics?.delivery('retry', record.priority);
    this.o.logger.warn({ key: record.key, code, retryInMs: wait }, 'delivery not confirmed; will retry');
    if (!this.closed) {
      const timer = setTimeout(() => this.kick(record.key, record.priority), wait);
      timer.unref();
    }
    return { status: 'pending' };
  }

  private async abandonExpired(record: Delivery, now: number): Promise<void> {
    const acquired = await this.o.store.acquire(record.key, this.holder, this.leaseMs, now);
    if (!acquired.ok) return;
    await this.o.store.settle(record.key, this.holder, { kind: 'abandoned', reason: 'expired' }, now);
    this.o.metrics?.delivery('abandoned', record.priority);
    this.o.logger.error({ key: record.key }, 'a message the bot owed could not be delivered for a day');
  }
}
