import { describeError } from '../../common/errors.js';
import { lazyChild } from '../../common/lazy-logger.js';
import { tenantCaches } from '../../common/process-lru.js';
import { createTenantSlackApp, type TenantSlackApp } from '../../slack/tenant-slack-app.js';
import type { ProjectConnection, TenantKey, TenantLifecycle } from '../../tenants/tenant.js';
import type { Scope, TenantScope } from '../docs-agent.js';
import { createScope } from '../scope.js';
import { TenantProjects, tenantConfig, tenantNamespace } from './tenant-config.js';
import type { TenantRuntimesDeps } from './tenant-runtimes-deps.js';
import { refusalCounts, tokenRefusalCheck } from './token-refusals.js';

export interface TenantRuntime {
  scope: TenantScope;
  stamp: string;
  projects: TenantProjects;
  slack: TenantSlackApp;
  agent: Scope;
  /** False from the moment it is uninstalled: its Slack client refuses every call. */
  installed: boolean;
  /** Its install id, key-space generation and hold (on hold: no Slack call leaves, work waits). */
  lifecycle: TenantLifecycle;
  /** Settles when the runtime's start settled (connected to its state, resumed its jobs). */
  started: Promise<void>;
  /** Last request, queued job or wake that named it (eviction of idle scopes). */
  usedAt: number;
  /** Last request from Slack it served (none yet: built for background work, evicted sooner). */
  servedAt?: number;
  /** Requests being served now: never evicted meanwhile. */
  inFlight: number;
}

/** A resident scope's install, settings or hold changed in the directory: applied in place. */
export function updateInPlace(
  runtime: TenantRuntime,
  now: Pick<TenantRuntime, 'stamp' | 'lifecycle'> & {
    installation: TenantScope['installation'];
    settings: TenantScope['settings'];
    connections: ProjectConnection[];
  },
): void {
  const lifted = runtime.lifecycle.hold && !now.lifecycle.hold ? runtime.lifecycle.hold : undefined;
  runtime.lifecycle = now.lifecycle;
  runtime.scope.installation = now.installation;
  runtime.scope.installed?.(now.installation); // a takeover by an admin's re-install is told
  runtime.scope.settings = now.settings;
  runtime.projects.update(now.connections);
  runtime.stamp = now.stamp;
  if (lifted) runtime.scope.holdLifted?.(lifted); // its managers could not be told during the hold
}

/**
 * A request for a runtime still starting (its state store connecting, jobs resuming) waits for it this long,
 * so the first request after an install elsewhere is served, not answered "state store unreachable";
 * bounded inside Slack's 3 s (with at most 1 s waiting for the directory's on-demand look), after which the
 * request goes on and meets whatever state there is.
 */
const START_WAIT_MS = 1_500;

/** Whether a resident scope has work in hand that stopping it would cut (see Scope.busy). */
export async function scopeBusy(
  runtime: TenantRuntime | undefined,
  plane: { busy(tenant: TenantKey): boolean } | undefined,
): Promise<boolean> {
  if (!runtime) return false;
  if (runtime.inFlight > 0 || plane?.busy(runtime.scope.key)) return true;
  return runtime.agent.busy().catch(() => true);
}

/** Waits for the runtime's start, at most START_WAIT_MS. */
export async function untilStarted(runtime: TenantRuntime): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, START_WAIT_MS);
  });
  await Promise.race([runtime.started, late]);
  clearTimeout(timer);
}

export type LoadCause = 'request' | 'work';

/**
 * One tenant's runtime: a scope (`createScope`) with the tenant's config, key space, metrics,
 * projects and Slack app (every call with the installation's current token, none once uninstalled); started
 * in the background.
 */
