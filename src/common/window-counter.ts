/** Counts attempts in a fixed window: shared by every replica (Redis) or this process's own (memory). */
export interface WindowCounter {
  /** Adds one to `key`'s count and resolves the count; the key lapses `ttlMs` after its first count. */
  increment(key: string, ttlMs: number): Promise<number>;
  /** `key`'s count now, without adding to it (0 when it never counted or has lapsed). */
  count(key: string): Promise<number>;
}

/** This process's counts, dropped as their windows pass (at most two windows are ever kept). */
export class MemoryWindowCounter implements WindowCounter {
  private readonly counts = new Map<string, { count: number; until: number }>();

  constructor(private readonly now: () => number) {}

  async increment(key: string, ttlMs: number): Promise<number> {
    const at = this.now();
    if (this.counts.size > 10_000) {
      for (const [k, v] of this.counts) if (v.until <= at) this.counts.delete(k);
    }
    const held = this.counts.get(key);
    const entry = held && held.until > at ? held : { count: 0, until: at + ttlMs };
    entry.count += 1;
    this.counts.set(key, entry);
    return entry.count;
  }

  async count(key: string): Promise<number> {
    const held = this.counts.get(key);
    return held && held.until > this.now() ? held.count : 0;
  }
}
