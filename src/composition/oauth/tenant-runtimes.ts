import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { InboundRequest } from '../../slack/tenant-slack-app.js';
import type { WakeResult } from '../../state/adapters.js';
import { type TenantKey, type TenantSource, tenantCandidates, tenantSecrets } from '../../tenants/tenant.js';
import { answerUnreadable, UNREADABLE, type Unreadable, withinDeadline } from './directory-faults.js';
import { DirectoryFollower } from './directory-follower.js';
import { effectiveConnections } from './tenant-config.js';
import { removeInstall, scopeCallbacks, serve, uninstalledLine } from './tenant-holds.js';
import { AbsentTenants, DeferredEvictions, evictIdleScopes } from './tenant-residency.js';
import { buildTenantRuntime, type TenantRuntime, untilStarted, updateInPlace } from './tenant-runtime.js';
import type { TenantRuntimesDeps } from './tenant-runtimes-deps.js';

/** How long an uninstalled tenant's data (jobs, threads, schedules, caches) is kept before it is purged. */
export const PURGE_DELAY_MS = 60 * 60 * 1000;

export type { WakeResult } from '../../state/adapters.js';
export { FULL_SYNC_MS, SYNC_INTERVAL_MS } from './directory-follower.js';

/**
 * The tenant scopes this replica holds (issue 34), each built when a request, a queued job or the due index
 * names its tenant (one read of its stamp, then its records), kept current in place, stopped when uninstalled
 * and (Redis) evicted when idle or too many: that frees memory only, its work in Redis wakes it again.
 */
export class TenantRuntimes {
  /** Resident scopes, least recently used first (a use moves it to the end). */
  private readonly runtimes = new Map<TenantKey, TenantRuntime>();
  private readonly loading = new Map<TenantKey, Promise<TenantRuntime | Unreadable | undefined>>();
  /** Loads under way for a request from Slack (the others: a queued job, owed work; counted apart). */
  private readonly forRequest = new Set<TenantKey>();
  /** Uninstalled here, with their stamp: a stale read never brings them back, a re-install does. */
  private readonly removed = new Map<TenantKey, string | undefined>();
  private readonly absent: AbsentTenants;
  private readonly deferred: DeferredEvictions;
  private readonly follower: DirectoryFollower;
  /** Records that could not be read, with the stamp that failed (said once per stamp). */
  private readonly unreadable = new Map<TenantKey, string>();
  private stopped = false;
  private readonly log: Logger;
  private readonly purgeDelayMs: number;

  constructor(private readonly deps: TenantRuntimesDeps) {
    this.log = deps.logger.child({ component: 'tenants' });
    this.purgeDelayMs = deps.purgeDelayMs ?? PURGE_DELAY_MS;
    this.absent = new AbsentTenants(() => deps.clock.now());
    this.deferred = new DeferredEvictions(this.log);
    this.follower = new DirectoryFollower({
      deps,
      log: this.log,
      absent: this.absent,
      held: () => [...this.runtimes.keys()],
      reconcile: (tenant, stamp) => this.reconcile(tenant, stamp),
      tick: () => void this.evictIdle(),
      stopped: () => this.stopped,
    });
  }

  async start(): Promise<void> {
    this.follower.start();
  }

  /** Tenants resident here now (for metrics and tests). */
  tenants(): TenantKey[] {
    return [...this.runtimes.keys()];
  }

  /**
   * For the queue plane and the due index: the tenant's scope resident and started (built on demand), or
   * why not. A tenant installed elsewhere a moment ago is found by its stamp (one read).
   */
  async wake(tenant: TenantKey): Promise<WakeResult> {
    if (this.stopped) return 'held';
    const held = this.runtimes.get(tenant);
    let runtime = held?.installed ? held : undefined;
    if (!runtime) {
      // Only the directory saying so makes it gone (its work is dropped then); unreadable means later.
      const stamp = await this.deps.directory.stamp(tenant).catch(() => null);
      if (stamp === undefined) return 'gone';
      // On hold: its record says so, and nothing is built for it (its jobs are parked until the lift).
      if (stamp !== null && (await this.deps.directory.lifecycle(tenant).catch(() => undefined))?.hold)
        return 'held';
      const loaded = stamp === null ? undefined : await this.load(tenant);
      if (loaded === UNREADABLE || !loaded?.installed) return 'held';
      runtime = loaded;
    }
    if (runtime.lifecycle.hold) return 'held';
    this.touch(tenant);
    await untilStarted(runtime);
    return runtime.installed ? 'served' : 'gone';
  }

