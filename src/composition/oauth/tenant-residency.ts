import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { DirectoryChange } from '../../state/adapters.js';
import type { TenantKey } from '../../tenants/tenant.js';
import { scopeBusy, type TenantRuntime } from './tenant-runtime.js';
import type { TenantRuntimesDeps } from './tenant-runtimes-deps.js';

/** At most this many scopes resident per replica when nothing says (TENANT_SCOPES_MAX does). */
export const MAX_RESIDENT_SCOPES = 2_000;
/** A workspace or org found not installed is not looked up again for this long (unless the directory changes). */
export const ABSENT_MS = 2_000;

export interface Residency {
  /** Last request, job or wake that named it. */
  usedAt: number;
  /** Last request from Slack it served (none: woken only for background work, kept for less time). */
  servedAt?: number;
  /** Requests being served now: never evicted meanwhile. */
  inFlight: number;
  /** Other work in hand (a plane job, a delivery lease, after-ack work): never evicted meanwhile either. */
  busy?: boolean;
}

/** When a scope counts as idle, and how many a replica keeps. */
export interface EvictionLimits {
  idleMs: number;
  /** For a scope that served no request (only background work): at most `idleMs`, which it is when absent. */
  backgroundIdleMs?: number | undefined;
  maxResident: number;
}

/** Why a scope was evicted, as its stop is logged. */
const EVICTED_IDLE = 'idle; evicted (its work wakes it again)';
const EVICTED_FOR_ROOM = 'beyond the cap; evicted (its work wakes it again)';

/** A scope to evict, and why: idle (its time is up), or the least recent beyond the cap (room needed). */
export interface Eviction {
  tenant: TenantKey;
  idle: boolean;
}

/**
 * Which resident scopes to evict (issue 34: scopes on demand, kept in an LRU with an idle time-out). Evicting
 * frees memory only: a scope's polls, schedules and owed deliveries live in Redis and wake it again.
 * `scopes` is in least-recently-used order (oldest first).
 */
export function evictionsDue(
  scopes: Iterable<readonly [TenantKey, Residency]>,
  now: number,
  limits: EvictionLimits,
): Eviction[] {
  const all = [...scopes];
  const out: Eviction[] = [];
  let over = all.length - limits.maxResident;
  for (const [tenant, residency] of all) {
    if (residency.inFlight > 0 || residency.busy) continue;
    // Built for a plane job or owed work alone (a welcome DM, an hourly alert check, a PR follow): kept only
    // as long as its work may come back soon; people's requests keep a scope the full idle time.
    const { idleMs, backgroundIdleMs = idleMs } = limits;
    const keep = residency.servedAt === undefined ? Math.min(idleMs, backgroundIdleMs) : idleMs;
    const idle = now - residency.usedAt >= keep;
    if (idle || over > 0) {
      out.push({ tenant, idle });
      over--;
    }
  }
  return out;
}

/** The tenants `evictionsDue` names. */
export function scopesToEvict(
  scopes: Iterable<readonly [TenantKey, Residency]>,
  now: number,
  limits: EvictionLimits,
): TenantKey[] {
  return evictionsDue(scopes, now, limits).map((e) => e.tenant);
}

/**
 * Idle scopes (and the least recent beyond the cap) give their memory back where their background work lives
 * outside them (Redis, `scopeIdleMs` set). One with work in hand (a plane job, a lease, a request or its
 * after-ack work) goes at a later tick: stopping it would cut that work and hand its leases back uncertain.
 * Each due is looked at again right before (work may have started since). `runtimes`: least recent first.
 */
