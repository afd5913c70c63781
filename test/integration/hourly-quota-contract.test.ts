import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisHourlyQuota } from '../../src/state/redis/redis-hourly-quota.js';
import { hourlyQuotaContract } from '../contract/hourly-quota.contract.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });

describe('in-memory hourly quota', () => {
  hourlyQuotaContract(async (limit, now) => ({
    quota: new InMemoryHourlyQuota(limit, now),
    close: async () => {},
  }));
});

describe('redis hourly quota', () => {
  const redis = redisForReplicas();
  let client: RedisClient;
  beforeAll(async () => {
    client = await redis.replica();
  });

  hourlyQuotaContract(async (limit, now) => ({
    quota: new RedisHourlyQuota({ client, key: `quota:${randomUUID()}`, limit, now }),
    close: async () => {},
  }));

  it('is one budget for every replica using the same key', async () => {
    const key = `quota:${randomUUID()}`;
    const other = await connectRedis(redis.url(), logger, { failFast: true });
    try {
      const a = new RedisHourlyQuota({ client, key, limit: 3 });
      const b = new RedisHourlyQuota({ client: other, key, limit: 3 });
      const results = await Promise.all([a.take(), b.take(), a.take(), b.take(), a.take()]);
      expect(results.filter((r) => r.ok)).toHaveLength(3);
      expect(await a.remaining()).toBe(0);
      expect(await b.remaining()).toBe(0);
      const refused = await b.take();
      expect(refused.ok).toBe(false);
      if (!refused.ok) expect(refused.retryAfterMs).toBeGreaterThan(59 * 60 * 1000);
    } finally {
      await closeRedis(other);
    }
  });
});
