import type { OAuthConfig } from '../../common/config-oauth.js';
import { ProcessLru } from '../../common/process-lru.js';
import { ReplicaTicker } from '../../common/replica-ticker.js';
import { secretBoxFromSettings } from '../../common/secret-box.js';
import { TenantMetrics } from '../../metrics/tenant-metrics.js';
import { InstallRateLimit } from '../../slack/oauth/install-rate.js';
import { tenantDirectoryFor } from '../../state/adapters.js';
import { within } from '../app-steps.js';
import type { ProcessParts, Tenants } from '../tenants.js';
import { DUE_TICK_MS, ReconcilePlane } from './reconcile-plane.js';
import { releaseLifted } from './tenant-holds.js';
import { TenantRuntimes } from './tenant-runtimes.js';
import { TenantUpkeep } from './tenant-upkeep.js';

/** Tests' hooks into OAuth mode's timing (real deployments use the config's). */
export interface OAuthOptions {
  /** Tests: how often tokens and purges are looked at (a minute), how long uninstalled data stays (an hour). */
  upkeepIntervalMs?: number;
  purgeDelayMs?: number;
  /** Tests: how often the directory of installs is read (every 2 s). */
  syncIntervalMs?: number;
  /** Tests: false leaves out the directory's announcements (this replica's view then changes only by reads). */
  watchDirectory?: boolean;
  /** Tests: how long an unused scope stays resident (Redis mode; 10 min), if built for background work only (90 s). */
  scopeIdleMs?: number;
  backgroundIdleMs?: number;
}

/**
 * OAuth mode's tenants: every workspace that installed the app. A request's tenant is resolved once (org-wide
 * install first, then the workspace) and handed to its scope, built on demand and evicted when idle.
 *
 * Built here, once per replica, whatever the number of tenants: the directory and its announcements, the Redis
 * connections, the queue plane (one BullMQ Worker per kind and shard), the one timer (`ReplicaTicker`), the due
 * index and its reader (`ReconcilePlane`), the upkeep pass and the process LRU. Built per scope, on demand
 * (`TenantRuntimes`: a request, a queued job or the due index names the tenant): `createScope` over views of
 * those (its stores in its key space, its processors registered on the plane, its periods on the ticker).
 */