export async function evictIdleScopes(
  runtimes: ReadonlyMap<TenantKey, TenantRuntime>,
  deps: Pick<
    TenantRuntimesDeps,
    'scopeIdleMs' | 'backgroundIdleMs' | 'maxResidentScopes' | 'clock' | 'plane'
  >,
  deferred: DeferredEvictions,
  evict: (tenant: TenantKey, reason: string, why: 'idle' | 'room') => Promise<void>,
): Promise<void> {
  const { scopeIdleMs: idleMs, maxResidentScopes: maxResident = MAX_RESIDENT_SCOPES } = deps;
  if (idleMs === undefined) return;
  const limits = { idleMs, backgroundIdleMs: deps.backgroundIdleMs, maxResident };
  const now = deps.clock.now();
  const resident = [...runtimes];
  const isBusy = (tenant: TenantKey) => scopeBusy(runtimes.get(tenant), deps.plane);
  const busy = await Promise.all(resident.map(([tenant]) => isBusy(tenant)));
  const scopes = resident.map(
    ([t, { usedAt, servedAt, inFlight }], i) =>
      [t, { usedAt, ...(servedAt === undefined ? {} : { servedAt }), inFlight, busy: busy[i] }] as const,
  );
  deferred.say(scopes, new Set(scopesToEvict(resident, now, limits)));
  for (const { tenant, idle } of evictionsDue(scopes, now, limits)) {
    if (await isBusy(tenant)) continue;
    await evict(tenant, idle ? EVICTED_IDLE : EVICTED_FOR_ROOM, idle ? 'idle' : 'room');
  }
}

/** Says once per busy spell that a scope due for eviction waits for its work (debug). */
export class DeferredEvictions {
  private last = new Set<TenantKey>();

  constructor(private readonly log: Logger) {}

  /** `scopes` with their busy flags; `due`: those eviction would take if none were busy. */
  say(scopes: ReadonlyArray<readonly [TenantKey, Residency]>, due: Set<TenantKey>): void {
    const now = new Set(scopes.filter(([t, { busy }]) => busy && due.has(t)).map(([t]) => t));
    for (const tenant of now)
      if (!this.last.has(tenant)) this.log.debug({ tenant }, 'busy; eviction waits until its work ends');
    this.last = now;
  }
}

/** Tenants looked up and found not installed, each forgotten after ABSENT_MS (bounded). */
export class AbsentTenants {
  private readonly until = new Map<TenantKey, number>();

  constructor(private readonly now: () => number) {}

  has(tenant: TenantKey): boolean {
    const until = this.until.get(tenant);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.until.delete(tenant);
    return false;
  }

  add(tenant: TenantKey): void {
    if (this.until.size >= 10_000) this.until.clear();
    this.until.set(tenant, this.now() + ABSENT_MS);
  }

  /** The directory changed (an install somewhere): look again, at these tenants or at every one. */
  forget(change: DirectoryChange): void {
    if (change === 'all') this.until.clear();
    else for (const tenant of change) this.until.delete(tenant);
  }
}

/**
 * What the next sync re-reads: the held tenants the directory's changes named, or every held one (at start,
 * when changes may have been missed, after a failed sync, and as a slow net every `fullEveryMs`).
 */
export class PendingSync {
  private pending: Set<TenantKey> | 'all' = 'all';
  private nextFullAt = 0;

  constructor(
    private readonly now: () => number,
    private readonly fullEveryMs: number,
  ) {}

  add(change: DirectoryChange): void {
    if (change === 'all') this.pending = 'all';
    else if (this.pending !== 'all') for (const tenant of change) this.pending.add(tenant);
  }

  /** Whether a sync of every held scope is owed (asked for, or the net is due). */
  fullDue(): boolean {
    return this.pending === 'all' || this.now() >= this.nextFullAt;
  }

  /** The tenants a sync starting now re-reads, of those held; what comes in meanwhile waits for the next. */
  take(held: TenantKey[]): TenantKey[] {
    const pending = this.pending;
    this.pending = new Set();
    if (pending !== 'all' && this.now() < this.nextFullAt) return held.filter((t) => pending.has(t));
    this.nextFullAt = this.now() + this.fullEveryMs;
    return held;
  }
}

/** Says when a store starts failing and when it answers again, never every 2 s in between. */
export class OutageLog {
  private down = false;

  constructor(
    private readonly log: Logger,
    private readonly what: string,
  ) {}

  ok(): void {
    if (this.down) this.log.info(`${this.what} answers again`);
    this.down = false;
  }

  failed(error: unknown): void {
    if (!this.down) this.log.warn({ error: describeError(error) }, `could not read ${this.what}; retrying`);
    this.down = true;
  }
}
