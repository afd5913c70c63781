/** One scope's part of a process-wide cache: its keys never meet another scope's. */
export interface CacheView<V> {
  get(key: string): V | undefined;
  set(key: string, value: V): void;
  delete(key: string): void;
}

/** The process's caches together (user names, channel access, managers, Home hashes, ETags): 100,000 entries. */
export const PROCESS_CACHE_ENTRIES = 100_000;

/**
 * One bounded LRU for the whole process, keyed by scope (a tenant and a kind): with thousands of tenants a
 * cache bounded per tenant is unbounded per process, so every tenant's caches share this one bound, the least
 * recently used entry of anyone leaving first. A scope's entries go with `dropScope` (an uninstall).
 */
export class ProcessLru {
  private readonly entries = new Map<string, unknown>();

  constructor(private readonly maxEntries = PROCESS_CACHE_ENTRIES) {}

  get size(): number {
    return this.entries.size;
  }

  /** `scope` names a tenant and a kind, e.g. `T123/user-names`; it may not contain the separator. */
  view<V>(scope: string): CacheView<V> {
    const prefix = `${scope}\u0000`;
    return {
      get: (key) => {
        const full = prefix + key;
        if (!this.entries.has(full)) return undefined;
        const value = this.entries.get(full) as V;
        // Used now: moved to the young end (a Map keeps insertion order).
        this.entries.delete(full);
        this.entries.set(full, value);
        return value;
      },
      set: (key, value) => {
        const full = prefix + key;
        this.entries.delete(full);
        this.entries.set(full, value);
        while (this.entries.size > this.maxEntries) {
          const oldest = this.entries.keys().next().value;
          if (oldest === undefined) break;
          this.entries.delete(oldest);
        }
      },
      delete: (key) => {
        this.entries.delete(prefix + key);
      },
    };
  }

  /** Every entry of scopes starting with `scopePrefix` (a tenant's, at its uninstall): O(entries). */
  dropScope(scopePrefix: string): void {
    for (const key of this.entries.keys()) if (key.startsWith(scopePrefix)) this.entries.delete(key);
  }
}

/** A tenant's caches, each kind a view of the process's one LRU. */
export interface CacheScope {
  view<V>(kind: string): CacheView<V>;
}

export function tenantCaches(lru: ProcessLru, tenant: string): CacheScope {
  return { view: (kind) => lru.view(`${tenant}/${kind}`) };
}
