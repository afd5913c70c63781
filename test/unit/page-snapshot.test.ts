import { describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import { AnalyticsBudgetError, AnalyticsSource } from '../../src/insights/analytics-source.js';
import type { HealthApi } from '../../src/insights/health/ports.js';
import { PageSnapshots, SNAPSHOT_TTL_MS } from '../../src/insights/page-snapshot/page-snapshot.js';
import type { RangePageViews } from '../../src/insights/ports.js';
import type { DateRange } from '../../src/insights/ranges/dates.js';
import { createMemoryAnalyticsCache } from '../../src/state/keyv-analytics-cache.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const NOW = Date.parse('2026-03-10T12:00:00Z');

function setup(options: { budget?: number; reserveUnits?: number } = {}) {
  let now = NOW;
  const clock = { now: () => now };
  const budget = new InMemoryHourlyQuota(options.budget ?? 100);
  // Report caching off: only the snapshot's own hour keeps reads away.
  const source = new AnalyticsSource({
    cache: createMemoryAnalyticsCache(logger, clock.now),
    budget,
    logger,
    cacheTtlMs: 0,
  });
  const calls = { views: 0, searches: 0 };
  const views = async (range: DateRange): Promise<RangePageViews> => {
    calls.views += 1;
    await budget.take();
    const thisWeek = range.from === '2026-03-03';
    return {
      range,
      totals: { human: 0, ai: 0, total: 0 },
      pages: thisWeek
        ? [
            { path: '/a/rotate-keys', human: 30, ai: 5, total: 35 },
            { path: '/a/rotate-keys/', human: 10, ai: 0, total: 10 },
          ]
        : [{ path: '/a/rotate-keys', human: -4, ai: 2, total: 2 }],
      partial: false,
      requests: 1,
      fetchedAt: now,
    };
  };
  const api: HealthApi = {
    getSearches: async () => {
      calls.searches += 1;
      return {
        totalSearches: 10,
        searches: [
          { searchQuery: 'rotate\u200b keys', hits: 4, ctr: 0, topClickedPage: null },
          { searchQuery: 'rotate keys found', hits: 9, ctr: 0.5, topClickedPage: '/a/rotate-keys' },
          { searchQuery: 'billing', hits: 7, ctr: 0, topClickedPage: null },
        ],
      };
    },
    getFeedbackByPage: async () => ({
      feedback: [{ path: '/a/rotate-keys', thumbsUp: 1, thumbsDown: 3 }],
      hasMore: false,
    }),
    getFeedback: async () => ({ feedback: [{ id: '1', path: '/a/rotate-keys/', comment: 'Old <!here>' }] }),
    getAssistantConversations: async () => ({ conversations: [] }),
  };
  const snapshots = new PageSnapshots({
    pageViews: { views },
    healthApiFor: () => api,
    source,
    clock,
    maxPages: 2,
    ...(options.reserveUnits === undefined ? {} : { reserveUnits: options.reserveUnits }),
  });
  const advance = (ms: number) => {
    now += ms;
  };
  return { snapshots, calls, budget, advance };
}

describe('page snapshots for link previews', () => {
  it('sums the page’s spellings, compares with the week before and finds the empty searches near it', async () => {
    const { snapshots } = setup();
    const s = await snapshots.snapshot('p1', '/a/rotate-keys/');
    expect(s.range).toEqual({ from: '2026-03-03', toExclusive: '2026-03-10' });
    expect(s.views).toEqual({ current: { human: 40, ai: 5 }, previous: { human: 0, ai: 2 } });
    expect([s.thumbsDown, s.thumbsUp]).toEqual([3, 1]);
    expect(s.comments).toEqual(['Old <!here>']); // escaped where shown, as in /docs-health
    expect(s.nearbySearches).toEqual([{ query: 'rotate keys', hits: 4 }]);
    expect(s.removed).toBe(1);
  });

  it('reads each page once per hour, then again', async () => {
    const { snapshots, calls, advance } = setup();
    await snapshots.snapshot('p1', '/a/rotate-keys');
    await snapshots.snapshot('p1', '/a/rotate-keys/');
    expect(calls).toEqual({ views: 2, searches: 1 });
    advance(SNAPSHOT_TTL_MS + 1);
    await snapshots.snapshot('p1', '/a/rotate-keys');
    expect(calls).toEqual({ views: 4, searches: 2 });
  });

  it('leaves the reserve of the budget to the commands', async () => {
    const { snapshots, calls, budget } = setup({ budget: 20, reserveUnits: 10 });
    await budget.take(6);
    await expect(snapshots.snapshot('p1', '/a/rotate-keys')).rejects.toBeInstanceOf(AnalyticsBudgetError);
    expect(calls.views).toBe(0);
  });
});
