export interface BoundedMemoryStoreOptions {
  /** Most entries kept; beyond it the least recently used entry is dropped. */
  maxEntries: number;
  /** How often expired entries are removed even if nobody reads them again (default 60 s). */
  sweepIntervalMs?: number;
  now?: () => number;
}

interface Entry {
  value: unknown;
  /** Infinity for entries stored without a time to live. */
  expiresAt: number;
}

/**
 * The Map-like store Keyv is given in memory mode. Keyv alone keeps an expired entry until it is read
 * again, so entries that are never read again (expired cache ranges, 30-day job records) would pile up for
 * the life of the process. This store is bounded twice: by count (least recently used out first, a Map
 * keeps insertion order and every read re-inserts) and by a periodic sweep of expired entries. The sweep
 * timer is `unref()`ed and stopped by `disconnect()` (Keyv's `disconnect()` calls it).
 *
 * Hand-written rather than `lru-cache`: Keyv passes the time to live as a number, which `lru-cache`'s
 * `set(key, value, options)` would ignore, and it is a few lines.
 */
export class BoundedMemoryStore {
  /** Set by Keyv. */
  namespace?: string;
  private readonly entries = new Map<string, Entry>();
  private readonly now: () => number;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: BoundedMemoryStoreOptions) {
    if (!(options.maxEntries >= 1)) throw new RangeError('maxEntries must be at least 1');
    this.now = options.now ?? Date.now;
    this.timer = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    this.timer.unref();
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): unknown {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: unknown, ttlMs?: number): boolean {
    const expiresAt = typeof ttlMs === 'number' && ttlMs > 0 ? this.now() + ttlMs : Number.POSITIVE_INFINITY;
    this.entries.delete(key);
    this.entries.set(key, { value, expiresAt });
    while (this.entries.size > this.options.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest === undefined) break;
      this.entries.delete(oldest);
    }
    return true;
  }

  has(key: string): boolean {
    const entry = this.entries.get(key);
    return entry !== undefined && entry.expiresAt > this.now();
  }

  delete(key: string): boolean {
    return this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  /** Removes every expired entry; returns how many. */
  sweep(): number {
    const now = this.now();
    let removed = 0;
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) {
        this.entries.delete(key);
        removed += 1;
      }
    }
    return removed;
  }

  /** Stops the sweep (Keyv's `disconnect()` calls this). */
  disconnect(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }
}
