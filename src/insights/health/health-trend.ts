import { cleanUntrusted } from '../../common/untrusted-text.js';
import { AnalyticsBudgetError, type AnalyticsSource, FINAL_TTL_MS } from '../analytics-source.js';
import { chartFits, isFinal, planBuckets, readMissing } from '../bucket-reads.js';
import type { ChartFill } from '../chart-fill.js';
import { comparesPrevious } from '../page-views/views-trend.js';
import { chartBuckets, type DayBucket, shiftBuckets } from '../ranges/buckets.js';
import { type DateRange, daysBetween, localDate } from '../ranges/dates.js';
import { apiBounds } from '../ranges/zone-instants.js';
import { normaliseQuestion } from './evidence.js';
import { fetchHealthWindow, HEALTH_LIMITS } from './fetch-health.js';
import type { AssistantConversation, FeedbackEntry, HealthApi, HealthWindow } from './ports.js';
import { searchGaps } from './report.js';

/** The three reader signals of `/docs-health` per bucket of days (one bucket per chart point). */
export interface HealthTrendSeries {
  buckets: DayBucket[];
  /** Searches that found nothing (hits of the terms without a click that bucket); absent until read. */
  noResults?: number[];
  /** 👎 on pages (readers' contextual feedback marked not helpful). */
  thumbsDown: number[];
  /** Assistant questions left unanswered (each asking counted). */
  unanswered: number[];
}

export interface HealthTrend {
  current: HealthTrendSeries;
  previous?: HealthTrendSeries;
  /** Searches without results per day are being read in the background: this many reads. */
  searchesLater?: number;
}

/**
 * Points of the searches line a report reads itself: the new days of a range that moved on. A range never
 * charted would need one read per day on top of the report's own, so its line is read in the background.
 */
export const SEARCH_POINTS_WITH_REPORT = 2;

interface NoResults {
  noResults: number;
  /** The day had more terms than one page: its count covers the most searched 100. */
  partial: boolean;
}

export interface HealthTrendsOptions {
  source: AnalyticsSource;
  apiFor(projectId: string): HealthApi;
  now: () => number;
  maxPages: number;
  fill?: ChartFill;
}

/**
 * Daily docs-health counts for charts, from what the report already read wherever it can: 👎 and
 * unanswered questions carry their time, so the report's own feedback entries and conversations are split
 * into buckets for free, and the period before costs one read of each (shared with any report of that
 * range). Searches carry no day: each point is one request (the first page of that day's terms), kept for
 * good once final; a report reads at most `SEARCH_POINTS_WITH_REPORT` of them, the rest are filled in the
 * background and the line joins the chart in later reports.
 */
export class HealthTrends {
  constructor(private readonly o: HealthTrendsOptions) {}

  async trend(range: DateRange, projectId: string, window: HealthWindow): Promise<HealthTrend> {
    const current = chartBuckets(range);
    const length = daysBetween(range.from, range.toExclusive);
    const zone = range.timeZone;
    const trend: HealthTrend = { current: fromRows(current, window, zone) };
    const shifted = comparesPrevious(range) ? shiftBuckets(current, length) : undefined;
    const before = shifted && (await this.previousWindow(range, shifted, projectId));
    if (shifted && before) trend.previous = fromRows(shifted, before, zone);

    const buckets = [...current, ...(trend.previous ? (shifted ?? []) : [])];
    const plan = await planBuckets<NoResults>(this.o.source, buckets, {
      timeZone: zone,
      now: this.o.now,
      unitsPerRead: 1,
      keyOf: (r) => ({
        endpoint: 'health-no-results',
        projectId,
        range: rangeKey(r),
        params: { limit: HEALTH_LIMITS.searches },
      }),
      fetch: (r, budget) => this.noResults(r, projectId, budget),
    });
    const few = plan.missing.length <= SEARCH_POINTS_WITH_REPORT;
    if (!few || (await chartFits(this.o.source, plan.missing.length)) !== 'now') {
      this.o.fill?.add(plan.missing.map((m) => m.read));
      return { ...trend, searchesLater: plan.missing.length };
    }
    const values = (await readMissing(this.o.source, plan)).map((v) => v.noResults);
    trend.current.noResults = values.slice(0, current.length);
    if (trend.previous) trend.previous.noResults = values.slice(current.length);
    return trend;
  }

