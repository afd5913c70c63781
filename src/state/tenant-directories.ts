import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import type { SecretBox } from '../common/secret-box.js';
import { MemoryWindowCounter, type WindowCounter } from '../common/window-counter.js';
import type { TenantDirectory } from '../tenants/ports.js';
import type { TenantKey } from '../tenants/tenant.js';
import { MemoryTenantDirectory } from './memory/memory-tenant-directory.js';
import { type DirectoryChange, DirectoryChangesTail } from './redis/directory-changes.js';
import { migrateDirectoryLayout } from './redis/directory-migration.js';
import type { StartMigration } from './redis/migrations/at-start.js';
import { migrateAtStart, migrationsFor } from './redis/migrations/deployment.js';
import { purgeNamespace } from './redis/namespace-purge.js';
import { QueuePlane, type QueuePlaneOptions } from './redis/queue-plane.js';
import { waitForRedis } from './redis/redis-client.js';
import { RedisDueIndex } from './redis/redis-due-index.js';
import { createSharedRedisConnections, type SharedRedisConnections } from './redis/redis-job-store.js';
import { RedisParkedJobs } from './redis/redis-parked-jobs.js';
import { RedisTenantDirectory } from './redis/redis-tenant-directory.js';
import { RedisWindowCounter } from './redis/redis-window-counter.js';
import { pingState } from './redis-adapters.js';

export interface TenantDirectoryHandle {
  backend: 'memory' | 'redis';
  directory: TenantDirectory;
  /** Redis: the command connections the directory and every tenant's state share. */
  sharedRedis: SharedRedisConnections | undefined;
  /** Deletes every key of one generation of an uninstalled tenant's key space; resolves how many. */
  purge(tenant: TenantKey, generation: number): Promise<number>;
  state(): Promise<'ok' | 'unreachable'>;
  waitUntilReady(signal: AbortSignal): Promise<boolean>;
  /**
   * Calls `listener` with the tenants any replica's directory writes changed (a capped Redis stream every
   * write adds to in the same step; one connection per process), or `all` when some may have been missed.
   * Memory: nothing to watch, every write is this process's own.
   */
  watch(listener: (change: DirectoryChange) => void): Promise<void>;
  /** Install attempts a minute (INSTALLS_PER_MINUTE), counted for every replica together with Redis. */
  installCounter: WindowCounter;
  /** Redis: the deployment's index of tenants with owed work nobody holds (issue 34). */
  dueIndex: RedisDueIndex | undefined;
  /**
   * Redis: brings the stored data to this version's layout before anything reads it (`npm run migrate`'s
   * steps, under their lease; a replica that finds them under way waits). Memory: nothing stored.
   */
  migrate(signal: AbortSignal): Promise<StartMigration>;
  /** Redis: the replica's one queue plane (a Worker per kind, every tenant's jobs); none in memory. */
  queuePlane(options: Pick<QueuePlaneOptions, 'wake' | 'touched' | 'deferred'>): QueuePlane | undefined;
  close(): Promise<void>;
}

/** Where the directory of installs lives in Redis (outside every tenant's key space). */
export const DIRECTORY_PREFIX = 'docs-agent:directory:';

/**
 * Every Redis key of a tenant starts with this; the upgraded workspace keeps single-workspace mode's keys.
 * An install after a purge began writes under the next generation (`@<n>`: no tenant key has an `@`), so
 * that purge's `docs-agent:t:<tenant>:*` never reaches it. On a Redis Cluster the tenant is a hash tag: all
 * of its keys, every generation's, share one slot, so its scripts and transactions stay in one slot and a
 * purge reads that slot only (there is no upgraded workspace there: config refuses one).
 */
export function tenantNamespace(
  tenant: TenantKey,
  upgradedTenant: string | undefined,
  generation = 0,
  cluster = false,
): string | undefined {
  const name = cluster ? `{${tenant}}` : tenant;
  if (generation > 0) return `docs-agent:t:${name}@${generation}`;
  return tenant === upgradedTenant && !cluster ? undefined : `docs-agent:t:${name}`;
}

