import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import type { SecretBox } from '../common/secret-box.js';
import type { TenantDirectory } from '../tenants/ports.js';
import type { TenantKey } from '../tenants/tenant.js';
import { MemoryTenantDirectory } from './memory/memory-tenant-directory.js';
import { waitForRedis } from './redis/redis-client.js';
import { createSharedRedisConnections, type SharedRedisConnections } from './redis/redis-job-store.js';
import { RedisTenantDirectory } from './redis/redis-tenant-directory.js';
import { pingState } from './redis-adapters.js';

export interface TenantDirectoryHandle {
  backend: 'memory' | 'redis';
  directory: TenantDirectory;
  /** Redis: the command connections the directory and every tenant's state share. */
  sharedRedis: SharedRedisConnections | undefined;
  /** Deletes every key of an uninstalled tenant's key space; resolves how many. */
  purge(tenant: TenantKey): Promise<number>;
  state(): Promise<'ok' | 'unreachable'>;
  waitUntilReady(signal: AbortSignal): Promise<boolean>;
  close(): Promise<void>;
}

/** Where the directory of installs lives in Redis (outside every tenant's key space). */
export const DIRECTORY_PREFIX = 'docs-agent:directory:';

/** Every Redis key of a tenant starts with this; the upgraded workspace keeps single-workspace mode's keys. */
export function tenantNamespace(tenant: TenantKey, upgradedTenant: string | undefined): string | undefined {
  return tenant === upgradedTenant ? undefined : `docs-agent:t:${tenant}`;
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
      close: async () => undefined,
    };
  }
  const shared = createSharedRedisConnections(redisUrl, logger);
  const { client } = shared;
  return {
    backend: 'redis',
    directory: new RedisTenantDirectory(client, DIRECTORY_PREFIX, box),
    sharedRedis: shared,
    async purge(tenant) {
      const namespace = tenantNamespace(tenant, config.oauth?.upgradedTenant) ?? 'docs-agent';
      const upgraded = namespace === 'docs-agent';
      let deleted = 0;
      let batch: string[] = [];
      const flush = async () => {
        if (batch.length > 0) deleted += await client.unlink(batch);
        batch = [];
      };
      for await (const keys of client.scanIterator({ MATCH: `${namespace}:*`, COUNT: 500 })) {
        for (const key of keys) {
          if (upgraded && NOT_THE_UPGRADED_TENANTS.some((prefix) => key.startsWith(prefix))) continue;
          batch.push(key);
        }
        if (batch.length >= 500) await flush();
      }
      await flush();
      return deleted;
    },
    state: () => pingState(client),
    async waitUntilReady(signal) {
      if (!(await waitForRedis(redisUrl, logger, signal))) return false;
      await shared.connect();
      return true;
    },
    close: () => shared.close(),
  };
}