  /** The scope ran something (a queued job; `served`: a request): it stays resident a while longer. */
  touch(tenant: TenantKey, served = false): void {
    const runtime = this.runtimes.get(tenant);
    if (!runtime) return;
    runtime.usedAt = this.deps.clock.now();
    if (served) runtime.servedAt = runtime.usedAt;
    this.runtimes.delete(tenant);
    this.runtimes.set(tenant, runtime);
  }

  /** The resident scope of a tenant, if any (the due index runs its owed work). */
  resident(tenant: TenantKey): TenantRuntime | undefined {
    return this.runtimes.get(tenant);
  }

  /** One verified request to its tenant's scope; none: an empty ack; unreadable: told so, or refused (503). */
  async dispatch(event: InboundRequest, source: TenantSource | undefined): Promise<void> {
    const runtime = source ? await this.resolve(source) : undefined;
    if (runtime === UNREADABLE) return answerUnreadable(event, source!, this.log);
    if (runtime) this.touch(runtime.scope.key, true);
    await serve(runtime, event, source, this.log);
  }

  /**
   * The scope serving a request: an org-wide install first, then the workspace (as Bolt looks them up), by the
   * stored record: a resident scope's stamp is read; one not resident is built (unreadable: `UNREADABLE`).
   */
  async resolve(source: TenantSource): Promise<TenantRuntime | Unreadable | undefined> {
    for (const tenant of tenantCandidates(source)) {
      const held = this.runtimes.get(tenant);
      if (held?.installed) {
        const stored = await this.deps.directory.stamp(tenant).catch(() => held.stamp);
        if (stored === held.stamp) return held;
        await this.sync().catch(() => undefined);
        const now = this.runtimes.get(tenant);
        if (now?.installed) return now;
        continue;
      }
      const built = await withinDeadline(this.load(tenant, 'request'));
      if (built === UNREADABLE) return built;
      if (built?.installed) return built;
    }
    return undefined;
  }

  /** Builds a tenant's scope from the directory (once, however many ask at the same time; `cause`: the first's). */
  private load(
    tenant: TenantKey,
    cause: 'request' | 'work' = 'work',
  ): Promise<TenantRuntime | Unreadable | undefined> {
    if (this.stopped || this.absent.has(tenant)) return Promise.resolve(undefined);
    let loading = this.loading.get(tenant);
    if (!loading) {
      if (cause === 'request') this.forRequest.add(tenant);
      loading = (async () => {
        // Unreadable (Redis away): not built now, and not taken for "not installed" either.
        const stamp = await this.deps.directory.stamp(tenant).catch(() => null);
        if (stamp === undefined) this.absent.add(tenant);
        if (stamp === null) return UNREADABLE;
        if (!stamp || this.removed.get(tenant) === stamp) return undefined;
        this.removed.delete(tenant);
        const held = this.runtimes.get(tenant);
        const read = await this.applyLogged(tenant, stamp, held?.installed ? held : undefined);
        return read ? this.runtimes.get(tenant) : UNREADABLE;
      })().finally(() => {
        this.loading.delete(tenant);
        this.forRequest.delete(tenant);
      });
      this.loading.set(tenant, loading);
    }
    return loading;
  }

  /** Re-reads the stamps of every scope held here (O(resident), never the whole directory); applies changes. */
  sync(): Promise<void> {
    return this.follower.sync();
  }

  /** A held scope against its tenant's stamp in the directory now (undefined: uninstalled). */
  private async reconcile(tenant: TenantKey, stamp: string | undefined): Promise<void> {
    const runtime = this.runtimes.get(tenant);
    if (!runtime || this.stopped) return;
    if (stamp === undefined) await this.drop(tenant, 'uninstalled (seen in the directory)');
    else if (runtime.stamp !== stamp) await this.applyLogged(tenant, stamp, runtime);
  }

  private async applyLogged(tenant: TenantKey, stamp: string, held: TenantRuntime | undefined) {
    try {
      await this.apply(tenant, stamp, held);
      return true;
    } catch (error) {
      // One tenant's unreadable record (a key not configured, Redis failing mid-way) never blocks the
      // others; it is tried again at its next use (false), and said once per stamp.
      if (this.unreadable.get(tenant) !== stamp)
        this.log.error({ tenant, error: describeError(error) }, 'could not load a tenant; retrying');
      this.unreadable.set(tenant, stamp);
      return false;
    }
  }

