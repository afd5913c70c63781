import {
  type Acquired,
  DEFAULT_KEEP_MS,
  DELIVERY_PRIORITIES,
  type Delivery,
  dueAt,
  type NewDelivery,
  type Settlement,
} from '../../delivery/domain.js';
import type { DeliveryStore } from '../../delivery/ports.js';

/** Records kept at most (oldest settled ones go first): a bound for memory mode, far above real use. */
const MAX_RECORDS = 100_000;

/**
 * The outbox in this process (memory mode): the same transitions as the Redis store, atomic because each
 * runs synchronously on the one JS thread. Lost on restart, like the rest of memory mode's state.
 */
export class MemoryDeliveryStore implements DeliveryStore {
  private readonly records = new Map<string, { delivery: Delivery; expiresAt: number }>();

  async record(input: NewDelivery, now: number): Promise<Delivery> {
    const existing = this.live(input.key, now);
    if (!existing) {
      const delivery: Delivery = {
        ...structuredClone(input),
        state: 'pending',
        notBefore: now,
        attempts: 0,
        revision: 0,
        createdAt: now,
      };
      this.records.set(input.key, { delivery, expiresAt: now + (input.keepMs ?? DEFAULT_KEEP_MS) });
      this.prune();
      return structuredClone(delivery);
    }
    if (input.seq !== undefined && input.seq > (existing.seq ?? -1)) {
      existing.payload = structuredClone(input.payload);
      existing.seq = input.seq;
      existing.priority = input.priority;
      existing.target = structuredClone(input.target);
      existing.revision += 1;
      if (existing.state === 'posted' || existing.state === 'abandoned') {
        existing.state = 'pending';
        existing.notBefore = now;
        existing.createdAt = now;
        delete existing.reason;
      }
    }
    return structuredClone(existing);
  }

  async get(key: string): Promise<Delivery | undefined> {
    const found = this.live(key, Date.now());
    return found ? structuredClone(found) : undefined;
  }

  async acquire(key: string, holder: string, leaseMs: number, now: number): Promise<Acquired> {
    const d = this.live(key, now);
    if (!d) return { ok: false, why: 'missing' };
    if (d.state === 'posted' || d.state === 'abandoned') return { ok: false, why: d.state };
    if (d.state === 'pending' && d.notBefore > now) return { ok: false, why: 'not_due' };
    if (d.state === 'in_flight' && (d.leaseUntil ?? 0) > now) return { ok: false, why: 'held' };
    // Taking over an expired lease: its holder may have been cut off mid-call.
    if (d.state === 'in_flight' && d.uncertainSince === undefined) d.uncertainSince = now;
    d.state = 'in_flight';
    d.holder = holder;
    d.leaseUntil = now + leaseMs;
    d.attempts += 1;
    return { ok: true, delivery: structuredClone(d) };
  }

  async settle(key: string, holder: string, settlement: Settlement, now: number): Promise<void> {
    const d = this.live(key, now);
    if (!d || d.state === 'posted' || d.state === 'abandoned') return;
    if (settlement.kind === 'posted') {
      if (settlement.revision < d.revision) {
        // A newer payload arrived while this one was on its way: that one is still owed.
        Object.assign(d, { state: 'pending', notBefore: now });
      } else {
        // What was sent is no longer needed: the record keeps only that it was (and its ts).
        Object.assign(d, { state: 'posted', postedTs: settlement.ts, payload: null });
      }
      delete d.holder;
      delete d.leaseUntil;
      return;
    }
    const mine =
      d.state === 'pending' || d.holder === holder || (d.state === 'in_flight' && (d.leaseUntil ?? 0) <= now);
    if (!mine) return;
    delete d.holder;
    delete d.leaseUntil;
    if (settlement.kind === 'abandoned') {
      Object.assign(d, { state: 'abandoned', reason: settlement.reason });
      return;
    }
    if (settlement.uncertain && d.uncertainSince === undefined) d.uncertainSince = now;
    Object.assign(d, {
      state: 'pending',
      notBefore: settlement.kind === 'retry' ? settlement.notBefore : now,
    });
  }

  async due(now: number, limit: number): Promise<string[]> {
    const due: Delivery[] = [];
    for (const [key, { delivery, expiresAt }] of this.records) {
      if (expiresAt <= now) {
        this.records.delete(key);
        continue;
      }
      const at = dueAt(delivery);
      if (at !== undefined && at <= now) due.push(delivery);
    }
    const rank = (d: Delivery) => DELIVERY_PRIORITIES.indexOf(d.priority);
    return due
      .sort((a, b) => rank(a) - rank(b) || (dueAt(a) ?? 0) - (dueAt(b) ?? 0))
      .slice(0, limit)
      .map((d) => d.key);
  }

  private live(key: string, now: number): Delivery | undefined {
    const entry = this.records.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= now) {
      this.records.delete(key);
      return undefined;
    }
    return entry.delivery;
  }

  private prune(): void {
    if (this.records.size <= MAX_RECORDS) return;
    for (const [key, { delivery }] of this.records) {
      if (delivery.state === 'posted' || delivery.state === 'abandoned') this.records.delete(key);
      if (this.records.size <= MAX_RECORDS * 0.9) return;
    }
  }
}
