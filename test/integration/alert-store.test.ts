import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import type { HealthAlert } from '../../src/insights/alerts/alert.js';
import { HealthAlerts } from '../../src/insights/alerts/health-alerts.js';
import { AnalyticsSource } from '../../src/insights/analytics-source.js';
import { encodeEvidenceRef } from '../../src/insights/health/evidence-ref.js';
import type { AlertPublisher, AlertRecord, AlertStore } from '../../src/insights/ports.js';
import { MemoryAlertStore, RedisAlertStore } from '../../src/state/alert-stores.js';
import { createMemoryAnalyticsCache } from '../../src/state/keyv-analytics-cache.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { AlertFeed } from '../support/alert-feed.js';
import { docsClientFor } from '../support/docs-client-for.js';
import { FAKE_PROJECT_ID, FakeDocs } from '../support/fake-docs.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const record = (n: number): AlertRecord => ({
  signalId: 'search:webhook retries',
  deliveryKey: `health-alert:C1:x:${n}`,
  count: 14,
  alertedAt: n,
  evidenceRef: `ev_${n}`,
});

function contract(name: string, make: () => Promise<{ store: AlertStore; close(): Promise<void> }>) {
  describe(`alert store (${name})`, () => {
    it('claims an alert once among concurrent callers, keeps the winner’s record, and forgets it after its TTL', async () => {
      const { store, close } = await make();
      try {
        const wins = await Promise.all(
          Array.from({ length: 20 }, (_, i) => store.claimAlert('C1', record(i), 60_000)),
        );
        expect(wins.filter(Boolean)).toHaveLength(1);
        const winner = wins.indexOf(true);
        expect(await store.alert('C1', 'search:webhook retries')).toEqual(record(winner));
        expect(await store.alert('C2', 'search:webhook retries')).toBeUndefined();
        expect(await store.claimAlert('C2', record(99), 50)).toBe(true);
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(await store.alert('C2', 'search:webhook retries')).toBeUndefined();
        expect(await store.claimAlert('C2', record(100), 60_000)).toBe(true);
        const claims = await Promise.all([store.claim('tick:1', 60_000), store.claim('tick:1', 60_000)]);
        expect(claims.sort()).toEqual([false, true]);
      } finally {
        await close();
      }
    });

    it('mutes one signal in one channel until its TTL, leaving other signals and channels alone', async () => {
      const { store, close } = await make();
      try {
        expect(await store.isMuted('C1', 'sigA')).toBe(false);
        await store.mute('C1', 'sigA', 100);
        expect(await store.isMuted('C1', 'sigA')).toBe(true);
        expect(await store.isMuted('C1', 'sigB')).toBe(false);
        expect(await store.isMuted('C2', 'sigA')).toBe(false);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await store.isMuted('C1', 'sigA')).toBe(false);
      } finally {
        await close();
      }
    });

    it('keeps subscriptions and stored days', async () => {
      const { store, close } = await make();
      try {
        await store.subscribe({ channelId: 'C2', sensitivity: 'high', createdBy: 'U1', createdAt: 1 });
        await store.subscribe({ channelId: 'C1', sensitivity: 'low', createdBy: 'U2', createdAt: 2 });
        await store.subscribe({ channelId: 'C1', sensitivity: 'normal', createdBy: 'U2', createdAt: 3 });
        expect((await store.subscriptions()).map((s) => [s.channelId, s.sensitivity])).toEqual([
          ['C1', 'normal'],
          ['C2', 'high'],
        ]);
        expect(await store.unsubscribe('C2')).toBe(true);
        expect(await store.unsubscribe('C2')).toBe(false);
        expect(await store.subscription('C2')).toBeUndefined();
        const day = {
          day: '2026-11-01',
          counts: { search: { sso: 2 }, page: {}, question: {}, traffic: { '/a': 10 } },
          partial: [],
        };
        await store.putDay('p', day, 60_000);
        expect(await store.day('p', '2026-11-01')).toEqual(day);
        expect(await store.day('q', '2026-11-01')).toBeUndefined();
      } finally {
        await close();
      }
    });
  });
}

contract('memory', async () => ({ store: new MemoryAlertStore(), close: async () => undefined }));

