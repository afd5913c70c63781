import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { MemoryWindowCounter, type WindowCounter } from '../../src/common/window-counter.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { RedisWindowCounter } from '../../src/state/redis/redis-window-counter.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/** The install limit's counter, memory and Redis alike: counts, reads without counting, lapses. */
const logger = createLogger({ level: 'silent', secrets: [] });
let redis: RedisServer;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});

function contract(name: string, make: () => Promise<{ counter: WindowCounter; close(): Promise<void> }>) {
  describe(`window counter (${name})`, () => {
    it('counts per key, reads a count without adding to it, and reads 0 for a key never counted or lapsed', async () => {
      const { counter, close } = await make();
      try {
        const key = `k-${randomUUID()}`;
        expect(await counter.count(key)).toBe(0);
        expect(await counter.increment(key, 60_000)).toBe(1);
        expect(await counter.increment(key, 60_000)).toBe(2);
        expect(await counter.count(key)).toBe(2);
        expect(await counter.count(key)).toBe(2);
        expect(await counter.count(`${key}-other`)).toBe(0);
        const brief = `b-${randomUUID()}`;
        await counter.increment(brief, 50);
        expect(await counter.count(brief)).toBe(1);
        // Lapsed once its time has passed (waited for, never slept for).
        await waitFor(async () => (await counter.count(brief)) === 0, { what: 'the count to lapse' });
      } finally {
        await close();
      }
    });
  });
}

contract('memory', async () => ({
  counter: new MemoryWindowCounter(Date.now),
  close: async () => undefined,
}));
contract('redis', async () => {
  const client = await connectRedis(redis.url, logger, { failFast: true });
  return { counter: new RedisWindowCounter(client, 'docs-agent:test:'), close: () => closeRedis(client) };
});
