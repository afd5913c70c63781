import { describe, expect, it } from 'vitest';
import type { RangeViews } from '../../src/insights/ports.js';
import { createLogger } from '../../src/shared/logger.js';
import { createMemoryViewsCache } from '../../src/state/keyv-page-views-cache.js';

const logger = createLogger({ level: 'silent', secrets: [] });

function rangeViews(): RangeViews {
  return {
    range: { from: '2025-03-03', toExclusive: '2025-03-10' },
    totals: { human: 3, ai: 1, total: 4 },
    pages: [{ path: '/a', human: 3, ai: 1, total: 4 }],
    partial: false,
    requests: 1,
    fetchedAt: 0,
  };
}

describe('memory views cache', () => {
  it('hands out the stored range itself, frozen all the way down, until the TTL passes', async () => {
    let now = 1_000;
    const cache = createMemoryViewsCache(logger, () => now);
    const stored = rangeViews();
    await cache.set('k', stored, 60_000);
    const hit = await cache.get('k');
    expect(hit).toBe(stored);
    expect(Object.isFrozen(hit!.pages[0])).toBe(true);
    expect(() => {
      (hit!.pages as RangeViews['pages']).push({ path: '/b', human: 0, ai: 0, total: 0 });
    }).toThrow(TypeError);
    now += 60_000;
    expect(await cache.get('k')).toBeUndefined();
  });
});
