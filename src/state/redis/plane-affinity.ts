import { randomUUID } from 'node:crypto';

/**
 * Issue 43 "no thrash": a tenant's work goes first to the replica that holds its scope, so its context is
 * built once, not on every replica whose take reaches it. Where a script hands out work (a fair shard's take,
 * `plane-fair-scripts.ts`; the due index's claim, `redis-due-index.ts`), its slot keeps two hashes: `held`,
 * tenant → the replica that built its scope last (written once when built; removed when it is evicted for
 * room, uninstalled or its replica stops, kept when it is evicted idle: rebuilt there), and `replicas`,
 * replica → until when it is alive (written every third of HOLD_MS). Both are written by those scripts from
 * their ARGV: no round trip of their own, and no write per tenant while nothing changes. A tenant held by
 * another live replica is left to it until its work has waited `stealAfterMs`. Only a preference: leases,
 * job locks and the cap are as without it.
 */
export interface AffinityTimings {
  /** How long a replica counts as alive after it said so (a replica that died lets its tenants go then). */
  holdMs: number;
  /** How long work waits for its tenant's holder before any replica takes it. */
  stealAfterMs: number;
}

export const DEFAULT_AFFINITY: AffinityTimings = { holdMs: 60_000, stealAfterMs: 2_000 };

/** What one script call carries: this replica's id and timings, whether it says it is alive, the changes. */
export interface AffinityBatch extends AffinityTimings {
  replica: string;
  alive: boolean;
  hold: string[];
  unhold: string[];
}

/** The ARGV an affinity batch adds (read by AFFINITY_LUA); none: this caller prefers nobody, defers to none. */
export function affinityArgs(batch: AffinityBatch | undefined): string[] {
  if (!batch) return ['', '0', '0', '0', '0'];
  const { replica, alive, holdMs, stealAfterMs, hold, unhold } = batch;
  const head = [replica, String(alive ? holdMs : 0), String(stealAfterMs)];
  return [...head, String(hold.length), ...hold, String(unhold.length), ...unhold];
}

/**
 * Lua included by a script whose locals `rcall`, `now`, `held`, `replicas` (KEYS) and `at` (the ARGV index
 * of affinityArgs' first) are set: applies the batch, leaves `at` after it, and defines
 * `leftToHolder(tenant, dueOf)`: nil when this replica may take the tenant's work now, else when it may
 * (another live replica holds it and its work, due at `dueOf()`, has waited less than the bound).
 */
export const AFFINITY_LUA = `
local me, holdMs, stealAfter = ARGV[at], tonumber(ARGV[at + 1]), tonumber(ARGV[at + 2])
at = at + 3
local aliveUntil = {}
local function liveUntil(replica)
  if aliveUntil[replica] == nil then aliveUntil[replica] = tonumber(rcall('HGET', replicas, replica) or '0') or 0 end
  return aliveUntil[replica]
end
if me ~= '' and holdMs > 0 then
  aliveUntil[me] = now + holdMs
  rcall('HSET', replicas, me, now + holdMs)
  rcall('PEXPIRE', replicas, holdMs * 4)
  rcall('PEXPIRE', held, holdMs * 4)
  -- Replicas gone (each start is a new one) leave the hash once a few have piled up.
  if rcall('HLEN', replicas) > 8 then
    local all = rcall('HGETALL', replicas)
    for i = 1, #all, 2 do
      if tonumber(all[i + 1]) <= now then rcall('HDEL', replicas, all[i]) end
    end
  end
end
-- Newly held here: recorded, unless another live replica holds it (a scope built here for work taken past
-- the bound does not move it). Let go: removed if still this replica's.
for i = at + 1, at + tonumber(ARGV[at]) do
  local owner = rcall('HGET', held, ARGV[i])
  if not owner or owner == me or liveUntil(owner) <= now then rcall('HSET', held, ARGV[i], me) end
end
at = at + tonumber(ARGV[at]) + 1
for i = at + 1, at + tonumber(ARGV[at]) do
  if rcall('HGET', held, ARGV[i]) == me then rcall('HDEL', held, ARGV[i]) end
end
at = at + tonumber(ARGV[at]) + 1

local function leftToHolder(tenant, dueOf)
  if me == '' then return nil end
  local owner = rcall('HGET', held, tenant)
  if not owner or owner == me then return nil end
  local untilMs = liveUntil(owner)
  if untilMs <= now then
    rcall('HDEL', held, tenant)
    return nil
  end
  local dueAt = dueOf()
  if not dueAt or now - dueAt >= stealAfter then return nil end
  return math.min(untilMs, dueAt + stealAfter)
end
`;

