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

/** A chart whose missing reads are more than this share of the hourly budget is not drawn now. */
export const CHART_NOW_SHARE = 1 / 5;

/** Why a report that should have a chart has none (see `chartFits`; `unavailable`: a read failed). */
export type ChartMissing = 'budget' | 'later' | 'unavailable';

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

/** One analytics read a chart still lacks: made with the report, or later by `ChartFill`. */
export interface ChartRead {
  key: AnalyticsKey;
  /** Budget units it takes at least. */
  estimate: number;
  fetch(budget: HourlyQuota): Promise<unknown>;
  /** Kept for good once its days are final (`FINAL_TTL_MS`), else the source's usual TTL. */
  ttlMs?: number;
}

/** What the cache holds for each bucket, and the reads of the buckets it lacks. */
export interface BucketPlan<T> {
  values: Array<T | undefined>;
  missing: Array<{ index: number; read: ChartRead }>;
}

/**
 * Each bucket's value from the cache (no request, no budget), and for every miss the read that would fetch
 * it under its own key: a final bucket kept for good, a recent one for the source's usual TTL.
 */
export async function planBuckets<T>(
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
): Promise<BucketPlan<T>> {
  const ranges: DateRange[] = buckets.map((b) =>
    options.timeZone ? { ...b, timeZone: options.timeZone } : b,
  );
  const values = await Promise.all(ranges.map((r) => source.peek<T>(options.keyOf(r))));
  const nowMs = options.now();
  const missing = ranges.flatMap((range, index) =>
    values[index] !== undefined
      ? []
      : [
          {
            index,
            read: {
              key: options.keyOf(range),
              estimate: options.unitsPerRead,
              fetch: (budget: HourlyQuota) => options.fetch(range, budget),
              ...(isFinal(range, options.timeZone, nowMs) ? { ttlMs: FINAL_TTL_MS } : {}),
            },
          },
        ],
  );
  return { values, missing };
}

/** The plan's missing buckets read now (a few at a time), through the source: every value filled in. */
export async function readMissing<T>(source: AnalyticsSource, plan: BucketPlan<T>): Promise<T[]> {
  const values = [...plan.values];
  const pending = [...plan.missing];
  const worker = async () => {
    for (let next = pending.shift(); next; next = pending.shift()) {
      values[next.index] = await readNow<T>(source, next.read);
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, pending.length) }, worker));
  return values as T[];
}

/** One chart read through the source (cached, shared, budgeted). */
export function readNow<T>(source: AnalyticsSource, read: ChartRead): Promise<T> {
  return source.read<T>(
    read.key,
    read.estimate,
    (budget) => read.fetch(budget) as Promise<T>,
    read.ttlMs === undefined ? {} : { ttlMs: read.ttlMs },
  );
}

/**
 * Whether a chart may spend `units` with its report: never the last `CHART_BUDGET_RESERVE` units (`budget`:
 * the hour is nearly used up), and at most a fifth of the hourly budget (`CHART_NOW_SHARE`; `later`: too
 * big to draw now, filled in the background for later reports).
 */
export async function chartFits(source: AnalyticsSource, units: number): Promise<'now' | 'later' | 'budget'> {
  if (units === 0) return 'now';
  if ((await source.budget.remaining()) - units < CHART_BUDGET_RESERVE) return 'budget';
  return units > Math.floor(source.hourlyLimit * CHART_NOW_SHARE) ? 'later' : 'now';
}
