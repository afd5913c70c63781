import { cleanUntrusted } from '../../common/untrusted-text.js';
import { type AnalyticsSource, FINAL_TTL_MS } from '../analytics-source.js';
import { isFinal, readBuckets } from '../bucket-reads.js';
import { comparesPrevious } from '../page-views/views-trend.js';
import { chartBuckets, type DayBucket, shiftBuckets } from '../ranges/buckets.js';
import { type DateRange, daysBetween, localDate } from '../ranges/dates.js';
import { apiBounds } from '../ranges/zone-instants.js';
import { normaliseQuestion } from './evidence.js';
import { fetchHealthWindow } from './fetch-health.js';
import type { AssistantConversation, HealthApi } from './ports.js';
import { flaggedPages, searchGaps } from './report.js';

/** The three reader signals of `/docs-health` per bucket of days (one bucket per chart point). */
export interface HealthTrendSeries {
  buckets: DayBucket[];
  /** Searches that found nothing (hits of the terms without a click that bucket). */
  noResults: number[];
  /** 👎 on pages. */
  thumbsDown: number[];
  /** Assistant questions left unanswered (each asking counted). */
  unanswered: number[];
}

export interface HealthTrend {
  current: HealthTrendSeries;
  previous?: HealthTrendSeries;
}

interface BucketCounts {
  noResults: number;
  thumbsDown: number;
}

export interface HealthTrendsOptions {
  source: AnalyticsSource;
  apiFor(projectId: string): HealthApi;
  now: () => number;
  maxPages: number;
}

/**
 * Daily docs-health counts for charts. Searches and 👎 carry no per-row day, so each bucket is read as its
 * own window (searches and feedback by page: two requests or more), kept for good once before yesterday;
 * unanswered questions carry their time, so one read of the period's conversations (the report's own for
 * the current period) is split into buckets for free.
 */
export class HealthTrends {
  constructor(private readonly o: HealthTrendsOptions) {}

  async trend(
    range: DateRange,
    projectId: string,
    conversations: readonly AssistantConversation[],
  ): Promise<HealthTrend | undefined> {
    const current = chartBuckets(range);
    const length = daysBetween(range.from, range.toExclusive);
    const previous = comparesPrevious(range) ? shiftBuckets(current, length) : undefined;
    const read = await readBuckets<BucketCounts>(this.o.source, [...current, ...(previous ?? [])], {
      timeZone: range.timeZone,
      now: this.o.now,
      unitsPerRead: 2,
      keyOf: (r) => ({
        endpoint: 'health-counts',
        projectId,
        range: rangeKey(r),
        params: { maxPages: this.o.maxPages },
      }),
      fetch: (r) => this.counts(r, projectId),
    });
    if (!read) return undefined;
    const series = (buckets: DayBucket[], from: number, asked: readonly AssistantConversation[]) => ({
      buckets,
      noResults: read.values.slice(from, from + buckets.length).map((c) => c.noResults),
      thumbsDown: read.values.slice(from, from + buckets.length).map((c) => c.thumbsDown),
      unanswered: unansweredPerBucket(asked, buckets, range.timeZone),
    });
    const trend: HealthTrend = { current: series(current, 0, conversations) };
    if (previous) {
      const before = { from: previous[0]!.from, toExclusive: previous[previous.length - 1]!.toExclusive };
      const window = await fetchHealthWindow(this.o.apiFor(projectId), apiBounds({ ...range, ...before }), {
        source: this.o.source,
        projectId,
        maxPages: this.o.maxPages,
        parts: ['conversations'],
        ...(isFinal(before, range.timeZone, this.o.now()) ? { ttlMs: FINAL_TTL_MS } : {}),
      });
      trend.previous = series(previous, current.length, window.conversations);
    }
    return trend;
  }

  /** One bucket's searches without results and 👎, as `/docs-health` counts them for its window. */
  private async counts(range: DateRange, projectId: string): Promise<BucketCounts> {
    const window = await fetchHealthWindow(this.o.apiFor(projectId), apiBounds(range), {
      source: this.o.source,
      projectId,
      maxPages: this.o.maxPages,
      parts: ['searches', 'pages'],
    });
    const days = { from: range.from, toExclusive: range.toExclusive };
    return {
      noResults: searchGaps(window.searches, window.totalSearches, days).reduce(
        (s, g) => s + count(g.hits),
        0,
      ),
      thumbsDown: flaggedPages(window.pages, [], days).reduce((s, p) => s + count(p.thumbsDown), 0),
    };
  }
}

const count = (value: number) => (Number.isFinite(value) && value > 0 ? value : 0);

function rangeKey(range: DateRange): string {
  const { dateFrom, dateTo } = apiBounds(range);
  return `${dateFrom}..${dateTo}`;
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
    const at = Date.parse(c.timestamp ?? '');
    if (!Number.isFinite(at)) continue;
    const day = localDate(at, timeZone ?? 'UTC');
    const i = buckets.findIndex((b) => b.from <= day && day < b.toExclusive);
    if (i >= 0) counts[i]! += 1;
  }
  return counts;
}
