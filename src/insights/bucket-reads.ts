import type { HourlyQuota } from '../common/hourly-quota.js';
import { type AnalyticsKey, type AnalyticsSource, FINAL_TTL_MS } from './analytics-source.js';
import type { DayBucket } from './ranges/buckets.js';
import { addDays, type DateRange, localDate } from './ranges/dates.js';

/**
 * Budget units a chart leaves for everything else: its reads go ahead only while at least this many stay
 * free, so a chart never costs a report (or the next one) its answer. Without them the report goes out
 * without the chart.
 */
export const CHART_BUDGET_RESERVE = 10;

/** How many chart reads run at once: a cold 20-point chart should not take one socket per point. */
const CONCURRENCY = 4;

/**
 * A bucket's days can no longer change once its last day is before yesterday (in the range's time zone):
 * the platform may still be counting yesterday and today.
 */
export function isFinal(bucket: DayBucket, timeZone: string | undefined, nowMs: number): boolean {
  const today = localDate(nowMs, timeZone ?? 'UTC');
  return bucket.toExclusive <= addDays(today, -1);
}

export interface BucketReads<T> {
  values: T[];
  /** Buckets that were not in the cache (each cost `unitsPerRead` or more). */
  fetched: number;
}

/**
 * One value per bucket, each read through the analytics source (cached, shared, budgeted) under its own
 * key: a final bucket for good (`FINAL_TTL_MS`), a recent one for the source's usual TTL. Resolves
 * undefined, before any request, when the misses would leave less than `CHART_BUDGET_RESERVE` units.
 */
export async function readBuckets<T>(
  source: AnalyticsSource,
  buckets: readonly DayBucket[],
  options: {
    timeZone: string | undefined;
    now: () => number;
    /** Budget units one missing bucket costs at least. */
    unitsPerRead: number;
    keyOf(range: DateRange): AnalyticsKey;
    fetch(range: DateRange, budget: HourlyQuota): Promise<T>;
  },
): Promise<BucketReads<T> | undefined> {
  const ranges: DateRange[] = buckets.map((b) =>
    options.timeZone ? { ...b, timeZone: options.timeZone } : b,
  );
  const cached = await Promise.all(ranges.map((r) => source.peek<T>(options.keyOf(r))));
  const misses = cached.filter((value) => value === undefined).length;
  if (misses > 0) {
    const remaining = await source.budget.remaining();
    if (remaining - misses * options.unitsPerRead < CHART_BUDGET_RESERVE) return undefined;
  }
  const values: T[] = new Array(ranges.length);
  const pending = ranges.map((range, i) => ({ range, i })).filter(({ i }) => cached[i] === undefined);
  ranges.forEach((_, i) => {
    if (cached[i] !== undefined) values[i] = cached[i] as T;
  });
  const nowMs = options.now();
  const worker = async () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      const { range, i } = next;
      const ttlMs = isFinal(range, options.timeZone, nowMs) ? FINAL_TTL_MS : undefined;
      values[i] = await source.read<T>(
        options.keyOf(range),
        options.unitsPerRead,
        (budget) => options.fetch(range, budget),
        ttlMs === undefined ? {} : { ttlMs },
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, pending.length) }, worker));
  return { values, fetched: misses };
}
