import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { createMemoryJobStore, StateUnavailableError } from '../../src/state/keyv-job-store.js';
import { createRedisJobStore } from '../../src/state/redis/redis-job-store.js';
import { jobStoreContract, record } from '../contract/job-store.contract.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });

describe('memory job store', () => {
  jobStoreContract(async () => ({ store: createMemoryJobStore(logger), close: async () => {} }));
});

describe('redis job store', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  jobStoreContract(async () => {
    const { store, close } = await createRedisJobStore(redis.url, logger, { namespace: `t-${randomUUID()}` });
    return { store, close };
  });

  it('keeps every key under its namespace', async () => {
    const namespace = `ns-${randomUUID()}`;
    const { store, client, close } = await createRedisJobStore(redis.url, logger, { namespace });
    try {
      await store.saveJob(record());
      await store.linkThread('C1', '1.1', 'job_1');
      await store.claim('reply:job_1:1', 60_000);
      const keys = await client.keys(`*${namespace}*`);
      expect(keys.length).toBeGreaterThanOrEqual(4);
      expect(keys.every((key) => key.startsWith(`${namespace}:`))).toBe(true);
    } finally {
      await close();
    }
  });

  it('shares state between two instances (replicas, or a restart)', async () => {
    const namespace = `ns-${randomUUID()}`;
    const a = await createRedisJobStore(redis.url, logger, { namespace });
    const b = await createRedisJobStore(redis.url, logger, { namespace });
    try {
      await a.store.saveJob(record());
      await a.store.linkThread('C1', '1.1', 'job_1');
      expect(await b.store.getJob('job_1')).toEqual(record({ version: 1 }));
      expect(await b.store.findJobByThread('C1', '1.1')).toBe('job_1');
      expect((await b.store.listWatched()).map((r) => r.jobId)).toEqual(['job_1']);
      expect((await b.store.listByRequester('T1', 'U1', 10)).map((r) => r.jobId)).toEqual(['job_1']);
      await b.store.mark('home:U1', 60_000);
      expect(await a.store.isMarked('home:U1')).toBe(true);
      expect(await a.store.claim('reply:job_1:1', 60_000)).toBe(true);
      expect(await b.store.claim('reply:job_1:1', 60_000)).toBe(false);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("indexes a person's job atomically with its first save: concurrent first saves from two clients index it once", async () => {
    const namespace = `ns-${randomUUID()}`;
    const a = await createRedisJobStore(redis.url, logger, { namespace });
    const b = await createRedisJobStore(redis.url, logger, { namespace });
    try {
      const results = await Promise.allSettled([a.store.saveJob(record()), b.store.saveJob(record())]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const key = `${namespace}:set:requester:U1`;
      expect(await a.client.zRange(key, 0, -1)).toEqual(['job_1']);
      expect(await a.client.pTTL(key)).toBeGreaterThan(29 * 24 * 60 * 60 * 1000);
      expect((await a.store.listByRequester('T1', 'U1', 10)).map((r) => r.jobId)).toEqual(['job_1']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('reports an unreachable Redis as state_unavailable, never as "not found"', async () => {
    const own = await startRedisServer();
    const { store, close } = await createRedisJobStore(own.url, logger);
    try {
      await store.saveJob(record());
      await own.stop();
      const reads: Array<Promise<unknown>> = [
        store.getJob('job_1'),
        store.getJob('unknown'),
        store.findJobByThread('C1', '1.1'),
        store.listWatched(),
        store.listByRequester('T1', 'U1', 10),
        store.isMarked('home:U1'),
        store.claim('event:Ev1', 1_000),
        store.saveJob(record()),
      ];
      for (const read of reads) {
        await expect(read).rejects.toBeInstanceOf(StateUnavailableError);
      }
      await expect(store.getJob('job_1')).rejects.toMatchObject({ code: 'state_unavailable' });
    } finally {
      await close();
      await own.stop();
    }
  });
});
