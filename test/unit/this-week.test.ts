import { describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import type { PageEvidence, SearchEvidence } from '../../src/insights/health/evidence.js';
import { FILL_ESTIMATE, ThisWeek, topGap } from '../../src/insights/weekly/this-week.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const NOW = Date.parse('2026-12-07T10:00:00Z');
const RANGE = { from: '2026-11-30', toExclusive: '2026-12-07' };

/** A ThisWeek over an empty cache; counts the reads a fill makes and the claims it asks for. */
function thisWeek(limit: number, spent = 0, claims = new Set<string>(), reads: string[] = []) {
  const budget = new InMemoryHourlyQuota(limit, () => NOW);
  const week = new ThisWeek({
    source: { peek: async () => undefined, budget, hourlyLimit: limit },
    projects: { defaultProjectId: 'proj_a' },
    now: () => NOW,
    maxPages: 40,
    pageViews: {
      periodViews: async (range) => {
        reads.push(`totals ${range.from}`);
        return {
          range,
          totals: { human: 1, ai: 1, total: 2 },
          pages: [],
          partial: true,
          requests: 1,
          fetchedAt: NOW,
        };
      },
    },
    health: {
      report: async () => {
        reads.push('health');
        return {} as never;
      },
    },
    claim: async (key) => {
      if (claims.has(key)) return false;
      claims.add(key);
      return true;
    },
    logger,
  });
  return { week, reads, spend: () => budget.take(spent) };
}

describe('ThisWeek', () => {
  it('reads nothing but the cache: nothing cached is no views and no health', async () => {
    const { week, reads } = thisWeek(100);
    expect(await week.cached()).toEqual({});
    expect(reads).toEqual([]);
  });

  it('fills once, through the reports, while half the hour stays for people; another replica not within the claim', async () => {
    const claims = new Set<string>();
    const reads: string[] = [];
    const { week } = thisWeek(100, 0, claims, reads);
    expect(await week.fill()).toBe(true);
    expect(reads.sort()).toEqual(['health', 'totals 2026-11-23', 'totals 2026-11-30']);
    // The same scope while its fill runs: under way, nothing read again.
    expect(await week.fill()).toBe(true);
    // Another replica's scope of the same workspace (the same claims in the store): no second fill.
    expect(await thisWeek(100, 0, claims, reads).week.fill()).toBe(false);
    expect(reads).toHaveLength(3);
  });

  it('does not fill when the budget left is under half the hour and a fill', async () => {
    const { week, reads, spend } = thisWeek(100, 100 - 50 - FILL_ESTIMATE + 1);
    await spend();
    expect(await week.fill()).toBe(false);
    expect(reads).toEqual([]);
  });

  it('picks the gap that touched the most readers', () => {
    const search: SearchEvidence = {
      kind: 'search',
      query: 'sso',
      hits: 4,
      ctr: 0,
      share: 0.1,
      range: RANGE,
    };
    const page: PageEvidence = {
      kind: 'page',
      path: '/a',
      thumbsDown: 9,
      thumbsUp: 0,
      comments: [],
      range: RANGE,
    };
    expect(topGap(search, page)).toBe(page);
    expect(topGap({ ...search, hits: 9 }, page)?.kind).toBe('search');
    expect(topGap(undefined, undefined)).toBeUndefined();
  });
});