export function oauthTenants(p: ProcessParts & { oauth: OAuthConfig }, options: OAuthOptions = {}): Tenants {
  const { config, oauth, logger, secrets, clock, edge } = p;
  const box = secretBoxFromSettings(oauth.encryptionKey, oauth.oldEncryptionKeys);
  const store = tenantDirectoryFor(config, box, logger);
  const metrics = new TenantMetrics();
  // Built once per replica: its one timer, and (Redis) the due index every scope's owed work is marked in.
  const ticker = new ReplicaTicker(logger, store.dueIndex !== undefined);
  const plane = store.queuePlane({
    wake: (tenant) => runtimes.wake(tenant),
    touched: (tenant) => runtimes.touch(tenant),
    deferred: (kind, reason) => queueMetrics?.deferred(kind, reason),
  });
  const queueMetrics = plane
    ? metrics.watchQueues({
        stats: () => plane.queues.stats(),
        dueIndexSize: () => store.dueIndex?.size() ?? Promise.resolve(0),
      })
    : undefined;
  const runtimes = new TenantRuntimes({
    periodic: ticker,
    ...(plane ? { plane } : {}),
    ...(store.dueIndex ? { dueIndex: store.dueIndex } : {}),
    // Evicted only where their polls and schedules live in the shared plane (they wake them again).
    ...(plane
      ? {
          scopeIdleMs: options.scopeIdleMs ?? oauth.scopeIdleMs,
          backgroundIdleMs: options.backgroundIdleMs ?? oauth.backgroundIdleMs,
        }
      : {}),
    maxResidentScopes: oauth.maxResidentScopes,
    ...{ config, directory: store.directory, logger, secrets, metrics, clock },
    sharedRedis: store.sharedRedis,
    // Memory: every write is this process's own, so there are no changes to follow.
    ...(options.watchDirectory === false || store.backend !== 'redis'
      ? {}
      : {
          watch: (listener) =>
            store.watch((change) => {
              listener(change);
              if (plane) void releaseLifted({ plane, directory: store.directory }, logger, change);
            }),
        }),
    ...(options.purgeDelayMs !== undefined ? { purgeDelayMs: options.purgeDelayMs } : {}),
    ...(options.syncIntervalMs !== undefined ? { syncIntervalMs: options.syncIntervalMs } : {}),
    suspended: (nextCheckAt) => upkeep.soon(nextCheckAt),
    caches: new ProcessLru(),
    edge,
  });
  const owed =
    store.dueIndex &&
    new ReconcilePlane({
      index: store.dueIndex,
      wake: (tenant) => runtimes.wake(tenant),
      agentOf: (tenant) => runtimes.resident(tenant)?.agent,
      now: () => clock.now(),
      logger: logger.child({ component: 'due-index' }),
      ...(plane ? { holds: (changed: () => void) => plane.queues.holds.view(() => true, changed) } : {}),
    });
  const upkeep = new TenantUpkeep({
    oauth,
    directory: store.directory,
    tenants: () => runtimes.tenants(),
    purge: (tenant, generation) => store.purge(tenant, generation),
    uninstall: (tenant, reason, installId) => runtimes.uninstall(tenant, reason, installId),
    changed: () => {
      runtimes.sync().catch(() => undefined);
    },
    slackApiUrl: config.slack.apiUrl,
    timeoutMs: config.slack.timeoutMs,
    clock,
    logger,
  });
  const stops: Array<() => void> = [];
  let ready = false;
  const startAbort = new AbortController();
  return {
    metrics,
    installer: {
      clientId: oauth.clientId,
      clientSecret: oauth.clientSecret,
      stateSecret: oauth.stateSecret,
      links: { privacyUrl: oauth.privacyUrl, supportUrl: oauth.supportUrl },
      ...(config.slack.apiUrl ? { slackApiUrl: config.slack.apiUrl } : {}),
      directory: store.directory,
      now: () => clock.now(),
      logger,
      rateLimit: new InstallRateLimit(
        store.installCounter,
        oauth.installsPerMinute,
        () => clock.now(),
        oauth.trustProxy,
      ),
      onInstalled: (installation) => {
        logger.info({ tenant: installation.tenant, name: installation.name }, 'installed');
        // Built here at once: its start owes the installer the welcome DM.
        runtimes.wake(installation.tenant).catch(() => undefined);
      },
    },
    dispatch: (request, source) => runtimes.dispatch(request, source),
    state: () => store.state(),
    connected: () => ready,
    jobs() {
      throw new Error('OAuth mode has a job service per tenant');
    },
    onFatal: () => undefined,
    periodicRuns: () => ticker.size(),
    async start(port) {
      if (!(await store.waitUntilReady(startAbort.signal))) return;
      // The stored data in this version's layout before any scope or Worker reads it (one HMGET when done).
      await store.migrate(startAbort.signal);
      await runtimes.start();
      if (owed) stops.push(ticker.every(DUE_TICK_MS, () => owed.tick()));
      plane?.start(); // a Worker per kind and shard: a job of a tenant not resident here builds its scope
      // Ready once its Workers listen (their blocking connections made), at most 10 s: they are many now.
      if (plane) await Promise.race([plane.queues.ready().catch(() => undefined), sleepUnref(10_000)]);
      // Jobs an older replica still queues in the layout before (rolling upgrade) move to their shards.
      if (plane) stops.push(ticker.every(60_000, () => plane.rehome()));
      upkeep.start(options.upkeepIntervalMs);
      ready = true;
      logger.info(
        { port, state: store.backend, tenants: runtimes.tenants().length },
        `docs-agent (OAuth mode) is listening on port ${port}: Slack at POST /slack/events, installs at GET /slack/install; ${
          store.backend === 'redis'
            ? 'installs and state are in Redis (REDIS_URL), shared by replicas'
            : 'installs and state are in memory: every install is lost at restart (set REDIS_URL to keep them)'
        }`,
      );
    },
    async stop() {
      startAbort.abort();
      await upkeep.stop();
      for (const stop of stops) stop();
      await owed?.stop();
      // The plane first: a job taken after the scopes stopped would find nobody to run it.
      if (plane) await within(plane.close(), 5_000, 'closing the queue plane', logger);
      await runtimes.stop();
      ticker.close();
      await store.close();
    },
  };
}

const sleepUnref = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
