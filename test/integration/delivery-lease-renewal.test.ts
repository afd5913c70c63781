import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { Deliveries } from '../../src/delivery/deliveries.js';
import type { DeliverySender } from '../../src/delivery/ports.js';
import { RedisDeliveryStore } from '../../src/state/redis/redis-delivery-store.js';
import { createRedisJobStore } from '../../src/state/redis/redis-job-store.js';
import { post } from '../contract/delivery-store.contract.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a look-up slower than the lease, two replicas on one Redis (issue 35, D1)', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('the holder keeps its lease while it looks up: the reply is posted, once', async () => {
    const namespace = `d1-${randomUUID()}`;
    const states = await Promise.all([0, 1].map(() => createRedisJobStore(redis.url, logger, { namespace })));
    const posts: string[] = [];
    // Each look-up waits three leases for its read (the 1-a-minute history budget of a distributed app).
    const sender = (holder: string): DeliverySender => ({
      async send(_key, _priority, _target, lease) {
        const delivery = await lease();
        if (!delivery) return { sent: false as const };
        posts.push(holder);
        return { sent: true as const, delivery, ts: `${posts.length}.000100` };
      },
      lookup: async () => {
        await sleep(900);
        return undefined;
      },
      removeDuplicates: async () => 0,
    });
    const replicas = states.map(
      (state, i) =>
        new Deliveries({
          store: new RedisDeliveryStore(state.client, `${namespace}:`),
          sender: sender(`R${i}`),
          logger,
          holder: `R${i}`,
          leaseMs: 300,
          settleMs: 0,
          retryBaseMs: 1,
          retryMaxMs: 20,
        }),
    );
    const store = new RedisDeliveryStore(states[0]!.client, `${namespace}:`);
    try {
      // An attempt whose holder died mid-call: the next holder must look it up before posting.
      await store.record(post('k'), Date.now());
      await store.acquire('k', 'gone', 1, Date.now());
      await sleep(10);
      for (let i = 0; i < 80 && (await store.get('k'))?.state !== 'posted'; i++) {
        await Promise.all(replicas.map((r) => r.reconcile()));
        await sleep(50);
      }
      expect(await store.get('k')).toMatchObject({ state: 'posted' });
      expect(posts).toHaveLength(1);
    } finally {
      await Promise.all(replicas.map((r) => r.handBack()));
      await Promise.all(replicas.map((r) => r.idle()));
      await Promise.all(states.map((state) => state.close()));
    }
  });
});
