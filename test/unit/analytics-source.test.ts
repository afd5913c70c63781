import { describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import {
  AnalyticsBudgetError,
  type AnalyticsKey,
  AnalyticsSource,
} from '../../src/insights/analytics-source.js';
import type { AnalyticsCache } from '../../src/insights/ports.js';
import { createMemoryAnalyticsCache } from '../../src/state/keyv-analytics-cache.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const key: AnalyticsKey = { endpoint: 'searches', projectId: 'p1', range: '2025-03-03..2025-03-10' };

function sourceWith(
  budget = new InMemoryHourlyQuota(100),
  cache: AnalyticsCache = createMemoryAnalyticsCache(logger),
) {
  return new AnalyticsSource({ cache, budget, logger, cacheTtlMs: 60_000 });
}

/** A fetch that takes one unit per call, as every endpoint fetch does, and counts its calls. */
function countingFetch(value: unknown = { rows: [1, 2] }) {
  const fetch = async (budget: InMemoryHourlyQuota | { take(): Promise<unknown> }) => {
    fetch.calls += 1;
    await budget.take();
    return value;
  };
  fetch.calls = 0;
  return fetch;
}

describe('AnalyticsSource', () => {
  it('refuses before fetching when the budget cannot cover the estimate, saying when it can', async () => {
    const budget = new InMemoryHourlyQuota(10);
    await budget.take(8);
    const fetch = countingFetch();
    const error = await sourceWith(budget)
      .read(key, 3, fetch)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnalyticsBudgetError);
    expect((error as AnalyticsBudgetError).code).toBe('analytics_budget_exhausted');
    expect((error as AnalyticsBudgetError).retryAfterMs).toBeGreaterThan(0);
    expect(fetch.calls).toBe(0);
    expect(await budget.remaining()).toBe(2);
  });

  it('answers a cached read with no fetch and no budget, and peeks without fetching', async () => {
    const budget = new InMemoryHourlyQuota(100);
    const source = sourceWith(budget);
    const fetch = countingFetch({ rows: ['a'] });
    expect(await source.peek(key)).toBeUndefined();
    expect(await source.read(key, 1, fetch)).toEqual({ rows: ['a'] });
    expect(await source.read(key, 1, fetch)).toEqual({ rows: ['a'] });
    expect(await source.peek(key)).toEqual({ rows: ['a'] });
    expect(fetch.calls).toBe(1);
    expect(await budget.remaining()).toBe(99);
    // Another range, endpoint or parameter is another read.
    await source.read({ ...key, params: { limit: 100 } }, 1, fetch);
    await source.read({ ...key, endpoint: 'feedback' }, 1, fetch);
    expect(fetch.calls).toBe(3);
  });

  it('shares one fetch between concurrent identical reads', async () => {
    const source = sourceWith();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let calls = 0;
    const fetch = async () => {
      calls += 1;
      await gate;
      return { rows: [calls] };
    };
    const reads = [source.read(key, 1, fetch), source.read(key, 1, fetch), source.read(key, 1, fetch)];
    // Let every reader get past its cache miss before the fetch ends.
    await new Promise((resolve) => setTimeout(resolve, 20));
    release();
    expect(await Promise.all(reads)).toEqual([{ rows: [1] }, { rows: [1] }, { rows: [1] }]);
    expect(calls).toBe(1);
  });

  it('lets the event loop come round while the readers who joined one fetch go on, not all in one task (issue 43)', async () => {
    const source = sourceWith();
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const fetch = async () => {
      await gate;
      return { rows: ['shared'] };
    };
    const events: Array<'tick' | 'reader'> = [];
    const reads = Array.from({ length: 40 }, async () => {
      await source.read(key, 1, fetch);
      // Each reader's own synchronous work once the value is there (rendering, recording, sending).
      const until = performance.now() + 1;
      while (performance.now() < until) {}
      events.push('reader');
    });
    // Every reader past its cache miss (microtasks only, in memory) before the fetch ends.
    await new Promise((resolve) => setImmediate(resolve));
    let ticking = true;
    const tick = () => {
      events.push('tick');
      if (ticking) setTimeout(tick, 0);
    };
    setTimeout(tick, 0);
    release();
    await Promise.all(reads);
    ticking = false;
    const runs = events
      .join(' ')
      .split('tick')
      .map((run) => run.trim().split(' ').filter(Boolean).length);
    expect(runs.reduce((a, b) => a + b, 0)).toBe(40);
    expect(Math.max(...runs)).toBeLessThanOrEqual(8);
  });

  it('does not cache a failed fetch: the next read fetches again', async () => {
    const source = sourceWith();
    let calls = 0;
    const fetch = async () => {
      calls += 1;
      if (calls === 1) throw new Error('upstream 500');
      return { rows: ['ok'] };
    };
    await expect(source.read(key, 1, fetch)).rejects.toThrow('upstream 500');
    expect(await source.peek(key)).toBeUndefined();
    expect(await source.read(key, 1, fetch)).toEqual({ rows: ['ok'] });
    expect(calls).toBe(2);
  });

  it('treats a failing cache as a miss and still answers', async () => {
    const broken: AnalyticsCache = {
      get: async () => {
        throw new Error('redis down');
      },
      set: async () => {
        throw new Error('redis down');
      },
    };
    const fetch = countingFetch({ rows: ['x'] });
    expect(await sourceWith(new InMemoryHourlyQuota(100), broken).read(key, 1, fetch)).toEqual({
      rows: ['x'],
    });
    expect(fetch.calls).toBe(1);
  });
});
