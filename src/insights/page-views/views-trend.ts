import { AnalyticsBudgetError, type AnalyticsKey, type AnalyticsSource } from '../analytics-source.js';
import { chartFits, planBuckets, readMissing } from '../bucket-reads.js';
import type { ChartFill } from '../chart-fill.js';
import type { PageViewsApi, PageViewsTotals, RangePageViews } from '../ports.js';
import { chartBuckets, type DayBucket, shiftBuckets } from '../ranges/buckets.js';
import { type DateRange, daysBetween } from '../ranges/dates.js';
import { apiBounds } from '../ranges/zone-instants.js';

/** Views per bucket of days (one bucket per chart point), human and AI apart. */
export interface TrendSeries {
  buckets: DayBucket[];
  human: number[];
  ai: number[];
  /** The API's site-wide total per bucket (the period before's sum stands in for its totals read). */
  total?: number[];
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
  /** Where a chart too big to draw with its report is filled in the background. */
  fill?: ChartFill;
}

/** A chart, or why there is none this time and how many reads it lacks. */
export type ChartOutcome<T> = { trend: T } | { missing: 'budget' | 'later'; reads: number };

/**
 * Daily views for charts: one totals-only request (`limit=1`) per bucket, cached under the same key as any
 * other totals read of that range, and for good once the bucket is before yesterday. The reads a chart
 * lacks are made with the report when they fit (`chartFits`); a chart that needs more than a fifth of the
 * hourly budget is queued for the background fill instead and drawn by later reports.
 */
export class ViewsTrends {
  constructor(private readonly o: ViewsTrendsOptions) {}

  /** The trend of `range`, fetching what the cache lacks when it fits; else why not. */
  async trend(range: DateRange, projectId: string): Promise<ChartOutcome<ViewsTrend>> {
    const { current, previous } = layout(range);
    const plan = await planBuckets<RangePageViews>(this.o.source, [...current, ...(previous ?? [])], {
      timeZone: range.timeZone,
      now: this.o.now,
      unitsPerRead: 1,
      keyOf: (r) => this.o.keyOf('totals', r, projectId),
      fetch: (r, budget) => this.fetchTotals(r, projectId, budget),
    });
    const fits = await chartFits(this.o.source, plan.missing.length);
    if (fits !== 'now') {
      if (fits === 'later') this.o.fill?.add(plan.missing.map((m) => m.read));
      return { missing: fits, reads: plan.missing.length };
    }
    const values = await readMissing(this.o.source, plan);
    return {
      trend: split(
        values.map((v) => v.totals),
        current,
        previous,
      ),
    };
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
    return {
      buckets,
      human: part.map((t) => t.human),
      ai: part.map((t) => t.ai),
      total: part.map((t) => t.total),
    };
  };
  const trend: ViewsTrend = { current: series(current, 0) };
  if (previous) trend.previous = series(previous, current.length);
  return trend;
}