export function buildTenantRuntime(
  deps: Pick<
    TenantRuntimesDeps,
    | 'config'
    | 'directory'
    | 'clock'
    | 'logger'
    | 'metrics'
    | 'sharedRedis'
    | 'caches'
    | 'periodic'
    | 'plane'
    | 'dueIndex'
    | 'edge'
  >,
  what: {
    /** What built it: a request from Slack, or work (a queued job, owed work, an install's welcome). */
    cause?: LoadCause;
    tenant: TenantKey;
    stamp: string;
    lifecycle: TenantLifecycle;
    installation: TenantScope['installation'];
    settings: TenantScope['settings'];
    connections: ProjectConnection[];
  },
  on: { changed(): void; fatal(reason: string): void; refused(code: string): void },
): TenantRuntime {
  const { config, directory, clock } = deps;
  const { tenant, installation, connections } = what;
  // Built on first use, and so is every part's child of it: a quiet scope's parts never log (issue 43 §2).
  const logger = lazyChild(deps.logger, { tenant });
  const scope: TenantScope = {
    key: tenant,
    directory,
    installation,
    settings: what.settings,
    changed: on.changed,
    ...(deps.caches ? { caches: tenantCaches(deps.caches, tenant) } : {}),
  };
  const projects = new TenantProjects(connections);
  const runtimeConfig = tenantConfig(config, tenant, installation, connections);
  const namespace = tenantNamespace(
    tenant,
    config.oauth?.upgradedTenant,
    what.lifecycle.generation,
    config.oauth?.redisCluster,
  );
  const holder: { runtime?: TenantRuntime; slack?: TenantSlackApp } = {};
  deps.metrics.loaded(what.cause ?? 'work'); // a context built here (issue 43 §4: contexts loaded per minute)
  const agent = createScope(runtimeConfig, {
    logger,
    clock,
    tenant: scope,
    projects,
    metrics: deps.metrics.forTenant(tenant),
    ...(namespace ? { namespace } : {}),
    ...(deps.sharedRedis ? { sharedRedis: deps.sharedRedis } : {}),
    ...(deps.periodic ? { periodic: deps.periodic } : {}),
    ...(deps.plane ? { plane: deps.plane } : {}),
    edge: deps.edge,
    ...(deps.dueIndex ? { dueIndex: { mark: (atMs: number) => deps.dueIndex!.mark(tenant, atMs) } } : {}),
    slackApp: (options) => {
      const refusedForGood = tokenRefusalCheck({
        tenant,
        directory,
        held: () => scope.installation,
        tokenAccepted: (token) => slack.tokenAccepted(token),
        changed: on.changed,
        logger,
      });
      const slack = createTenantSlackApp(
        runtimeConfig,
        logger,
        () => (holder.runtime?.installed === false ? undefined : scope.installation),
        {
          ...options,
          // Confirmed with the stored token, the tenant is suspended (never uninstalled at once).
          onTokenRejected: (code) => {
            if (!refusalCounts(code)) return;
            refusedForGood().then((confirmed) => {
              if (confirmed) on.refused(code);
            });
          },
        },
        async (refused) => {
          const stored = await directory.installation(tenant);
          if (!stored || stored.botToken === refused) return undefined;
          on.changed(); // the next read of the directory makes it this runtime's token
          return stored.botToken;
        },
        () => holder.runtime?.lifecycle.hold !== undefined,
        { app: deps.edge.slackApp, clients: deps.edge.slack },
      );
      holder.slack = slack;
      return slack;
    },
  });
  agent.onFatal(on.fatal);
  const started = agent.start().then(
    () => undefined,
    (error: unknown) => {
      logger.error({ error: describeError(error) }, `tenant ${tenant} could not start`);
    },
  );
  const slack = holder.slack!;
  const runtime: TenantRuntime = {
    scope,
    stamp: what.stamp,
    projects,
    slack,
    agent,
    installed: true,
    lifecycle: what.lifecycle,
    started,
    usedAt: clock.now(),
    inFlight: 0,
  };
  holder.runtime = runtime;
  return runtime;
}
