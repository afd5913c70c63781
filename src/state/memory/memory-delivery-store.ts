import { deepFreeze } from '../../common/frozen.js';
import {
  type Acquired,
  DEFAULT_KEEP_MS,
  DELIVERY_PRIORITIES,
  type Delivery,
  dueAt,
  type NewDelivery,
  resentWhole,
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

  async record(
    input: NewDelivery,
    now: number,
    owner?: { holder: string; graceMs: number },
  ): Promise<Delivery> {
    const existing = this.live(input.key, now);
    const grace = owner ? { owner: owner.holder, graceUntil: now + owner.graceMs } : {};
    if (!existing) {
      // Owed from the end of its delay (a day to deliver it counts from then).
      const owedAt = now + Math.max(0, input.delayMs ?? 0);
      const delivery: Delivery = {
        ...input,
        target: frozenCopy(input.target),
        payload: frozenCopy(input.payload),
        state: 'pending',
        notBefore: owedAt,
        attempts: 0,
        revision: 0,
        createdAt: owedAt,
        ...grace,
      };
      this.records.set(input.key, { delivery, expiresAt: now + (input.keepMs ?? DEFAULT_KEEP_MS) });
      this.prune();
      return copyOf(delivery);
    }
    if (input.seq !== undefined && input.seq > (existing.seq ?? -1)) {
      existing.payload = frozenCopy(input.payload);
      existing.seq = input.seq;
      existing.priority = input.priority;
      existing.target = frozenCopy(input.target);
      existing.revision += 1;
      if (existing.state === 'posted' || existing.state === 'abandoned') {
        // Re-opened while an older write may still land: the newer state is checked again after it too.
        if ((existing.sweepUntil ?? 0) > now) existing.uncertainSince ??= now;
        Object.assign(existing, { state: 'pending', notBefore: now, createdAt: now, ...grace });
        delete existing.reason;
        delete existing.sweepUntil;
      }
    }
    return copyOf(existing);
  }

  async get(key: string): Promise<Delivery | undefined> {
    const found = this.live(key, Date.now());
    return found ? copyOf(found) : undefined;
  }

  async acquire(key: string, holder: string, leaseMs: number, now: number): Promise<Acquired> {
    const d = this.live(key, now);
    if (!d) return { ok: false, why: 'missing' };
    if (d.state === 'abandoned') return { ok: false, why: 'abandoned' };
    if (d.state === 'posted') {
      // A sweep lease: due, and not held by a live sweep.
      const sweepDue = d.sweepUntil !== undefined && d.notBefore <= now && (d.leaseUntil ?? 0) <= now;
      if (!sweepDue) return { ok: false, why: 'posted' };
    } else if (d.state === 'pending') {
      if (d.notBefore > now) return { ok: false, why: 'not_due' };
      if ((d.graceUntil ?? 0) > now && d.owner !== holder) return { ok: false, why: 'not_due' };
    } else if ((d.leaseUntil ?? 0) > now) {
      return { ok: false, why: 'held' };
    } else if (d.uncertainSince === undefined) {
      // Taking over an expired lease: its holder may have been cut off mid-call.
      d.uncertainSince = now;
    }
    if (d.state !== 'posted') d.state = 'in_flight';
    d.holder = holder;
    d.leaseUntil = now + leaseMs;
    d.attempts += 1;
    return { ok: true, delivery: copyOf(d) };
  }

  async renew(
    key: string,
    holder: string,
    token: number,
    leaseMs: number,
    now: number,
  ): Promise<Delivery | undefined> {
    const d = this.live(key, now);
    if (!d || d.holder !== holder || d.attempts !== token || d.leaseUntil === undefined) return undefined;
    d.leaseUntil = now + leaseMs;
    return copyOf(d);
  }

  async settle(key: string, holder: string, token: number, s: Settlement, now: number): Promise<boolean> {
    const d = this.live(key, now);
    if (!d) return false;
    if (d.holder !== holder || d.attempts !== token || d.leaseUntil === undefined) {
      staleWrite(d, s, now);
      return false;
    }
    delete d.holder;
    delete d.leaseUntil;
    if (d.state === 'posted') {
      // A sweep pass (or any end of a sweep lease): the next one, until the look-up window has passed.
      const afterMs = s.kind === 'checked' ? s.afterMs : s.kind === 'retry' ? s.notBefore - now : 0;
      if (d.sweepUntil === undefined || now >= d.sweepUntil) delete d.sweepUntil;
      else d.notBefore = now + Math.max(0, afterMs);
      return true;
    }
    if (s.kind === 'posted') {
      posted(d, s, now);
      return true;
    }
    if (s.kind === 'abandoned') {
      Object.assign(d, { state: 'abandoned', reason: s.reason });
      return true;
    }
    if (s.kind === 'checked') return true;
    const uncertain = s.uncertain;
    if (uncertain && d.uncertainSince === undefined) d.uncertainSince = now;
    const notBefore = s.kind === 'retry' ? s.notBefore : now + s.afterMs;
    Object.assign(d, { state: 'pending', notBefore });
    return true;
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

  /**
   * What is still owed (pending or in flight), by kind of target: memory mode loses it when the process
   * stops, and says so (memoryAdapters' close).
   */
  owed(now: number): Partial<Record<Delivery['target']['kind'], number>> {
    const counts: Partial<Record<Delivery['target']['kind'], number>> = {};
    for (const [key] of this.records) {
      const d = this.live(key, now);
      if (d && (d.state === 'pending' || d.state === 'in_flight'))
        counts[d.target.kind] = (counts[d.target.kind] ?? 0) + 1;
    }
    return counts;
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

/**
 * A caller's payload or target as stored: copied once when recorded (a caller changing its object later
 * changes nothing here) and frozen, so every record handed out shares it instead of copying it again. A
 * report's payload is ~9 KB: a deep copy on every read (record, acquire, renew, and a waiting card's look
 * every 100 ms) was the app's largest CPU cost in the §1 benchmark's memory mode (issue 43).
 */
function frozenCopy<T>(value: T): T {
  return deepFreeze(structuredClone(value));
}

/** A record handed out: its own fields, its payload and target shared (frozen, replaced only whole). */
function copyOf(d: Delivery): Delivery {
  return { ...d };
}

/** The live holder's confirmed write. */
function posted(d: Delivery, s: Extract<Settlement, { kind: 'posted' }>, now: number): void {
  if (s.revision < d.revision || d.reopen) {
    // A newer payload arrived while this one was on its way, or a stale write may have landed after it. A
    // post made meanwhile keeps its ts: the newer payload edits it in place.
    if (d.target.kind === 'post' && s.ts !== undefined) d.postedTs = s.ts;
    Object.assign(d, { state: 'pending', notBefore: now });
    delete d.reopen;
    return;
  }
  d.state = 'posted';
  if (s.ts !== undefined) d.postedTs = s.ts;
  // What was sent is no longer needed: a post keeps only that it was (and its ts). An assistant's result
  // posted as a reply keeps its payload (the sweep reads the thread from it), an update its latest state.
  if (d.target.kind === 'post') d.payload = null;
  const checked =
    d.target.kind === 'post' || resentWhole(d.target.kind) || (d.target.kind === 'assistant' && s.ts);
  if (!s.uncertain || !checked) return;
  // After an unknown outcome an earlier write may still land: until the look-up window has passed, a
  // post's other copies are swept and an update's latest state is sent again.
  Object.assign(d, { sweepUntil: now + s.recheck.forMs, notBefore: now + s.recheck.afterMs });
  delete d.uncertainSince;
}

/**
 * A settle from a holder whose lease is gone changes nothing but this: a write it made may have landed after
 * the live holder's, so an update is sent again and a post's copies are checked again.
 */
function staleWrite(d: Delivery, s: Settlement, now: number): void {
  const landed = s.kind === 'posted' || (s.kind === 'retry' && s.uncertain);
  if (!landed) return;
  if (resentWhole(d.target.kind)) {
    // The latest state is sent again, and checked once more after the window (a late write may follow).
    d.uncertainSince ??= now;
    if (d.state === 'posted') Object.assign(d, { state: 'pending', notBefore: now });
    else if (d.state === 'in_flight') d.reopen = true;
    return;
  }
  if (d.target.kind !== 'post' && !(d.target.kind === 'assistant' && d.postedTs !== undefined)) return;
  if (d.state !== 'posted') {
    if (d.uncertainSince === undefined) d.uncertainSince = now;
    return;
  }
  // A copy it reported, or one its timed-out call may have made: swept like any other.
  const recheck =
    s.kind === 'posted'
      ? s.ts === d.postedTs
        ? undefined
        : s.recheck
      : s.kind === 'retry'
        ? s.recheck
        : undefined;
  if (!recheck) return;
  Object.assign(d, {
    sweepUntil: Math.max(d.sweepUntil ?? 0, now + recheck.forMs),
    notBefore: now + recheck.afterMs,
  });
}
