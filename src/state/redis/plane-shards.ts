/**
 * Issue 43: each kind of the queue plane is split into shards, each its own BullMQ queue under its own hash
 * tag (`{plane-<kind>-<n>}`), so on a Redis Cluster a kind's traffic spreads over the primaries instead of
 * landing on the one that holds `{plane-<kind>}`. A tenant's jobs of a kind all live in one shard, chosen by
 * a stable hash of its key: the same on every replica and every start, as long as QUEUE_SHARDS is unchanged
 * (a changed count re-homes the jobs once, `plane-rehome.ts`).
 */

export { DEFAULT_QUEUE_SHARDS, SINGLE_NODE_QUEUE_SHARDS } from '../../common/config-oauth.js';

/** FNV-1a (32 bits) of the text's UTF-16 units: stable across processes and versions, no dependency. */
export function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** The shard a tenant's jobs live in (0 … shards − 1). */
export function shardOf(tenant: string, shards: number): number {
  return shards <= 1 ? 0 : fnv1a(tenant) % shards;
}

/** A shard's BullMQ prefix: its own hash tag, so each shard is a slot of its own on a cluster. */
export function shardPrefix(prefix: string, kind: string, shard: number): string {
  return `${prefix}:{plane-${kind}-${shard}}`;
}

/** The one queue a kind had before issue 43 (its jobs are moved to their shards, `plane-rehome.ts`). */
export function unshardedPrefix(prefix: string, kind: string): string {
  return `${prefix}:{plane-${kind}}`;
}

/**
 * Jobs one shard's Worker runs at once in a replica: the kind's concurrency divided among its shards, but
 * never so few that one tenant at its cap fills the Worker (cap + 1, within the kind's concurrency), so
 * the plane's fairness (a tenant over its cap is moved back) still has a slot left for the others.
 */
export function shardConcurrency(total: number, shards: number, perTenantCap: number): number {
  return Math.max(1, Math.ceil(total / Math.max(1, shards)), Math.min(total, perTenantCap + 1));
}
