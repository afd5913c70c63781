import { randomUUID } from 'node:crypto';

/**
 * Issue 43 "no thrash": a tenant's fair-kind jobs go first to the replica that holds its scope, so its
 * context is built once, not on every replica whose take reaches its polls. Each replica records in every
 * fair shard "tenant → replica:expiry" for the tenants it holds (`<shard>:fair:held`, written by the take
 * script itself from its ARGV: no round trip of its own), and the take leaves a tenant held by another live
 * replica to it until its oldest ready job has waited `stealAfterMs` (`plane-fair-scripts.ts`). Only a
 * preference: leases, job locks and the cap are as without it.
 */
export interface AffinityTimings {
  /** How long a hold lasts unless written again (a replica that died lets its tenants go after this). */
  holdMs: number;
  /** How long a job waits for its tenant's holder before any replica takes it. */
  stealAfterMs: number;
}

export const DEFAULT_AFFINITY: AffinityTimings = { holdMs: 30_000, stealAfterMs: 2_000 };

/** What one take writes: this replica's id and timings, holds to write or refresh, holds to remove. */
export interface AffinityBatch extends AffinityTimings {
  replica: string;
  hold: string[];
  unhold: string[];
}

const NOT_SENT = Number.NEGATIVE_INFINITY;

/** The tenants whose scopes this replica holds, shared out to each fair shard's take (one per kind and shard). */
export class ReplicaHolds {
  readonly replica = randomUUID();
  private readonly held = new Set<string>();
  private readonly shards = new Map<number, ShardHolds[]>();

  constructor(
    private readonly shardOf: (tenant: string) => number,
    readonly timings: AffinityTimings = DEFAULT_AFFINITY,
  ) {}

  /** This replica holds the tenant's scope (true: built here) or no longer does (evicted, stopped). */
  set(tenant: string, held: boolean): void {
    if (held === this.held.has(tenant)) return;
    if (held) this.held.add(tenant);
    else this.held.delete(tenant);
    for (const shard of this.shards.get(this.shardOf(tenant)) ?? []) shard.set(tenant, held);
  }

  /** A fair shard's view (its take writes them); `changed`: a tenant is newly held (write it soon). */
  forShard(shard: number, changed: () => void): ShardHolds {
    const made = new ShardHolds(this, changed);
    for (const tenant of this.held) if (this.shardOf(tenant) === shard) made.set(tenant, true);
    this.shards.set(shard, [...(this.shards.get(shard) ?? []), made]);
    return made;
  }
}

/**
 * One fair shard's holds of this replica: each written by the next take once held, again every third of
 * its hold time, and removed by the next take once let go (or at close).
 */
export class ShardHolds {
  /** Held tenants, with when their hold was last sent (NOT_SENT: not yet). */
  private readonly sentAt = new Map<string, number>();
  private readonly letGo = new Set<string>();
  private nextRefreshAt = 0;
  private dirty = false;

  constructor(
    private readonly replica: ReplicaHolds,
    private readonly changed: () => void,
  ) {}

  set(tenant: string, held: boolean): void {
    if (held) {
      this.letGo.delete(tenant);
      if (!this.sentAt.has(tenant)) this.sentAt.set(tenant, NOT_SENT);
      this.dirty = true;
      this.changed();
    } else if (this.sentAt.delete(tenant)) this.letGo.add(tenant);
  }

  /** What the take starting now carries; handed back with `failed` when it did not run. */
  batch(now: number): AffinityBatch {
    const { replica, timings } = this.replica;
    const hold: string[] = [];
    if (this.dirty || now >= this.nextRefreshAt) {
      const refreshMs = timings.holdMs / 3;
      for (const [tenant, at] of this.sentAt)
        if (now - at >= refreshMs) {
          hold.push(tenant);
          this.sentAt.set(tenant, now);
        }
      this.dirty = false;
      this.nextRefreshAt = Math.min(now, ...this.sentAt.values()) + refreshMs;
    }
    const unhold = [...this.letGo];
    this.letGo.clear();
    return { ...timings, replica, hold, unhold };
  }

  /** The take carrying `batch` failed: its writes go with the next one. */
  failed(batch: AffinityBatch): void {
    for (const tenant of batch.hold) if (this.sentAt.has(tenant)) this.sentAt.set(tenant, NOT_SENT);
    for (const tenant of batch.unhold) if (!this.sentAt.has(tenant)) this.letGo.add(tenant);
    this.dirty ||= batch.hold.length > 0;
  }

  /** Closing: every hold here is let go by the last take (the other replicas take its tenants at once). */
  releaseAll(): boolean {
    for (const tenant of this.sentAt.keys()) this.letGo.add(tenant);
    this.sentAt.clear();
    return this.letGo.size > 0;
  }
}
