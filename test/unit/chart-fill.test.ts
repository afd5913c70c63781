import { describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import { AnalyticsSource } from '../../src/insights/analytics-source.js';
import type { ChartRead } from '../../src/insights/bucket-reads.js';
import { ChartFill } from '../../src/insights/chart-fill.js';
import { createMemoryAnalyticsCache } from '../../src/state/keyv-analytics-cache.js';

const logger = createLogger({ level: 'silent', secrets: [] });

function setUp(limit = 100) {
  const budget = new InMemoryHourlyQuota(limit);
  const source = new AnalyticsSource({
    cache: createMemoryAnalyticsCache(logger),
    budget,
    logger,
    cacheTtlMs: 60_000,
    hourlyLimit: limit,
  });
  const fetched: string[] = [];
  const read = (day: number): ChartRead => ({
    key: { endpoint: 'totals', projectId: 'p1', range: `day-${day}` },
    estimate: 1,
    async fetch(b) {
      await b.take();
      fetched.push(`day-${day}`);
      return { day };
    },
  });
  return { budget, source, fill: new ChartFill({ source, logger }), fetched, read };
}

describe('ChartFill: chart points read in the background', () => {
  it('starts only when asked, reads each point once, and keeps half the hourly budget for reports', async () => {
    const { budget, source, fill, fetched, read } = setUp(100);
    const reads = Array.from({ length: 80 }, (_, i) => read(i));
    fill.add(reads);
    fill.add(reads.slice(0, 10));
    // Queued, not started: the report goes out first.
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fetched).toHaveLength(0);
    fill.run();
    await fill.idle();
    expect(fetched).toHaveLength(50);
    expect(await budget.remaining()).toBe(50);
    expect(await source.peek({ endpoint: 'totals', projectId: 'p1', range: 'day-49' })).toEqual({ day: 49 });
    expect(await source.peek({ endpoint: 'totals', projectId: 'p1', range: 'day-50' })).toBeUndefined();
    // What it dropped is queued again by the next report that lacks it; cached points are not read again.
    fill.add(reads.slice(45, 55));
    fill.run();
    await fill.idle();
    expect(fetched).toHaveLength(50);
  });

  it('stops at shutdown: nothing queued is read after stop', async () => {
    const { fill, fetched, read } = setUp(100);
    fill.add(Array.from({ length: 5 }, (_, i) => read(i)));
    await fill.stop();
    fill.add([read(9)]);
    fill.run();
    await fill.idle();
    expect(fetched).toEqual([]);
  });
});
