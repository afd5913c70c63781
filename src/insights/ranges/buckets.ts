import { addDays, type DateRange, daysBetween } from './dates.js';

/** Slack's `data_visualization` takes at most 20 x-axis categories: a chart's range is cut into that many. */
export const MAX_CHART_POINTS = 20;

/** Consecutive whole days `[from, toExclusive)`: one point of a chart. */
export interface DayBucket {
  from: string;
  toExclusive: string;
}

/** Whole days since 1970-01-05, a Monday: buckets of 7 days start on Mondays. */
const gridDay = (ymd: string) => daysBetween('1970-01-05', ymd);

/**
 * The days a bucket holds for a range of `dayCount` days, so that it never needs more than `max` buckets
 * wherever the grid falls: single days up to 20 days, pairs up to 39, weeks up to 134 (90 days → 13 or 14
 * weeks), then multiples of a week.
 */
export function bucketDays(dayCount: number, max = MAX_CHART_POINTS): number {
  const fits = (size: number) => Math.ceil((dayCount + size - 1) / size) <= max;
  if (fits(1)) return 1;
  if (fits(2)) return 2;
  for (let weeks = 1; ; weeks += 1) if (fits(7 * weeks)) return 7 * weeks;
}

/**
 * A range cut into at most `max` buckets on a fixed calendar grid (pairs of days, weeks from Monday), the
 * first and last cut by the range. On a grid, a range that moves by a day keeps all but its edge buckets:
 * each bucket is one totals read, and a past one is cached for good, so a moving range costs 1–2 reads.
 */
export function chartBuckets(
  range: Pick<DateRange, 'from' | 'toExclusive'>,
  max = MAX_CHART_POINTS,
): DayBucket[] {
  const dayCount = daysBetween(range.from, range.toExclusive);
  if (dayCount <= 0) return [];
  const size = bucketDays(dayCount, max);
  const buckets: DayBucket[] = [];
  let from = range.from;
  while (from < range.toExclusive) {
    const offset = ((gridDay(from) % size) + size) % size;
    const end = addDays(from, size - offset);
    const toExclusive = end < range.toExclusive ? end : range.toExclusive;
    buckets.push({ from, toExclusive });
    from = toExclusive;
  }
  return buckets;
}

/** The same buckets moved `days` earlier (the previous period's point beside each of this period's). */
export function shiftBuckets(buckets: readonly DayBucket[], days: number): DayBucket[] {
  return buckets.map((b) => ({ from: addDays(b.from, -days), toExclusive: addDays(b.toExclusive, -days) }));
}