  /** The period before's feedback and conversations (one read each, or none when cached), if they fit. */
  private async previousWindow(
    range: DateRange,
    buckets: DayBucket[],
    projectId: string,
  ): Promise<HealthWindow | undefined> {
    const days = { from: buckets[0]!.from, toExclusive: buckets[buckets.length - 1]!.toExclusive };
    const read = () =>
      fetchHealthWindow(this.o.apiFor(projectId), apiBounds({ ...range, ...days }), {
        source: this.o.source,
        projectId,
        maxPages: this.o.maxPages,
        parts: ['feedback', 'conversations'],
        ...(isFinal(days, range.timeZone, this.o.now()) ? { ttlMs: FINAL_TTL_MS } : {}),
      });
    // One read of each endpoint (none when cached), unless the hour's budget is nearly used up.
    return (await chartFits(this.o.source, 2)) === 'now' ? read() : undefined;
  }

  /** One bucket's searches without results: one request, the first page of its terms (most hits first). */
  private async noResults(
    range: DateRange,
    projectId: string,
    budget: AnalyticsSource['budget'],
  ): Promise<NoResults> {
    const slot = await budget.take();
    if (!slot.ok) throw new AnalyticsBudgetError(slot.retryAfterMs);
    const page = await this.o
      .apiFor(projectId)
      .getSearches({ ...apiBounds(range), limit: HEALTH_LIMITS.searches });
    const days = { from: range.from, toExclusive: range.toExclusive };
    const gaps = searchGaps(page.searches, page.totalSearches, days);
    return { noResults: gaps.reduce((s, g) => s + count(g.hits), 0), partial: Boolean(page.nextCursor) };
  }
}

const count = (value: number) => (Number.isFinite(value) && value > 0 ? value : 0);

function rangeKey(range: DateRange): string {
  const { dateFrom, dateTo } = apiBounds(range);
  return `${dateFrom}..${dateTo}`;
}

/** 👎 and unanswered questions per bucket from a window's own rows. */
function fromRows(
  buckets: DayBucket[],
  window: Pick<HealthWindow, 'feedback' | 'conversations'>,
  timeZone: string | undefined,
): HealthTrendSeries {
  return {
    buckets,
    thumbsDown: thumbsDownPerBucket(window.feedback, buckets, timeZone),
    unanswered: unansweredPerBucket(window.conversations, buckets, timeZone),
  };
}

/** The bucket holding the local day of `at` (an ISO time), or -1. */
function bucketOf(at: string | null | undefined, buckets: readonly DayBucket[], timeZone?: string): number {
  const ms = Date.parse(at ?? '');
  if (!Number.isFinite(ms)) return -1;
  const day = localDate(ms, timeZone ?? 'UTC');
  return buckets.findIndex((b) => b.from <= day && day < b.toExclusive);
}

/**
 * 👎 per bucket by the local day they were given: contextual feedback marked not helpful, what the
 * platform's feedback by page counts as thumbs down. An entry without a readable time is in no bucket.
 */
export function thumbsDownPerBucket(
  feedback: readonly FeedbackEntry[],
  buckets: readonly DayBucket[],
  timeZone: string | undefined,
): number[] {
  const counts = buckets.map(() => 0);
  for (const entry of feedback) {
    if (entry.source !== 'contextual' || entry.helpful !== false) continue;
    const i = bucketOf(entry.createdAt, buckets, timeZone);
    if (i >= 0) counts[i]! += 1;
  }
  return counts;
}

/**
 * Unanswered questions per bucket by the local day they were asked, counted as `/docs-health` counts
 * them (a question with no words is none); one without a readable time is in no bucket.
 */
export function unansweredPerBucket(
  conversations: readonly AssistantConversation[],
  buckets: readonly DayBucket[],
  timeZone: string | undefined,
): number[] {
  const counts = buckets.map(() => 0);
  for (const c of conversations) {
    if (c.resolutionStatus !== 'unanswered' || normaliseQuestion(cleanUntrusted(c.query).text) === '')
      continue;
    const i = bucketOf(c.timestamp, buckets, timeZone);
    if (i >= 0) counts[i]! += 1;
  }
  return counts;
}
