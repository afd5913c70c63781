import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { RangePageViews } from '../../src/insights/ports.js';
import { createMemoryAnalyticsCache } from '../../src/state/keyv-analytics-cache.js';

const logger = createLogger({ level: 'silent', secrets: [] });

function rangeViews(): RangePageViews {
  return {
    range: { from: '2025-03-03', toExclusive: '2025-03-10' },
    totals: { human: 3, ai: 1, total: 4 },
    pages: [{ path: '/a', human: 3, ai: 1, total: 4 }],
    partial: false,
    requests: 1,
    fetchedAt: 0,
  };
}

describe('memory analytics cache', () => {
  it('hands out an equal, unchangeable copy of the stored value until the TTL passes', async () => {
    let now = 1_000;
    const cache = createMemoryAnalyticsCache(logger, () => now);
    const stored = rangeViews();
    await cache.set('views:p:r', stored, 60_000);
    const hit = (await cache.get('views:p:r')) as RangePageViews;
    expect(hit).toEqual(rangeViews());
    // A caller changing what it got cannot change what the next caller gets (memory mode hands out one
    // frozen copy: the change throws), nor can the caller that stored it.
    expect(() => hit.pages.push({ path: '/b', human: 0, ai: 0, total: 0 })).toThrow(TypeError);
    expect(() => {
      (hit.pages[0] as { total: number }).total = 99;
    }).toThrow(TypeError);
    stored.pages.push({ path: '/c', human: 0, ai: 0, total: 0 });
    expect(await cache.get('views:p:r')).toEqual(rangeViews());
    now += 60_000;
    expect(await cache.get('views:p:r')).toBeUndefined();
  });
});