const NOT_SENT = Number.NEGATIVE_INFINITY;

/** The tenants whose scopes this replica holds, shared out to each script that hands out their work. */
export class ReplicaHolds {
  readonly replica = randomUUID();
  private readonly held = new Set<string>();
  private readonly views: Array<{ covers: (tenant: string) => boolean; view: HoldsView }> = [];

  constructor(readonly timings: AffinityTimings = DEFAULT_AFFINITY) {}

  /** This replica holds the tenant's scope (true: built here) or no longer does (evicted, uninstalled). */
  set(tenant: string, held: boolean): void {
    if (held === this.held.has(tenant)) return;
    if (held) this.held.add(tenant);
    else this.held.delete(tenant);
    for (const { covers, view } of this.views) if (covers(tenant)) view.set(tenant, held);
  }

  /**
   * Evicted idle: the hold stays written (its work still comes here first, and letting go would cost a write in
   * every slot), but this process keeps nothing of it; built again, it is written again. At close it is not let
   * go: it lapses with this replica's alive time, as a dead replica's do.
   */
  forget(tenant: string): void {
    if (!this.held.delete(tenant)) return;
    for (const { covers, view } of this.views) if (covers(tenant)) view.forget(tenant);
  }

  /** What one script's calls carry, for the tenants it `covers`; `changed`: one is newly held (write it soon). */
  view(covers: (tenant: string) => boolean, changed: () => void = () => undefined): HoldsView {
    const view = new HoldsView(this, changed);
    for (const tenant of this.held) if (covers(tenant)) view.set(tenant, true);
    this.views.push({ covers, view });
    return view;
  }
}

/** One script's view of this replica's holds: what its next call writes. */
export class HoldsView {
  private readonly sent = new Set<string>();
  private readonly unsent = new Set<string>();
  private readonly letGo = new Set<string>();
  private aliveAt = NOT_SENT;

  constructor(
    private readonly replica: ReplicaHolds,
    private readonly changed: () => void,
  ) {}

  set(tenant: string, held: boolean): void {
    if (held) {
      this.letGo.delete(tenant);
      if (!this.sent.has(tenant)) this.unsent.add(tenant);
      this.changed();
    } else if (this.sent.delete(tenant) || this.unsent.delete(tenant)) this.letGo.add(tenant);
  }

  /** Nothing of the tenant kept, nothing written (see ReplicaHolds.forget). */
  forget(tenant: string): void {
    this.sent.delete(tenant);
    this.unsent.delete(tenant);
  }

  /** What the call starting now carries; handed back with `failed` if it did not run. */
  batch(now: number): AffinityBatch {
    const { replica, timings } = this.replica;
    // Said every third of the hold time: a replica is never taken for dead while it runs. Silent for longer
    // (no call: every slot busy with long jobs), its holds may have been dropped as a dead one's: all again.
    const alive = now - this.aliveAt >= timings.holdMs / 3;
    if (alive && now - this.aliveAt >= timings.holdMs)
      for (const tenant of this.sent) this.unsent.add(tenant);
    if (alive) this.aliveAt = now;
    const hold = [...this.unsent];
    for (const tenant of hold) this.sent.add(tenant);
    this.unsent.clear();
    const unhold = [...this.letGo];
    this.letGo.clear();
    return { ...timings, replica, alive, hold, unhold };
  }

  /** The call carrying `batch` failed: its writes go with the next one. */
  failed(batch: AffinityBatch): void {
    for (const tenant of batch.hold) if (this.sent.delete(tenant)) this.unsent.add(tenant);
    for (const tenant of batch.unhold)
      if (!this.sent.has(tenant) && !this.unsent.has(tenant)) this.letGo.add(tenant);
    if (batch.alive) this.aliveAt = NOT_SENT;
  }

  /** Closing: every hold is let go by the last call (the other replicas take those tenants at once). */
  releaseAll(): boolean {
    for (const tenant of [...this.sent, ...this.unsent]) this.letGo.add(tenant);
    this.sent.clear();
    this.unsent.clear();
    return this.letGo.size > 0;
  }
}
