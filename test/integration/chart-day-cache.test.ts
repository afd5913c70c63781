import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import { AnalyticsSource } from '../../src/insights/analytics-source.js';
import { rangeKey } from '../../src/insights/page-views/page-views-reports.js';
import { ViewsTrends } from '../../src/insights/page-views/views-trend.js';
import type { AnalyticsCache, PageViewsApi } from '../../src/insights/ports.js';
import { addDays, type DateRange } from '../../src/insights/ranges/dates.js';
import { NewBlocksGate } from '../../src/slack/new-blocks.js';
import {
  createMemoryAnalyticsCache,
  createRedisAnalyticsCache,
} from '../../src/state/keyv-analytics-cache.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const DAY_MS = 86_400_000;

/** A views endpoint whose totals for any range are the sum of its UTC days; counts every request. */
function countingApi(viewsOn: (day: string) => number): PageViewsApi & { calls: number } {
  const api = {
    calls: 0,
    async getPageViews(q: { dateFrom: string; dateTo: string; limit: number }) {
      api.calls += 1;
      let human = 0;
      for (let day = q.dateFrom.slice(0, 10); day < q.dateTo.slice(0, 10); day = addDays(day, 1))
        human += viewsOn(day);
      return { totals: { human, ai: 1, total: human + 1 }, views: [], hasMore: false };
    },
  };
  return api;
}

function trendsOn(cache: AnalyticsCache, api: PageViewsApi, now: () => number) {
  const source = new AnalyticsSource({
    cache,
    budget: new InMemoryHourlyQuota(1000, now),
    logger,
    cacheTtlMs: 15 * 60_000,
  });
  return new ViewsTrends({
    source,
    apiFor: () => api,
    now,
    keyOf: (endpoint, range, projectId) => ({ endpoint, projectId, range: rangeKey(range) }),
  });
}

/** The chart, when it was drawn. */
const drawn = <T>(outcome: { trend: T } | { missing: string }) =>
  'trend' in outcome ? outcome.trend : undefined;

/** "Last 7 days" as of `nowMs` (UTC): the seven days before today. */
const last7 = (nowMs: number): DateRange => {
  const today = new Date(nowMs).toISOString().slice(0, 10);
  return { from: addDays(today, -7), toExclusive: today };
};

describe('daily views for charts: past days are read once', () => {
  it('costs 14 reads cold (a week and the week before), none again, and 1–2 the next day', async () => {
    let nowMs = Date.parse('2026-11-20T09:00:00Z');
    const now = () => nowMs;
    const api = countingApi((day) => Number(day.slice(8, 10)));
    const trends = trendsOn(createMemoryAnalyticsCache(logger, now), api, now);

    const first = drawn(await trends.trend(last7(nowMs), 'p1'));
    expect(api.calls).toBe(14);
    expect(first?.current.human).toEqual([13, 14, 15, 16, 17, 18, 19]);
    await trends.trend(last7(nowMs), 'p1');
    expect(api.calls).toBe(14);

    // A day later (the usual cache TTL long gone): yesterday is new, and the day before is read once more
    // because it was still "yesterday" last time; every other day, of both weeks, is kept for good.
    nowMs += DAY_MS;
    const next = drawn(await trends.trend(last7(nowMs), 'p1'));
    expect(api.calls - 14).toBeGreaterThanOrEqual(1);
    expect(api.calls - 14).toBeLessThanOrEqual(2);
    expect(next?.current.human).toEqual([14, 15, 16, 17, 18, 19, 20]);
    expect(next?.previous?.human).toEqual([7, 8, 9, 10, 11, 12, 13]);
  });
});

describe('daily views for charts in Redis mode', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('a second replica draws the same chart with no read of its own, and knows about a refusal', async () => {
    const namespace = `ns-${randomUUID()}`;
    const a = await connectRedis(redis.url, logger, { failFast: true });
    const b = await connectRedis(redis.url, logger, { failFast: true });
    try {
      const nowMs = Date.parse('2026-11-20T09:00:00Z');
      const now = () => nowMs;
      const api = countingApi(() => 5);
      const cacheA = createRedisAnalyticsCache(a, namespace, logger, now);
      const cacheB = createRedisAnalyticsCache(b, namespace, logger, now);
      const first = await trendsOn(cacheA, api, now).trend(last7(nowMs), 'p1');
      expect(api.calls).toBe(14);
      const second = await trendsOn(cacheB, api, now).trend(last7(nowMs), 'p1');
      expect(api.calls).toBe(14);
      expect(second).toEqual(first);
      // Final days are kept for good: a TTL far beyond the usual 15 minutes.
      const ttl = await a.pTTL(
        `${namespace}::analytics-cache:totals:p1:${addDays('2026-11-20', -7)}..${addDays('2026-11-20', -6)}`,
      );
      expect(ttl).toBeGreaterThan(300 * DAY_MS);

      // One replica's refusal is every replica's: the other leaves the charts out without trying.
      const gateA = new NewBlocksGate(cacheA, logger, now);
      const gateB = new NewBlocksGate(cacheB, logger, now);
      const blocks = [{ type: 'section' }, { type: 'data_visualization' }];
      expect(await gateB.blocksFor(blocks)).toEqual(blocks);
      expect(await gateA.retryWithout(blocks, 'invalid_blocks')).toEqual([{ type: 'section' }]);
      // Not remembered until Slack took the message without them (it may have refused something else).
      expect(await gateB.blocksFor(blocks)).toEqual(blocks);
      expect(await gateA.retryWithout(blocks, 'msg_blocks_too_long')).toBeUndefined();
      await gateA.confirm();
      expect(await gateB.blocksFor(blocks)).toEqual([{ type: 'section' }]);
      expect(await gateA.blocksFor(blocks)).toEqual([{ type: 'section' }]);
    } finally {
      await closeRedis(a);
      await closeRedis(b);
    }
  });
});
