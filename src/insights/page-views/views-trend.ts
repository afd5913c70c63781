import { AnalyticsBudgetError, type AnalyticsKey, type AnalyticsSource } from '../analytics-source.js';
import { readBuckets } from '../bucket-reads.js';
import type { PageViewsApi, PageViewsTotals, RangePageViews } from '../ports.js';
import { chartBuckets, type DayBucket, shiftBuckets } from '../ranges/buckets.js';
import { type DateRange, daysBetween } from '../ranges/dates.js';
import { apiBounds } from '../ranges/zone-instants.js';

/** Views per bucket of days (one bucket per chart point), human and AI apart. */
export interface TrendSeries {
  buckets: DayBucket[];
  human: number[];
  ai: number[];
}

/** A report's daily views, and the previous period's beside them for a week or a month. */
export interface ViewsTrend {
  current: TrendSeries;
  previous?: TrendSeries;
}

/** The previous period goes beside a week (7 days) or a month (28 to 31 days), where it reads as one. */
export function comparesPrevious(range: Pick<DateRange, 'from' | 'toExclusive'>): boolean {
  const days = daysBetween(range.from, range.toExclusive);
  return days === 7 || (days >= 28 && days <= 31);
}

export interface ViewsTrendsOptions {
  source: AnalyticsSource;
  apiFor(projectId: string): PageViewsApi;
  now: () => number;
  /** The cache key of a range's totals, shared with the report's own totals reads. */
  keyOf(endpoint: 'totals', range: DateRange, projectId: string): AnalyticsKey;
}

/**
 * Daily views for charts: one totals-only request (`limit=1`) per bucket, cached under the same key as any
 * other totals read of that range, and for good once the bucket is before yesterday.
 */
export class ViewsTrends {
  constructor(private readonly o: ViewsTrendsOptions) {}

  /** The trend of `range`, fetching what the cache lacks; undefined when the budget cannot spare it. */
  async trend(range: DateRange, projectId: string): Promise<ViewsTrend | undefined> {
    const { current, previous } = layout(range);
    const read = await readBuckets(this.o.source, [...current, ...(previous ?? [])], {
      timeZone: range.timeZone,
      now: this.o.now,
      unitsPerRead: 1,
      keyOf: (r) => this.o.keyOf('totals', r, projectId),
      fetch: (r, budget) => this.fetchTotals(r, projectId, budget),
    });
    return (
      read &&
      split(
        read.values.map((v) => v.totals),
        current,
        previous,
      )
    );
  }

  private async fetchTotals(range: DateRange, projectId: string, budget: AnalyticsSource['budget']) {
    const slot = await budget.take();
    if (!slot.ok) throw new AnalyticsBudgetError(slot.retryAfterMs);
    const page = await this.o.apiFor(projectId).getPageViews({ ...apiBounds(range), limit: 1, offset: 0 });
    // The shape of every totals read of a range, so a report of exactly this range reuses it.
    const read: RangePageViews = {
      range,
      totals: page.totals,
      pages: [],
      partial: true,
      requests: 1,
      fetchedAt: this.o.now(),
    };
    return read;
  }
}

function layout(range: DateRange): { current: DayBucket[]; previous: DayBucket[] | undefined } {
  const current = chartBuckets(range);
  const previous = comparesPrevious(range)
    ? shiftBuckets(current, daysBetween(range.from, range.toExclusive))
    : undefined;
  return { current, previous };
}

function split(
  totals: PageViewsTotals[],
  current: DayBucket[],
  previous: DayBucket[] | undefined,
): ViewsTrend {
  const series = (buckets: DayBucket[], from: number): TrendSeries => {
    const part = totals.slice(from, from + buckets.length);
    return { buckets, human: part.map((t) => t.human), ai: part.map((t) => t.ai) };
  };
  const trend: ViewsTrend = { current: series(current, 0) };
  if (previous) trend.previous = series(previous, current.length);
  return trend;
}
