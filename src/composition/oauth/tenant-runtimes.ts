import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { InboundRequest } from '../../slack/tenant-slack-app.js';
import { type TenantKey, type TenantSource, tenantCandidates, tenantSecrets } from '../../tenants/tenant.js';
import { OnDemandSync } from './on-demand-sync.js';
import { effectiveConnections } from './tenant-config.js';
import { answeredOnHold, removeInstall, suspendTenant } from './tenant-holds.js';
import { buildTenantRuntime, type TenantRuntime, untilStarted } from './tenant-runtime.js';
import type { TenantRuntimesDeps } from './tenant-runtimes-deps.js';

export type { TenantMetricsPort, TenantRuntimesDeps } from './tenant-runtimes-deps.js';

/** How long an uninstalled tenant's data (jobs, threads, schedules, caches) is kept before it is purged. */
export const PURGE_DELAY_MS = 60 * 60 * 1000;
/** How often every replica looks for installs, uninstalls and settings saved elsewhere. */
export const SYNC_INTERVAL_MS = 2_000;

/**
 * Every tenant's runtime in this process: built when its install appears in the directory, kept current in
 * place (settings saved, token rotated, re-installed), stopped when it is uninstalled (here or on another
 * replica). Each runtime reaches only its own stores, budgets, pacing and clients.
 */
export class TenantRuntimes {
  private readonly runtimes = new Map<TenantKey, TenantRuntime>();
  /** Uninstalled here, with their stamp: a stale read never brings them back, a re-install does. */
  private readonly removed = new Map<TenantKey, string | undefined>();
  private syncing: Promise<void> | undefined;
  /** Requests waiting for a new tenant: woken whenever a sync ends. */
  private readonly synced = new Set<(value: unknown) => void>();
  /** Tenants whose record could not be read, with the stamp that failed (said once per stamp). */
  private readonly unreadable = new Map<TenantKey, string>();
  private again = false;
  private directoryDown = false;
  private readonly onDemand: OnDemandSync;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly log: Logger;
  private readonly purgeDelayMs: number;

  constructor(private readonly deps: TenantRuntimesDeps) {
    this.log = deps.logger.child({ component: 'tenants' });
    this.purgeDelayMs = deps.purgeDelayMs ?? PURGE_DELAY_MS;
    this.onDemand = new OnDemandSync(() => this.sync(), deps.clock);
  }

