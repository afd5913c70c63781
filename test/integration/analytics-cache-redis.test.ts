import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import { AnalyticsSource } from '../../src/insights/analytics-source.js';
import { createRedisAnalyticsCache } from '../../src/state/keyv-analytics-cache.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });

describe('redis analytics cache', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('lets a second replica read what the first fetched, under the namespace, with no fetch of its own', async () => {
    const namespace = `ns-${randomUUID()}`;
    const a = await connectRedis(redis.url, logger, { failFast: true });
    const b = await connectRedis(redis.url, logger, { failFast: true });
    try {
      const budget = new InMemoryHourlyQuota(100);
      const sourceOf = (client: typeof a) =>
        new AnalyticsSource({
          cache: createRedisAnalyticsCache(client, namespace, logger),
          budget,
          logger,
          cacheTtlMs: 60_000,
        });
      const key = {
        endpoint: 'searches',
        projectId: 'p1',
        range: '2025-03-03..2025-03-10',
        params: { limit: 100 },
      };
      const value = { rows: [{ searchQuery: 'sso', hits: 2.5 }], partial: false, requests: 1 };
      let fetches = 0;
      const fetch = async () => {
        fetches += 1;
        return value;
      };
      expect(await sourceOf(a).read(key, 1, fetch)).toEqual(value);
      expect(await sourceOf(b).read(key, 1, fetch)).toEqual(value);
      expect(fetches).toBe(1);
      const keys = await a.keys(`*${namespace}*`);
      expect(keys).toEqual([`${namespace}::analytics-cache:searches:p1:2025-03-03..2025-03-10?limit=100`]);
    } finally {
      await closeRedis(a);
      await closeRedis(b);
    }
  });
});
