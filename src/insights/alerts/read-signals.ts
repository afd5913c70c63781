import { AnalyticsBudgetError, type AnalyticsSource } from '../analytics-source.js';
import type { Evidence } from '../health/evidence.js';
import { evidenceKey } from '../health/evidence.js';
import { fetchHealthWindow } from '../health/fetch-health.js';
import type { HealthApi } from '../health/ports.js';
import { fetchRangeViews } from '../page-views/fetch-page-views.js';
import type { PageViewsApi, RangePageViews } from '../ports.js';
import { type DaySignals, daySignals, type SignalKind, windowEvidence } from './signals.js';

/** Pages of page views an alert read follows (250 rows each): the top pages are on the first. */
export const ALERT_VIEW_PAGES = 2;

export interface SignalReadOptions {
  source: AnalyticsSource;
  health: HealthApi;
  views: PageViewsApi;
  projectId: string;
  maxPages: number;
  now: () => number;
}

/** Calls one past day costs at least: searches, 👎 by page, assistant, page views. */
export const PAST_DAY_CALLS = 4;
/** Calls one interval's read of today costs at least: the same four and the feedback comments. */
export const TODAY_CALLS = 5;

const nextDay = (day: string) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);

/** Page views of `[dateFrom, dateTo)` through the shared source (budget, cache, in-flight sharing). */
function readViews(o: SignalReadOptions, dateFrom: string, dateTo: string): Promise<RangePageViews> {
  const range = { from: dateFrom, toExclusive: dateTo };
  return o.source.read(
    { endpoint: 'views', projectId: o.projectId, range: `${dateFrom}..${dateTo}`, params: { alert: 1 } },
    1,
    (budget) =>
      // A range without a zone: `apiBounds` passes its day strings or instants through as the API takes them.
      fetchRangeViews(o.views, range, {
        maxPages: Math.min(o.maxPages, ALERT_VIEW_PAGES),
        budget,
        now: o.now,
      }),
  );
}

/** One full past day (UTC) of every signal: what the baseline is made of. A past day never changes. */
export async function readPastDay(o: SignalReadOptions, day: string): Promise<DaySignals> {
  const window = await fetchHealthWindow(
    o.health,
    { dateFrom: day, dateTo: nextDay(day) },
    {
      source: o.source,
      projectId: o.projectId,
      maxPages: o.maxPages,
      parts: ['searches', 'pages', 'conversations'],
    },
  );
  const views = await readViews(o, day, nextDay(day));
  return daySignals(day, window, views);
}

/** Today's signals: today (UTC) so far for the counts, the last 24 hours for page views; with evidence. */
export interface TodaySignals {
  signals: DaySignals;
  /** The row `/docs-health` would show for a signal today (traffic: the page's 👎 row, or one naming it). */
  evidenceFor(kind: SignalKind, key: string): Evidence | undefined;
}

/**
 * Today as of `tickMs`, read once per interval for every channel of the project: the window ends at the
 * interval's instant, so each interval is a new read (and the same read for every channel and replica).
 */
export async function readToday(o: SignalReadOptions, tickMs: number): Promise<TodaySignals> {
  const at = new Date(tickMs).toISOString();
  const day = at.slice(0, 10);
  if ((await o.source.budget.remaining()) < 5) {
    throw new AnalyticsBudgetError(await o.source.budget.waitTime(5));
  }
  const window = await fetchHealthWindow(
    o.health,
    { dateFrom: day, dateTo: at },
    { source: o.source, projectId: o.projectId, maxPages: o.maxPages },
  );
  const views = await readViews(o, new Date(tickMs - 86_400_000).toISOString(), at);
  const signals = daySignals(day, window, views);
  const evidence = new Map<string, Evidence>();
  const rows = windowEvidence(window);
  for (const row of [...rows.search, ...rows.page, ...rows.question]) {
    evidence.set(`${row.kind}:${evidenceKey(row)}`, row);
  }
  return {
    signals,
    evidenceFor: (kind, key) =>
      kind === 'traffic'
        ? (evidence.get(`page:${key}`) ?? pageRow(key, day, nextDay(day)))
        : evidence.get(`${kind}:${key}`),
  };
}

const pageRow = (path: string, from: string, toExclusive: string): Evidence => ({
  kind: 'page',
  path,
  thumbsDown: 0,
  thumbsUp: 0,
  comments: [],
  range: { from, toExclusive },
});
