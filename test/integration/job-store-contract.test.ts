import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import {
  createMemoryJobStore,
  StateUnavailableError,
  WATCH_RECHECK_MS,
} from '../../src/state/keyv-job-store.js';
import { createRedisJobStore } from '../../src/state/redis/redis-job-store.js';
import { jobStoreContract, record } from '../contract/job-store.contract.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });

const DAY_MS = 24 * 60 * 60 * 1000;

describe('memory job store', () => {
  jobStoreContract(async () => ({ store: createMemoryJobStore(logger), close: async () => {} }));

  describe('on a manual clock', () => {
    afterEach(() => {
      vi.useRealTimers();
    });

    it("keeps a running job's thread link and requester index while the job is saved, past 30 days", async () => {
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(Date.UTC(2026, 0, 1));
      const store = createMemoryJobStore(logger);
      const job = record({ threadTs: '1.1' });
      await store.saveJob(job);
      await store.linkThread('C1', '1.1', 'job_1');
      for (let day = 10; day <= 50; day += 10) {
        vi.setSystemTime(Date.UTC(2026, 0, 1) + day * DAY_MS);
        await store.saveJob(job); // each poll of a watched job saves it
      }
      vi.setSystemTime(Date.UTC(2026, 0, 1) + 55 * DAY_MS);
      expect(await store.findJobByThread('C1', '1.1')).toBe('job_1');
      expect((await store.listByRequester('T1', 'U1', 10)).map((r) => r.jobId)).toEqual(['job_1']);
      // Once saves stop, all of it expires with the record.
      vi.setSystemTime(Date.UTC(2026, 0, 1) + 81 * DAY_MS);
      expect(await store.findJobByThread('C1', '1.1')).toBeUndefined();
      expect(await store.getJob('job_1')).toBeUndefined();
    });
  });
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

  it('marks its tenant due 5 s ahead when a job is watched or a PR followed; a member whose record is gone leaves the set (issue 43)', async () => {
    const namespace = `ns-${randomUUID()}`;
    const marks: number[] = [];
    const { store, client, watchedWork, close } = await createRedisJobStore(redis.url, logger, {
      namespace,
      dueIndex: { mark: async (at) => void marks.push(at) },
    });
    try {
      expect(await watchedWork()).toEqual({ watched: false, following: false });
      const before = Date.now();
      await store.saveJob(record());
      expect(marks).toHaveLength(1);
      expect(marks[0]).toBeGreaterThanOrEqual(before + WATCH_RECHECK_MS);
      expect((await watchedWork()).watched).toBe(true);
      await store.saveJob(record({ version: 1, watching: false }));
      expect(marks).toHaveLength(1);
      expect(await watchedWork()).toEqual({ watched: false, following: false });
      await store.setFollowing('job_1', true);
      expect(marks).toHaveLength(2);
      expect(await watchedWork()).toEqual({ watched: false, following: true });
      await store.setFollowing('job_1', false);
      // A watched job whose record expired or was evicted: listed as nothing, and the set forgets it.
      await store.saveJob(record({ jobId: 'job_2' }));
      await client.del(`${namespace}::job:job_2`);
      expect(await store.listWatched()).toEqual([]);
      expect(await watchedWork()).toEqual({ watched: false, following: false });
    } finally {
      await close();
    }
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

  it("refreshes a job's thread link and requester index on every save, atomically with it", async () => {
    const namespace = `ns-${randomUUID()}`;
    const { store, client, close } = await createRedisJobStore(redis.url, logger, { namespace });
    try {
      const job = record({ threadTs: '1.1' });
      await store.saveJob(job);
      await store.linkThread('C1', '1.1', 'job_1');
      await store.linkThread('C1', '2.2', 'job_other');
      const linkKey = `${namespace}::thread:C1:1.1`;
      const otherKey = `${namespace}::thread:C1:2.2`;
      const indexKey = `${namespace}:set:requester:U1`;
      // As if 29 days had passed since the job started: an hour left on each.
      for (const key of [linkKey, otherKey, indexKey]) await client.pExpire(key, 60 * 60 * 1000);
      const before = Date.now();
      await store.saveJob(job);
      expect(await client.pTTL(linkKey)).toBeGreaterThan(29 * DAY_MS);
      expect(await client.pTTL(indexKey)).toBeGreaterThan(29 * DAY_MS);
      // Keyv checks the `expires` it stored too: it moved on with the key's TTL.
      const stored = JSON.parse((await client.get(linkKey))!) as { value: string; expires: number };
      expect(stored).toMatchObject({ value: 'job_1' });
      expect(stored.expires).toBeGreaterThan(before + 29 * DAY_MS);
      expect(await store.findJobByThread('C1', '1.1')).toBe('job_1');
      // Another job's thread is left alone.
      expect(await client.pTTL(otherKey)).toBeLessThanOrEqual(60 * 60 * 1000);
    } finally {
      await close();
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
