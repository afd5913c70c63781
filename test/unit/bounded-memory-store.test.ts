import Keyv from 'keyv';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import {
  createMemoryAnalyticsCache,
  MEMORY_ANALYTICS_CACHE_ENTRIES,
} from '../../src/state/keyv-analytics-cache.js';
import { createMemoryJobStore } from '../../src/state/keyv-job-store.js';
import { BoundedMemoryStore } from '../../src/state/memory/bounded-memory-store.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/** The Keyv inside a memory-mode adapter (a private field: what the test inspects is the memory it holds). */
function keyvOf(adapter: unknown): Keyv {
  return (adapter as { keyv: Keyv }).keyv;
}

/** Entries held by the store behind an adapter's Keyv (the Map Keyv makes by default, or ours). */
function entriesOf(adapter: unknown): number {
  return (keyvOf(adapter).store as { size: number }).size;
}

describe('BoundedMemoryStore', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('drops expired entries that are never read again, at the next sweep', async () => {
    const store = new BoundedMemoryStore({ maxEntries: 10_000, sweepIntervalMs: 60_000 });
    const keyv = new Keyv({ store, namespace: 't' });
    for (let i = 0; i < 1_000; i++) await keyv.set(`k${i}`, { i }, 1_000);
    await keyv.set('kept', 'no ttl');
    expect(store.size).toBe(1_001);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(store.size).toBe(1);
    expect(await keyv.get('kept')).toBe('no ttl');
    store.disconnect();
  });

  it('never holds more than its bound, dropping the least recently used first', async () => {
    const store = new BoundedMemoryStore({ maxEntries: 100 });
    const keyv = new Keyv({ store, namespace: 't' });
    await keyv.set('old-but-read', 1);
    for (let i = 0; i < 1_000; i++) {
      await keyv.set(`k${i}`, i);
      if (i % 50 === 0) expect(await keyv.get('old-but-read')).toBe(1);
      expect(store.size).toBeLessThanOrEqual(100);
    }
    expect(store.size).toBe(100);
    expect(await keyv.get('k999')).toBe(999);
    expect(await keyv.get('k0')).toBeUndefined();
    expect(await keyv.get('old-but-read')).toBe(1);
    store.disconnect();
  });

  it('stops its sweep timer on disconnect', async () => {
    const before = vi.getTimerCount();
    const store = new BoundedMemoryStore({ maxEntries: 10 });
    expect(vi.getTimerCount()).toBe(before + 1);
    const keyv = new Keyv({ store });
    await keyv.disconnect();
    expect(vi.getTimerCount()).toBe(before);
  });

  it('bounds the memory-mode analytics cache and job store by count, and sweeps expired ranges and records', async () => {
    const cache = createMemoryAnalyticsCache(logger);
    for (let i = 0; i < 1_000; i++) await cache.set(`proj:range-${i}`, { rows: [] } as never, 1_000);
    const jobs = createMemoryJobStore(logger);
    for (let i = 0; i < 50; i++) await jobs.linkThread('C1', `${i}.0`, `job_${i}`);
    expect(entriesOf(cache)).toBe(MEMORY_ANALYTICS_CACHE_ENTRIES);
    // Thread links live 30 days; a day later they are still there, ranges a second old are gone.
    await vi.advanceTimersByTimeAsync(24 * 60 * 60 * 1000);
    expect(entriesOf(cache)).toBe(0);
    expect(entriesOf(jobs)).toBe(50);
    await vi.advanceTimersByTimeAsync(30 * 24 * 60 * 60 * 1000);
    expect(entriesOf(jobs)).toBe(0);
    await keyvOf(cache).disconnect();
    await keyvOf(jobs).disconnect();
  });
});