  async start(): Promise<void> {
    const syncNow = () => void this.sync().catch(() => undefined);
    // Not waited for: a Redis that accepts no subscriber yet never holds up the start (the reads cover it).
    this.deps.watch?.(syncNow).catch((error: unknown) => {
      const what = 'could not watch the directory of installs; reading it every 2 s only';
      this.log.warn({ error: describeError(error) }, what);
    });
    await this.sync();
    this.timer = setInterval(syncNow, this.deps.syncIntervalMs ?? SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  /** Installed tenants served here (for metrics and tests). */
  tenants(): TenantKey[] {
    return [...this.runtimes.keys()];
  }

  /**
   * The contract the shared queue plane and reconciler use (CONTRACT34): true once the tenant's runtime is
   * resident here and started (its start waited for as a request waits), false when it is not installed or
   * is on hold. A tenant installed elsewhere a moment ago is looked up (its stamp: one read) and brought in
   * by a sync of the directory; one not installed costs that one read.
   */
  async wake(tenant: TenantKey): Promise<boolean> {
    let runtime = this.runtimes.get(tenant);
    if (!runtime?.installed) {
      if (this.stopped) return false;
      const stamp = await this.deps.directory.stamp(tenant).catch(() => undefined);
      if (stamp === undefined) return false;
      await this.sync().catch(() => undefined);
      runtime = this.runtimes.get(tenant);
    }
    if (!runtime?.installed || runtime.lifecycle.hold) return false;
    await untilStarted(runtime);
    return runtime.installed;
  }

  /** One verified request: to its tenant's runtime; a team with no install gets an empty acknowledgement. */
  async dispatch(event: InboundRequest, source: TenantSource | undefined): Promise<void> {
    const runtime = source ? await this.resolve(source) : undefined;
    if (!runtime) {
      this.log.info(
        { source },
        'a request from a workspace or org without an install; acknowledged, ignored',
      );
      await event.ack();
      return;
    }
    const { hold } = runtime.lifecycle;
    const homeNotice = (user: string, notice: string) => void runtime.slack.publishHoldHome(user, notice);
    if (hold && (await answeredOnHold(event, hold, homeNotice))) return;
    await untilStarted(runtime);
    await runtime.slack.receive(event);
  }

  /** The runtime serving a request: an org-wide install first, then the workspace (as Bolt looks them up). */
  async resolve(source: TenantSource): Promise<TenantRuntime | undefined> {
    const find = () =>
      tenantCandidates(source)
        .map((key) => this.runtimes.get(key))
        .find((runtime) => runtime?.installed);
    const found = find();
    // Decided on the stored record: settings saved or a token rotated on another replica a moment ago are
    // applied before this request is served (one read of the tenant's stamp; as held if Redis fails).
    const stored = found && (await this.deps.directory.stamp(found.scope.key).catch(() => found.stamp));
    if (found && stored === found.stamp) return found;
    if (found) await this.sync().catch(() => undefined);
    else {
      // Installed through another replica a moment ago: built by the sync its announcement starts, or else at
      // the next look at the directory (at most once a second; a request waits for it, never dropped).
      let looked = false;
      const onDemand = this.onDemand.run().then(() => {
        looked = true;
      });
      while (!looked && !find()) await Promise.race([onDemand, new Promise((r) => this.synced.add(r))]);
    }
    return find();
  }

  /** Reads the directory and applies what changed; one pass at a time (a call meanwhile runs once more). */
  sync(): Promise<void> {
    if (this.syncing) {
      this.again = true;
      return this.syncing;
    }
    this.syncing = (async () => {
      try {
        do {
          this.again = false;
          await this.syncOnce();
        } while (this.again && !this.stopped);
        if (this.directoryDown) this.log.info('the directory of installs answers again');
        this.directoryDown = false;
      } catch (error) {
        // Said when it starts failing, not every 2 s while it stays down.
        const what = 'could not read the directory of installs; retrying';
        if (!this.directoryDown) this.log.warn({ error: describeError(error) }, what);
        this.directoryDown = true;
        throw error;
      } finally {
        this.syncing = undefined;
        for (const wake of this.synced) wake(undefined);
        this.synced.clear();
      }
    })();
    return this.syncing;
  }

  private async syncOnce(): Promise<void> {
    if (this.stopped) return;
    const stamps = await this.deps.directory.stamps();
    for (const tenant of [...this.runtimes.keys()]) {
      if (!stamps.has(tenant)) await this.drop(tenant, 'uninstalled (seen in the directory)');
    }
    for (const [tenant, stamp] of stamps) {
      const runtime = this.runtimes.get(tenant);
      if ((runtime && runtime.stamp === stamp) || this.stopped) continue;
      if (this.removed.has(tenant)) {
        if (this.removed.get(tenant) === stamp || this.runtimes.has(tenant)) continue;
        this.removed.delete(tenant);
      }
      try {
        await this.apply(tenant, stamp, runtime);
      } catch (error) {
        // One tenant's unreadable record (a key not configured, Redis failing mid-way) never blocks the
        // others; it is tried again at the next sync, and said once per stamp.
        if (this.unreadable.get(tenant) !== stamp)
          this.log.error({ tenant, error: describeError(error) }, 'could not load a tenant; retrying');
        this.unreadable.set(tenant, stamp);
      }
    }
  }

  private async apply(tenant: TenantKey, stamp: string, held: TenantRuntime | undefined): Promise<void> {
    let runtime = held;
    const [installation, settings, lifecycle] = await Promise.all([
      this.deps.directory.installation(tenant),
      this.deps.directory.settings(tenant),
      this.deps.directory.lifecycle(tenant),
    ]);
    if (!installation || !lifecycle) return;
    this.unreadable.delete(tenant);
    // From now on these never reach a log line, whichever logger writes it.
    this.deps.secrets.set(tenant, tenantSecrets(installation, settings));
    const connections = effectiveConnections(this.deps.config, tenant, settings);
    if (runtime && runtime.lifecycle.generation !== lifecycle.generation) {
      // Installed again after its purge began: a fresh key space, so a runtime of its own.
      await this.drop(tenant, 'installed again under a new key space');
      runtime = undefined;
    }
    if (runtime) {
      const lifted = runtime.lifecycle.hold && !lifecycle.hold ? runtime.lifecycle.hold : undefined;
      runtime.lifecycle = lifecycle;
      runtime.scope.installation = installation;
      runtime.scope.installed?.(installation); // a takeover by an admin's re-install is told
      runtime.scope.settings = settings;
      runtime.projects.update(connections);
      runtime.stamp = stamp;
      if (lifted) runtime.scope.holdLifted?.(lifted); // its managers could not be told during the hold
      this.log.info({ tenant, projects: connections.length }, 'tenant install or settings changed; applied');
      return;
    }
    this.runtimes.set(tenant, this.build({ tenant, stamp, lifecycle, installation, settings, connections }));
  }

  private build(what: Parameters<typeof buildTenantRuntime>[1]): TenantRuntime {
    const { tenant, installation, connections } = what;
    const runtime = buildTenantRuntime(this.deps, what, {
      changed: () => {
        this.sync().catch(() => undefined);
      },
      // Slack said the app was uninstalled or its token revoked (checked against this install).
      fatal: (reason) => {
        this.uninstall(tenant, reason, this.runtimes.get(tenant)?.lifecycle.installId).catch(() => undefined);
      },
      // Slack refused the stored token: suspended everywhere (data kept), checked again, uninstalled only if
      // Slack keeps refusing it through the window.
      refused: (code) => {
        suspendTenant(this.deps, this.log, tenant, code)
          .then((nextCheckAt) => {
            if (nextCheckAt !== undefined) this.deps.suspended?.(nextCheckAt);
            return this.sync();
          })
          .catch(() => undefined);
      },
    });
    this.log.info(
      { tenant, name: installation.name, projects: connections.length },
      'tenant runtime started',
    );
    return runtime;
  }

  /**
   * Uninstall or revocation: no more calls with its token from this moment, its installation and secrets
   * deleted now, its runtime (polls, schedules, PR follows, owed deliveries) stopped, its data purged later.
   */
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
    this.log.warn(
      { tenant, reason },
      `tenant ${tenant}: ${reason}; its calls, polls, schedules, PR follows and owed deliveries stop now, its installation and secrets are deleted, its other data is purged within ${Math.ceil(this.purgeDelayMs / 60_000)} min`,
    );
    await this.drop(tenant, reason);
  }

  private async drop(tenant: TenantKey, reason: string): Promise<void> {
    const runtime = this.runtimes.get(tenant);
    if (!runtime) return;
    runtime.installed = false;
    this.runtimes.delete(tenant);
    this.deps.metrics.drop(tenant);
    this.log.info({ tenant, reason }, 'tenant runtime stopping');
    await runtime.agent.stop().catch((error: unknown) => {
      this.log.warn({ tenant, error: describeError(error) }, 'tenant runtime did not stop cleanly');
    });
    this.deps.secrets.drop(tenant); // shapes stay scrubbed; its values are no one's secrets any more
    this.deps.caches?.dropScope(`${tenant}/`);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.syncing?.catch(() => undefined);
    // Shutdown (SIGTERM): every runtime hands its work back, in parallel, within the shutdown budget.
    await Promise.all(
      [...this.runtimes.values()].map((runtime) =>
        runtime.agent.stop().catch((error: unknown) => {
          this.log.warn({ tenant: runtime.scope.key, error: describeError(error) }, 'tenant stop failed');
        }),
      ),
    );
    this.runtimes.clear();
  }
}
