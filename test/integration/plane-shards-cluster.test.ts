import { createCluster } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { QueuePlane } from '../../src/state/redis/queue-plane.js';
import {
  createSharedRedisConnections,
  type SharedRedisConnections,
} from '../../src/state/redis/redis-job-store.js';
import { waitFor } from '../support/http.js';
import { addNowAndLater } from '../support/plane-seed.js';
import {
  commandsProcessed,
  primariesOf,
  type RedisCluster,
  startRedisCluster,
} from '../support/redis-cluster.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const TENANTS = Array.from({ length: 240 }, (_, i) => `T0SPREAD${i.toString(36).toUpperCase()}`);

/**
 * Issue 43: on a three-primary Redis Cluster the plane's queue keys and its traffic spread over the
 * primaries (a kind's shards are slots of their own), where one queue per kind put a kind on one primary.
 */
describe('the queue plane on a Redis Cluster', () => {
  let cluster: RedisCluster;
  let probe: ReturnType<typeof createCluster>;
  let shared: SharedRedisConnections;
  let run = 0;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    probe = createCluster({ rootNodes: [{ url: cluster.seedUrl }] });
    await probe.connect();
    shared = createSharedRedisConnections(cluster.seedUrl, logger, { cluster: true });
    await shared.connect();
  }, 60_000);
  afterAll(async () => {
    await shared?.close();
    probe?.destroy();
    await cluster?.stop();
  });

  /** Each primary's share of the keys under `prefix` and of the commands it ran meanwhile. */
  async function spread(shards: number) {
    run++;
    const prefix = `spread-${run}`;
    const nodes = await primariesOf(probe);
    const processed = () => commandsProcessed(nodes);
    const ran = new Set<string>();
    const plane = new QueuePlane({
      client: shared.queueClient,
      logger,
      prefix,
      shards,
      wake: async () => 'served',
    });
    try {
      for (const tenant of TENANTS) plane.register('polls', tenant, async () => void ran.add(tenant));
      const before = await processed();
      // A poll due now and one an hour away for every tenant.
      await addNowAndLater(plane, 'polls', 'poll', TENANTS);
      await waitFor(() => ran.size === TENANTS.length, { what: 'every tenant’s poll', timeoutMs: 30_000 });
      const after = await processed();
      const keys = await Promise.all(nodes.map(async (node) => (await node.keys(`${prefix}:*`)).length));
      const traffic = after.map((n, i) => n - (before[i] ?? 0));
      const share = (counts: number[]) => {
        const total = counts.reduce((a, b) => a + b, 0);
        return counts.map((c) => c / total);
      };
      return { keys: share(keys), traffic: share(traffic) };
    } finally {
      await plane.close();
    }
  }

  it('spreads a kind over the primaries: none holds more than 60% of its queue keys or traffic', async () => {
    const { keys, traffic } = await spread(8);
    console.info('8 shards, share per primary', { keys, traffic });
    expect(Math.max(...keys)).toBeLessThanOrEqual(0.6);
    expect(Math.max(...traffic)).toBeLessThanOrEqual(0.6);
  }, 60_000);

  it('(one shard, as before issue 43: one primary holds the kind)', async () => {
    const { keys, traffic } = await spread(1);
    console.info('1 shard, share per primary', { keys, traffic });
    expect(Math.max(...keys)).toBe(1);
    expect(Math.max(...traffic)).toBeGreaterThan(0.6);
  }, 60_000);
});
