import { AppError, describeError } from '../common/errors.js';
import type { HourlyQuota } from '../common/hourly-quota.js';
import { LazyMap } from '../common/lazy-collections.js';
import type { Logger } from '../common/logger.js';
import { LoopTurns } from '../common/loop-turns.js';
import type { AnalyticsCache } from './ports.js';

export class AnalyticsBudgetError extends AppError<'analytics_budget_exhausted'> {
  constructor(readonly retryAfterMs: number) {
    super('analytics_budget_exhausted', 'The hourly analytics request budget is used up');
  }
}

/** What one analytics read is: the endpoint, the project, the range as the API sees it, and any parameters. */
export interface AnalyticsKey {
  /** `views`, `totals`, `searches`, … : one name per kind of read. */
  endpoint: string;
  projectId: string;
  /** The instants the API is asked for, e.g. `2025-03-03T00:00:00Z..2025-03-10T00:00:00Z`. */
  range: string;
  params?: Record<string, string | number | boolean | undefined>;
}

/** `endpoint:project:range[?a=1&b=2]`, parameters sorted so equal reads share one key. */
export function analyticsCacheKey(key: AnalyticsKey): string {
  const params = Object.entries(key.params ?? {})
    .filter(([, value]) => value !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}=${String(value)}`)
    .join('&');
  return `${key.endpoint}:${key.projectId}:${key.range}${params ? `?${params}` : ''}`;
}

export interface ReadOptions {
  /**
   * How long this value is kept (default: the source's TTL). Analytics of a day that can no longer change
   * is kept for good (`FINAL_TTL_MS`); a lifetime set here holds even with report caching off (TTL 0).
   */
  ttlMs?: number;
}

/** "For good" for a past day's analytics: longer than any range anyone asks for (the bot reads ≤ 1 year). */
export const FINAL_TTL_MS = 400 * 24 * 60 * 60 * 1000;

export interface AnalyticsSourceOptions {
  cache: AnalyticsCache;
  /** The organisation's analytics budget: a rolling hour shared by every analytics endpoint (and replica). */
  budget: HourlyQuota;
  logger: Logger;
  /** 0 turns caching off. */
  cacheTtlMs: number;
  /** The budget's size per hour (ANALYTICS_HOURLY_BUDGET, default 100): charts take a share of it. */
  hourlyLimit?: number;
}

/**
 * The one way to read any analytics endpoint: from the cache, else joined to an identical read already
 * running, else refused up front when the budget cannot cover the estimate, else fetched and cached. A
 * failed fetch is not cached. The fetch itself still takes one budget unit per request (`budget`).
 */
export class AnalyticsSource {
  private readonly inFlight = new LazyMap<string, Promise<unknown>>();
  /** Turns of the event loop for the readers joined to one fetch (state per source, as every tenant's). */
  private readonly turns = new LoopTurns();

  constructor(private readonly o: AnalyticsSourceOptions) {}

  /** The budget every fetch takes its units from. */
  get budget(): HourlyQuota {
    return this.o.budget;
  }

  /** Units the budget holds per hour. */
  get hourlyLimit(): number {
    return this.o.hourlyLimit ?? 100;
  }

  /** The cached value, or undefined: no API call, no budget. Cache failures read as misses. */
  async peek<T>(key: AnalyticsKey): Promise<T | undefined> {
    return this.cached<T>(analyticsCacheKey(key));
  }

  /**
   * The value of `key`: cached, shared, or fetched once `estimate` units are free (else
   * `AnalyticsBudgetError` with the time they will be, before any request).
   */
  async read<T>(
    key: AnalyticsKey,
    estimate: number,
    fetch: (budget: HourlyQuota) => Promise<T>,
    options: ReadOptions = {},
  ): Promise<T> {
    const cacheKey = analyticsCacheKey(key);
    const hit = await this.cached<T>(cacheKey);
    if (hit !== undefined) return hit;
    const running = this.inFlight.get(cacheKey);
    if (running) return this.joined(running as Promise<T>);
    // Registered before the first await, so every concurrent caller finds it.
    const fetching = this.fetchAndStore(cacheKey, estimate, fetch, options.ttlMs).finally(() =>
      this.inFlight.delete(cacheKey),
    );
    this.inFlight.set(cacheKey, fetching);
    return fetching;
  }

  /**
   * A read joined to one already running: its value, each joiner continuing in a turn of its own. Hundreds
   * wait on one fetch at times (every `/docs-views` of a range), and would otherwise all render and answer in
   * one synchronous run when it ends, while acknowledgements wait (issue 43).
   */
  private async joined<T>(running: Promise<T>): Promise<T> {
    const value = await running;
    await this.turns.take();
    return value;
  }

  private async fetchAndStore<T>(
    cacheKey: string,
    estimate: number,
    fetch: (budget: HourlyQuota) => Promise<T>,
    ttlMs: number | undefined,
  ): Promise<T> {
    if ((await this.o.budget.remaining()) < estimate) {
      throw new AnalyticsBudgetError(await this.o.budget.waitTime(estimate));
    }
    const value = await fetch(this.o.budget);
    await this.store(cacheKey, value, ttlMs);
    return value;
  }

  private async cached<T>(cacheKey: string): Promise<T | undefined> {
    try {
      return (await this.o.cache.get(cacheKey)) as T | undefined;
    } catch (error) {
      this.o.logger.warn({ error: describeError(error) }, 'analytics cache read failed; fetching');
      return undefined;
    }
  }

  private async store(cacheKey: string, value: unknown, ttlMs = this.o.cacheTtlMs): Promise<void> {
    // A read that sets its own lifetime keeps it even with report caching off (ANALYTICS_CACHE_TTL_MS=0).
    if (ttlMs <= 0) return;
    await this.o.cache.set(cacheKey, value, ttlMs).catch((error: unknown) => {
      this.o.logger.warn({ error: describeError(error) }, 'analytics cache write failed');
    });
  }
}
