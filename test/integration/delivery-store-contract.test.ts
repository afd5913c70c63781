import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { MemoryDeliveryStore } from '../../src/state/memory/memory-delivery-store.js';
import { RedisDeliveryStore } from '../../src/state/redis/redis-delivery-store.js';
import { createRedisJobStore } from '../../src/state/redis/redis-job-store.js';
import { deliveryStoreContract, post } from '../contract/delivery-store.contract.js';
import { deliveryStoreRaceContract } from '../contract/delivery-store-races.contract.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });

describe('memory delivery store', () => {
  const memory = async () => ({ store: new MemoryDeliveryStore(), close: async () => {} });
  deliveryStoreContract(memory);
  deliveryStoreRaceContract(memory);
});

describe('redis delivery store', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const open = async (namespace = `t-${randomUUID()}`) => {
    const state = await createRedisJobStore(redis.url, logger, { namespace });
    return { state, store: new RedisDeliveryStore(state.client, `${namespace}:`) };
  };

  const fresh = async () => {
    const { state, store } = await open();
    return { store, close: () => state.close() };
  };
  deliveryStoreContract(fresh);
  deliveryStoreRaceContract(fresh);

  it('keeps the payload byte for byte (empty arrays, unicode) and every key under its namespace', async () => {
    const namespace = `ns-${randomUUID()}`;
    const { state, store } = await open(namespace);
    try {
      const payload = { text: 'é 👍 "q" \\', blocks: [], nested: { list: [[]], n: 1.5 } };
      await store.record(post('k', { payload }), Date.now());
      expect((await store.get('k'))?.payload).toEqual(payload);
      const keys = await state.client.keys(`*${namespace}*`);
      expect(keys.length).toBeGreaterThanOrEqual(2);
      expect(keys.every((key) => key.startsWith(`${namespace}:`))).toBe(true);
    } finally {
      await state.close();
    }
  });

  it('two replicas racing for one delivery: exactly one lease', async () => {
    const namespace = `race-${randomUUID()}`;
    const a = await open(namespace);
    const b = await open(namespace);
    try {
      await a.store.record(post('k'), Date.now());
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).store.acquire('k', `R${i}`, 60_000, Date.now())),
      );
      expect(results.filter((r) => r.ok)).toHaveLength(1);
    } finally {
      await Promise.all([a.state.close(), b.state.close()]);
    }
  });
});
