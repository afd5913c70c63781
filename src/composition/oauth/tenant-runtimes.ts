import type { ReceiverEvent } from '@slack/bolt';
import type { Clock } from '../../common/clock.js';
import type { Config } from '../../common/config.js';
import { describeError } from '../../common/errors.js';
import type { Logger, SecretSet } from '../../common/logger.js';
import type { Metrics } from '../../metrics/metrics.js';
import { createTenantSlackApp, type TenantSlackApp } from '../../slack/tenant-slack-app.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import { NO_SETTINGS, type TenantKey, type TenantSource, tenantCandidates } from '../../tenants/tenant.js';
import { createDocsAgent } from '../app.js';
import type { DocsAgent, TenantScope } from '../docs-agent.js';
import { effectiveConnections, TenantProjects, tenantConfig, tenantNamespace } from './tenant-config.js';

/** How long an uninstalled tenant's data (jobs, threads, schedules, caches) is kept before it is purged. */
export const PURGE_DELAY_MS = 60 * 60 * 1000;
/** How often every replica looks for installs, uninstalls and settings saved elsewhere. */
export const SYNC_INTERVAL_MS = 2_000;
/** A request from a team not known here triggers at most one look at the directory per this interval. */
const ON_DEMAND_SYNC_MS = 1_000;

export interface TenantMetricsPort {
  forTenant(tenant: TenantKey): Metrics;
  drop(tenant: TenantKey): void;
}

interface TenantRuntime {
  scope: TenantScope;
  stamp: string;
  projects: TenantProjects;
  slack: TenantSlackApp;
  agent: DocsAgent;
  /** False from the moment it is uninstalled: its Slack client refuses every call. */
  installed: boolean;
}

export interface TenantRuntimesDeps {
  config: Config;
  directory: TenantDirectory;
  logger: Logger;
  secrets: SecretSet;
  metrics: TenantMetricsPort;
  clock: Clock;
}

/**
 * Every tenant's runtime in this process: built when its install appears in the directory, kept current in
 * place (settings saved, token rotated, re-installed), stopped when it is uninstalled (here or on another
 * replica). Each runtime reaches only its own stores, budgets, pacing and clients.
 */
export class TenantRuntimes {
  private readonly runtimes = new Map<TenantKey, TenantRuntime>();
  /** Uninstalled while this process runs: a stale directory read never brings them back. */
  private readonly removed = new Set<TenantKey>();
  private syncing: Promise<void> | undefined;
  private again = false;
  private lastOnDemand = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly log: Logger;

  constructor(private readonly deps: TenantRuntimesDeps) {
    this.log = deps.logger.child({ component: 'tenants' });
  }

  async start(): Promise<void> {
    await this.sync();
    this.timer = setInterval(() => {
      this.sync().catch(() => undefined);
    }, SYNC_INTERVAL_MS);
    this.timer.unref();
  }

  /** Installed tenants served here (for metrics and tests). */
  tenants(): TenantKey[] {
    return [...this.runtimes.keys()];
  }

  /** One verified request: to its tenant's runtime; a team with no install gets an empty acknowledgement. */
  async dispatch(event: ReceiverEvent, source: TenantSource | undefined): Promise<void> {
    const runtime = source ? await this.resolve(source) : undefined;
    if (!runtime) {
      this.log.info(
        { source },
        'a request from a workspace or org without an install; acknowledged, ignored',
      );
      await event.ack();
      return;
    }
    await runtime.slack.receive(event);
  }