/** Where the directory lives: on a Redis Cluster under one hash tag, so its scripts stay in one slot. */
export function directoryPrefix(cluster = false): string {
  return cluster ? 'docs-agent:{directory}:' : DIRECTORY_PREFIX;
}

/** Keys outside the upgraded workspace's data although they share its prefix: other tenants, the directory. */
const NOT_THE_UPGRADED_TENANTS = ['docs-agent:t:', DIRECTORY_PREFIX];

/** The directory of installs: in Redis with REDIS_URL (shared by replicas), else in this process's memory. */
export function tenantDirectoryFor(config: Config, box: SecretBox, logger: Logger): TenantDirectoryHandle {
  const { redisUrl } = config;
  if (!redisUrl) {
    return {
      backend: 'memory',
      directory: new MemoryTenantDirectory(box),
      sharedRedis: undefined,
      // A memory tenant's data lives in its runtime, which is gone once it is uninstalled.
      purge: async () => 0,
      state: async () => 'ok',
      waitUntilReady: async () => true,
      watch: async () => undefined,
      installCounter: new MemoryWindowCounter(Date.now),
      dueIndex: undefined,
      queuePlane: () => undefined,
      migrate: async () => 'recorded',
      close: async () => undefined,
    };
  }
  const cluster = config.oauth?.redisCluster === true;
  const shared = createSharedRedisConnections(redisUrl, logger, { cluster });
  const prefix = directoryPrefix(cluster);
  const { client } = shared;
  let tail: DirectoryChangesTail | undefined;
  return {
    backend: 'redis',
    directory: new RedisTenantDirectory(client, prefix, box),
    sharedRedis: shared,
    installCounter: new RedisWindowCounter(client, cluster ? 'docs-agent:{installs}:' : 'docs-agent:'),
    dueIndex: new RedisDueIndex(client),
    migrate: (signal) => migrateAtStart({ client, ...migrationsFor(config, client, logger), logger, signal }),
    queuePlane: (options) =>
      new QueuePlane({
        ...options,
        client: shared.queueClient,
        logger,
        concurrency: { polls: Math.max(8, config.docs.maxConcurrency * 4) },
        ...(config.oauth ? { shards: config.oauth.queueShards } : {}),
        perTenantCap: config.docs.maxConcurrency,
        parked: new RedisParkedJobs(shared.queueClient),
      }),
    async purge(tenant, generation) {
      // Only this tenant's keys are looked at, and only this generation's.
      const namespace =
        tenantNamespace(tenant, config.oauth?.upgradedTenant, generation, cluster) ?? 'docs-agent';
      const upgraded = namespace === 'docs-agent';
      const deleted = await purgeNamespace(client, namespace, (key) =>
        upgraded ? NOT_THE_UPGRADED_TENANTS.some((other) => key.startsWith(other)) : false,
      );
      // The parked-jobs set is the tenant's, not a generation's (outside the namespace on one node): its
      // jobs were released when the tenant left; a job parked since is still delayed in its queue and parks
      // again when it comes due, so nothing is lost by forgetting the set.
      const parked = await new RedisParkedJobs(client).take(tenant);
      return deleted + (parked.length > 0 ? 1 : 0);
    },
    state: () => pingState(client),
    async waitUntilReady(signal) {
      if (!(await waitForRedis(redisUrl, logger, signal, cluster))) return false;
      await shared.connect();
      // Before the directory serves: every install's record in its tenant's slot (issue 43 §5; also the first
      // step of `npm run migrate`). Checked at each start, as a replica of the previous version may still
      // install into the old layout during a rolling upgrade; a replica that starts meanwhile waits for it.
      return (await migrateDirectoryLayout(client, prefix, { logger, signal })).done;
    },
    async watch(listener) {
      // The directory's capped stream of changes, one blocking connection per process (see the tail).
      tail = new DirectoryChangesTail(client, `${prefix}tenant-changes`, logger);
      await tail.start(listener);
    },
    async close() {
      await tail?.close();
      await shared.close();
    },
  };
}