  private async apply(tenant: TenantKey, stamp: string, held: TenantRuntime | undefined): Promise<void> {
    let runtime = held;
    const [installation, settings, lifecycle] = await Promise.all([
      this.deps.directory.installation(tenant),
      this.deps.directory.settings(tenant),
      this.deps.directory.lifecycle(tenant),
    ]);
    if (!installation || !lifecycle || this.stopped) return;
    this.unreadable.delete(tenant);
    // From now on these never reach a log line, whichever logger writes it (dropped when it is evicted).
    this.deps.secrets.set(tenant, tenantSecrets(installation, settings));
    const connections = effectiveConnections(this.deps.config, tenant, settings);
    if (runtime && runtime.lifecycle.generation !== lifecycle.generation) {
      // Installed again after its purge began: a fresh key space, so a runtime of its own.
      await this.drop(tenant, 'installed again under a new key space');
      runtime = undefined;
    }
    if (runtime) {
      updateInPlace(runtime, { stamp, lifecycle, installation, settings, connections });
      this.log.info({ tenant, projects: connections.length }, 'tenant install or settings changed; applied');
      return;
    }
    // Uninstalled here while this was read: nothing is built for it (not even its welcome).
    if (this.removed.get(tenant) === stamp || this.stopped) return;
    const cause = this.forRequest.has(tenant) ? 'request' : 'work';
    this.runtimes.set(
      tenant,
      this.build({ tenant, stamp, lifecycle, installation, settings, connections, cause }),
    );
  }

  private build(what: Parameters<typeof buildTenantRuntime>[1]): TenantRuntime {
    const { tenant, installation, connections } = what;
    const runtime = buildTenantRuntime(
      this.deps,
      what,
      scopeCallbacks(this.deps, this.log, tenant, {
        sync: () => this.sync(),
        uninstall: (reason) => this.uninstall(tenant, reason, this.runtimes.get(tenant)?.lifecycle.installId),
      }),
    );
    const { name } = installation;
    this.log.info({ tenant, name, projects: connections.length }, 'tenant runtime started');
    this.deps.plane?.queues.holds.set(tenant, true); // its polls are offered to this replica first (issue 43)
    return runtime;
  }

  private async evictIdle(): Promise<void> {
    if (this.stopped) return;
    await evictIdleScopes(this.runtimes, this.deps, this.deferred, (t, reason, why) =>
      this.drop(t, reason, why),
    );
  }

  /** Uninstall or revocation: no call with its token from now on, secrets deleted now, data purged later. */
  async uninstall(tenant: TenantKey, reason: string, installId?: string): Promise<void> {
    if (this.removed.has(tenant)) return;
    const runtime = this.runtimes.get(tenant);
    // No call from this moment; given back if the directory says this was about an earlier install.
    if (runtime) runtime.installed = false;
    const purgeAt = this.deps.clock.now() + this.purgeDelayMs;
    if (!(await removeInstall(this.deps.directory, this.log, { tenant, reason, installId, purgeAt }))) {
      if (runtime) runtime.installed = true;
      this.sync().catch(() => undefined);
      return;
    }
    this.removed.set(tenant, runtime?.stamp);
    this.log.warn({ tenant, reason }, uninstalledLine(tenant, reason, this.purgeDelayMs));
    await this.drop(tenant, reason);
  }

  /**
   * Stops a scope: uninstalled (no call from now on), or evicted (what it is doing may still finish). Evicted
   * idle, its work still comes here first (its hold stays: letting go costs two commands in each of six
   * hashes, and rebuilding here is as good as anywhere); evicted for room, any replica takes it.
   */
  private async drop(tenant: TenantKey, reason: string, evicted?: 'idle' | 'room'): Promise<void> {
    const runtime = this.runtimes.get(tenant);
    if (!runtime) return;
    if (!evicted) runtime.installed = false;
    this.runtimes.delete(tenant);
    const holds = this.deps.plane?.queues.holds;
    if (evicted === 'idle') holds?.forget(tenant);
    else holds?.set(tenant, false);
    this.deps.metrics.drop(tenant, evicted ? 'evicted' : 'uninstalled');
    this.log[evicted ? 'debug' : 'info']({ tenant, reason }, 'tenant runtime stopping');
    await runtime.agent.stop().catch((error: unknown) => {
      this.log.warn({ tenant, error: describeError(error) }, 'tenant runtime did not stop cleanly');
    });
    this.deps.secrets.drop(tenant); // shapes stay scrubbed; its values are no one's secrets here any more
    this.deps.caches?.dropScope(`${tenant}/`);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.follower.stop();
    await Promise.all([...this.loading.values()].map((loading) => loading.catch(() => undefined)));
    // Shutdown (SIGTERM): every runtime hands its work back, in parallel, within the shutdown budget.
    const stopOne = (runtime: TenantRuntime) =>
      runtime.agent.stop().catch((error: unknown) => {
        this.log.warn({ tenant: runtime.scope.key, error: describeError(error) }, 'tenant stop failed');
      });
    await Promise.all([...this.runtimes.values()].map(stopOne));
    this.runtimes.clear();
  }
}