  /** The runtime serving a request: an org-wide install first, then the workspace (as Bolt looks them up). */
  async resolve(source: TenantSource): Promise<TenantRuntime | undefined> {
    const find = () =>
      tenantCandidates(source)
        .map((key) => this.runtimes.get(key))
        .find((runtime) => runtime?.installed);
    const found = find();
    if (found) return found;
    // Installed through another replica a moment ago: look at the directory (at most once a second).
    const now = this.deps.clock.now();
    if (now - this.lastOnDemand < ON_DEMAND_SYNC_MS) return undefined;
    this.lastOnDemand = now;
    await this.sync().catch(() => undefined);
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
      } catch (error) {
        this.log.warn({ error: describeError(error) }, 'could not read the directory of installs; retrying');
        throw error;
      } finally {
        this.syncing = undefined;
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
      if ((runtime && runtime.stamp === stamp) || this.removed.has(tenant) || this.stopped) continue;
      const [installation, settings] = await Promise.all([
        this.deps.directory.installation(tenant),
        this.deps.directory.settings(tenant),
      ]);
      if (!installation) continue;
      // From now on these never reach a log line, whichever logger writes it.
      this.deps.secrets.add(
        installation.botToken,
        installation.refreshToken,
        ...settings.projects.map((p) => p.apiKey),
      );
      const connections = effectiveConnections(this.deps.config, tenant, settings);
      if (runtime) {
        runtime.scope.installation = installation;
        runtime.scope.settings = settings;
        runtime.projects.update(connections);
        runtime.stamp = stamp;
        this.log.info(
          { tenant, projects: connections.length },
          'tenant install or settings changed; applied',
        );
        continue;
      }
      this.runtimes.set(tenant, this.build(tenant, stamp, installation, settings, connections));
    }
  }

  private build(
    tenant: TenantKey,
    stamp: string,
    installation: TenantScope['installation'],
    settings: TenantScope['settings'],
    connections: ReturnType<typeof effectiveConnections>,
  ): TenantRuntime {
    const { config, directory, clock } = this.deps;
    const logger = this.deps.logger.child({ tenant });
    const scope: TenantScope = {
      key: tenant,
      directory,
      installation,
      settings,
      changed: () => {
        this.sync().catch(() => undefined);
      },
      environmentProjects: () => effectiveConnections(config, tenant, NO_SETTINGS),
    };
    const projects = new TenantProjects(connections);
    const runtimeConfig = tenantConfig(config, tenant, installation, connections);
    const namespace = tenantNamespace(tenant, config.oauth?.upgradedTenant);
    const holder: { runtime?: TenantRuntime; slack?: TenantSlackApp } = {};
    const agent = createDocsAgent(runtimeConfig, {
      logger,
      clock,
      tenant: scope,
      projects,
      metrics: this.deps.metrics.forTenant(tenant),
      ...(namespace ? { namespace } : {}),
      slackApp: (options) => {
        holder.slack = createTenantSlackApp(
          runtimeConfig,
          logger,
          () => (holder.runtime?.installed === false ? undefined : scope.installation),
          options,
        );
        return holder.slack;
      },
    });
    const runtime: TenantRuntime = { scope, stamp, projects, slack: holder.slack!, agent, installed: true };
    holder.runtime = runtime;
    // Slack refused the token, or said the app was uninstalled / its token revoked: this tenant only.
    agent.onFatal((reason) => {
      this.uninstall(tenant, reason).catch(() => undefined);
    });
    agent.start().catch((error: unknown) => {
      logger.error({ error: describeError(error) }, `tenant ${tenant} could not start`);
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
  async uninstall(tenant: TenantKey, reason: string): Promise<void> {
    if (this.removed.has(tenant)) return;
    this.removed.add(tenant);
    const runtime = this.runtimes.get(tenant);
    if (runtime) runtime.installed = false;
    this.log.warn(
      { tenant, reason },
      `tenant ${tenant}: ${reason}; its calls, polls, schedules, PR follows and owed deliveries stop now, its installation and secrets are deleted, its other data is purged within ${PURGE_DELAY_MS / 60_000} min`,
    );
    try {
      await this.deps.directory.removeTenant(tenant, this.deps.clock.now() + PURGE_DELAY_MS);
    } catch (error) {
      // Retried by the next sync: the tenant stays in `removed` here, and the directory still lists it.
      this.removed.delete(tenant);
      this.log.error({ tenant, error: describeError(error) }, 'could not delete the uninstalled tenant yet');
    }
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
