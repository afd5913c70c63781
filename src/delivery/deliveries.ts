import { randomUUID } from 'node:crypto';
import { describeError } from '../common/errors.js';
import { LazyMap, LazySet } from '../common/lazy-collections.js';
import type { DeliveriesOptions } from './delivery-timing.js';
import type { AcquireRefusal, Delivery, NewDelivery, Settlement } from './domain.js';
import { type AttemptContext, attemptLeased } from './leased-attempt.js';
import type { AttemptResult, Outbox } from './ports.js';

export type { DeliveriesOptions } from './delivery-timing.js';
export { deliveryTimingsFor } from './delivery-timing.js';
export type { AttemptResult } from './ports.js';

/**
 * The one delivery path: every message the bot owes is recorded first, then attempted under a lease. Every
 * decision is made on the record the lease returned (an uncertain one is looked up first), every settle
 * carries the lease's fencing token, and a post whose outcome was ever unknown keeps a durable sweep in the
 * store until no late copy can land. `reconcile` retries whatever is due, in every replica.
 */
export class Deliveries implements Outbox {
  readonly holder: string;
  readonly leaseMs: number;
  readonly settleMs: number;
  /** Attempts running in this process, by key, and those asked for again meanwhile. */
  private readonly running = new LazySet<string>();
  private readonly again = new LazySet<string>();
  /** Leases this process holds, by key (handed back at shutdown). */
  private readonly leased = new LazyMap<string, number>();
  private isClosed = false;
  readonly now: () => number;
  /** What each leased attempt needs from here. */
  private readonly context: AttemptContext;

  constructor(private readonly o: DeliveriesOptions) {
    this.now = o.now ?? Date.now;
    this.holder = o.holder ?? `replica-${randomUUID()}`;
    this.leaseMs = o.leaseMs ?? 30_000;
    this.settleMs = o.settleMs ?? 4_000;
    this.context = {
      o,
      holder: this.holder,
      leaseMs: this.leaseMs,
      settleMs: this.settleMs,
      now: this.now,
      closed: () => this.isClosed,
      kickAt: (key, at) => this.kickAt(key, at),
    };
  }

  /** Records a delivery and attempts it in the background; resolves once it is recorded. */
  async owe(delivery: NewDelivery): Promise<void> {
    await this.record(delivery);
    this.kick(delivery.key);
  }

  async recorded(key: string): Promise<boolean> {
    return (await this.o.store.get(key)) !== undefined;
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
    while (this.now() < until && !this.isClosed) {
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
    if (this.isClosed) return 0;
    const free = (this.o.concurrency ?? 16) - this.running.size;
    if (free <= 0) return 0;
    const keys = await this.o.store.due(this.now(), limit);
    const fresh = keys.filter((key) => !this.running.has(key)).slice(0, free);
    for (const key of fresh) this.kick(key);
    return fresh.length;
  }

  /** Whether an attempt runs or a lease is held here now (the scope is not evicted meanwhile). */
  busy(): boolean {
    return this.running.size > 0 || this.leased.size > 0;
  }

  /** Resolves when no attempt of this process is under way (shutdown: bound it with a timeout). */
  async idle(): Promise<void> {
    while (this.running.size > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  }

  /** Shutdown: gives back every lease held here, uncertain (a call on the wire may land late: looked up first). */
  async handBack(): Promise<number> {
    this.isClosed = true;
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
    if (this.isClosed) return { status: 'pending' };
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
        return await attemptLeased(this.context, lease);
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

  /** Attempts `key` at `at`: a timer may fire a millisecond early (a monotonic clock), so it is re-armed. */
  private kickAt(key: string, at: number, rearms = 3): void {
    if (this.isClosed) return;
    const fire = () => (this.now() < at && rearms > 0 ? this.kickAt(key, at, rearms - 1) : this.kick(key));
    setTimeout(fire, Math.max(0, at - this.now())).unref();
  }
}