describe('redis', () => {
  let redis: RedisServer;
  let docs: FakeDocs;
  beforeAll(async () => {
    redis = await startRedisServer();
    docs = await FakeDocs.start();
  });
  afterAll(async () => {
    await redis?.stop();
    await docs?.close();
  });
  contract('redis', async () => {
    const client = await connectRedis(redis.url, logger, { failFast: true });
    return { store: new RedisAlertStore(client, `ns-${randomUUID()}:`), close: () => closeRedis(client) };
  });

  /** A replica's alert use case on its own analytics source, sharing the Redis store. */
  /** Holds each caller until `n` have arrived (or a second passed): both replicas read "no alert yet". */
  function rendezvous(n: number): () => Promise<void> {
    let arrived = 0;
    let release: () => void = () => undefined;
    const all = new Promise<void>((resolve) => {
      release = resolve;
    });
    return async () => {
      arrived += 1;
      if (arrived >= n) release();
      await Promise.race([all, new Promise((resolve) => setTimeout(resolve, 1_000))]);
    };
  }
  const race: { gate: () => Promise<void> } = { gate: async () => undefined };

  function replica(client: RedisClient, namespace: string, posted: string[]): HealthAlerts {
    const redisStore = new RedisAlertStore(client, namespace);
    // Every call goes to Redis; reads of an alert record wait at the round's gate.
    const store: AlertStore = Object.assign(Object.create(redisStore) as AlertStore, {
      alert: async (channelId: string, signalId: string) => {
        await race.gate();
        return redisStore.alert(channelId, signalId);
      },
    });
    const publisher: AlertPublisher = {
      postAlert: async (_alert: HealthAlert, key: string) => {
        if (!posted.includes(key)) posted.push(key);
      },
      postedTs: async () => undefined,
      postFollowUp: async () => undefined,
    };
    const api = docsClientFor(docs, logger).forProject(FAKE_PROJECT_ID);
    return new HealthAlerts({
      store,
      scheduler: {
        start: async () => undefined,
        arm: async () => undefined,
        disarm: async () => undefined,
        stop: async () => undefined,
      },
      publisher,
      source: new AnalyticsSource({
        cache: createMemoryAnalyticsCache(logger),
        budget: new InMemoryHourlyQuota(100_000),
        logger,
        cacheTtlMs: 0,
      }),
      healthApiFor: () => api,
      viewsApiFor: () => api,
      projects: { defaultProjectId: FAKE_PROJECT_ID, isMulti: false, projectFor: () => FAKE_PROJECT_ID },
      encodeEvidence: encodeEvidenceRef,
      clock: { now: () => Date.now() },
      logger,
      intervalMs: 60_000,
      maxPages: 5,
    });
  }

  it('two replicas checking overlapping intervals at once owe one alert (the atomic claim), for every round', async () => {
    const namespace = `ns-${randomUUID()}:`;
    const [a, b] = await Promise.all([0, 1].map(() => connectRedis(redis.url, logger, { failFast: true })));
    try {
      const posted: string[] = [];
      const [one, two] = [replica(a!, namespace, posted), replica(b!, namespace, posted)];
      const noon = Date.UTC(2026, 10, 20, 12);
      const feed = new AlertFeed(docs, undefined, 7);
      feed.installHistory(noon);
      feed.drawToday();
      await one.subscribe('C0ONE', 'U1', 'normal');
      // Fill the baseline (7 past days per check) before the race.
      for (let i = 0; i < 4; i += 1) await one.check(noon - (10 - i) * 60_000);
      expect(posted).toEqual([]);
      feed.spike.searches = { 'webhook retries': 14 };
      feed.drawToday();
      for (let round = 0; round < 5; round += 1) {
        const tick = noon + round * 120_000;
        race.gate = rendezvous(2);
        await Promise.all([one.check(tick), two.check(tick + 60_000)]);
      }
      expect(posted).toHaveLength(1);
    } finally {
      await closeRedis(a!);
      await closeRedis(b!);
    }
  }, 30_000);
});

describe('memory alert store', () => {
  it('drops expired interval claims as it grows, so a process running for months stays small', async () => {
    let now = 0;
    const store = new MemoryAlertStore(() => now);
    for (let i = 0; i < 10_000; i += 1) {
      expect(await store.claim(`tick:${i}`, 1_000)).toBe(true);
      now += 1_000;
    }
    const size = (store as unknown as { values: Map<string, unknown> }).values.size;
    expect(size).toBeLessThan(1_100);
  });
});
