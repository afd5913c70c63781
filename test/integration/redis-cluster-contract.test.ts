import { randomUUID } from 'node:crypto';
import { createCluster } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import {
  closeRedis,
  connectRedis,
  type RedisClient,
  waitForRedis,
} from '../../src/state/redis/redis-client.js';
import { RedisDeliveryStore } from '../../src/state/redis/redis-delivery-store.js';
import { RedisHourlyQuota } from '../../src/state/redis/redis-hourly-quota.js';
import { createRedisJobStore } from '../../src/state/redis/redis-job-store.js';
import { RedisTenantDirectory } from '../../src/state/redis/redis-tenant-directory.js';
import { deliveryStoreContract } from '../contract/delivery-store.contract.js';
import { deliveryStoreRaceContract } from '../contract/delivery-store-races.contract.js';
import { hourlyQuotaContract } from '../contract/hourly-quota.contract.js';
import { jobStoreContract } from '../contract/job-store.contract.js';
import { tenantDirectoryContract } from '../contract/tenant-directory.contract.js';
import { tenantLifecycleContract } from '../contract/tenant-lifecycle.contract.js';
import { primariesOf, type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';
import { startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/**
 * Issue 34: every Redis store's contract, run on a real three-primary Redis Cluster through the product's
 * cluster client (REDIS_CLUSTER). Each store's keys carry a hash tag, as the product's do, so its scripts
 * and transactions stay in one slot; a store that named a key of another slot would fail here (CROSSSLOT).
 */
describe('the Redis stores on a three-primary Redis Cluster', () => {
  let cluster: RedisCluster;
  const clients: RedisClient[] = [];
  /** A namespace with a hash tag, as tenantNamespace makes on a cluster. */
  const tagged = () => `docs-agent:t:{T${randomUUID().slice(0, 8)}}`;
  const replica = async () => {
    const client = await connectRedis(cluster.seedUrl, logger, { failFast: true, cluster: true });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    cluster = await startRedisCluster();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(clients.map((client) => closeRedis(client)));
    await cluster?.stop();
  });

  const jobState = async (namespace = tagged()) => ({
    namespace,
    state: await createRedisJobStore(cluster.seedUrl, logger, { namespace, cluster: true }),
  });

  describe('job store', () => {
    jobStoreContract(async () => {
      const { state } = await jobState();
      return { store: state.store, close: () => state.close() };
    });
  });

  describe('delivery store (the outbox)', () => {
    const fresh = async () => {
      const { namespace, state } = await jobState();
      return { store: new RedisDeliveryStore(state.client, `${namespace}:`), close: () => state.close() };
    };
    deliveryStoreContract(fresh);
    deliveryStoreRaceContract(fresh);
  });

  describe('hourly quota', () => {
    hourlyQuotaContract(async (limit, now) => ({
      quota: new RedisHourlyQuota({ client: await replica(), key: `${tagged()}:quota:x`, limit, now }),
      close: async () => {},
    }));
  });

  describe('tenant directory', () => {
    const onTwoReplicas = async (box: Parameters<Parameters<typeof tenantDirectoryContract>[0]>[0]) => {
      const prefix = `docs-agent:{directory-${randomUUID()}}:`;
      const replicas: [RedisTenantDirectory, RedisTenantDirectory] = [
        new RedisTenantDirectory(await replica(), prefix, box),
        new RedisTenantDirectory(await replica(), prefix, box),
      ];
      return { replicas, close: async () => {} };
    };
    tenantDirectoryContract(onTwoReplicas);
    tenantLifecycleContract(onTwoReplicas);
  });

  it('start-up: a cluster node without REDIS_CLUSTER, or REDIS_CLUSTER on one node, is not ready and says the fix', async () => {
    const single = await startRedisServer();
    /** What waitForRedis logs until aborted after its first refusal (it retries for ever otherwise). */
    const refusal = async (url: string, cluster: boolean) => {
      const lines: string[] = [];
      const abort = new AbortController();
      const log = createLogger({
        level: 'warn',
        secrets: [],
        destination: {
          write: (line: string) => {
            lines.push(line);
            abort.abort();
          },
        },
      });
      return { ready: await waitForRedis(url, log, abort.signal, cluster), said: lines.join('') };
    };
    try {
      expect(await waitForRedis(cluster.seedUrl, logger, new AbortController().signal, true)).toBe(true);
      const clusterNode = await refusal(cluster.seedUrl, false);
      expect(clusterNode.ready).toBe(false);
      expect(clusterNode.said).toContain('is a node of a Redis Cluster: set REDIS_CLUSTER=true');
      const oneNode = await refusal(single.url, true);
      expect(oneNode.ready).toBe(false);
      expect(oneNode.said).toContain(
        'is not a cluster node: point REDIS_URL at one, or remove REDIS_CLUSTER',
      );
    } finally {
      await single.stop();
    }
  });

  it('spreads tenants over the primaries: the contracts above ran on more than one node', async () => {
    const probe = createCluster({ rootNodes: [{ url: cluster.seedUrl }] });
    await probe.connect();
    try {
      const counts = await Promise.all((await primariesOf(probe)).map((node) => node.dbSize()));
      expect(counts).toHaveLength(3);
      expect(counts.filter((count) => count > 0).length).toBeGreaterThan(1);
    } finally {
      probe.destroy();
    }
  });
});
