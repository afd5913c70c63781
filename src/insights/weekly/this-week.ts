import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { AnalyticsKey, AnalyticsSource } from '../analytics-source.js';
import type { Evidence, PageEvidence, SearchEvidence } from '../health/evidence.js';
import { fetchHealthWindow } from '../health/fetch-health.js';
import type { HealthReports } from '../health/health-reports.js';
import type { HealthApi } from '../health/ports.js';
import { buildHealthReport, TOP_DEFAULT } from '../health/report.js';
import { type AnalyticsProjects, type PageViewsReports, rangeKey } from '../page-views/page-views-reports.js';
import type { PageViewsTotals, RangePageViews } from '../ports.js';
import {
  addDays,
  type DateRange,
  DEFAULT_RANGE,
  daysBetween,
  previousPeriod,
  resolveRange,
} from '../ranges/dates.js';
import { apiBounds } from '../ranges/zone-instants.js';

/** What Home's "This week in your docs" shows: only what the cache holds (absent: not read yet). */
export interface ThisWeekFacts {
  views?: { current: PageViewsTotals; previous?: PageViewsTotals };
  /** The health report's reads are cached; `gap` absent: readers found what they looked for. */
  health?: { gap?: SearchEvidence | PageEvidence };
}

/** How long one fill keeps others (any replica) from starting another: a failing platform costs one try. */
export const FILL_CLAIM_MS = 10 * 60 * 1000;
/** A fill reads the two totals (one request each) and the health window (one request per endpoint, at least). */
export const FILL_ESTIMATE = 6;

export interface ThisWeekOptions {
  source: Pick<AnalyticsSource, 'peek' | 'budget' | 'hourlyLimit'>;
  projects: Pick<AnalyticsProjects, 'defaultProjectId'>;
  now(): number;
  /** The page cap health reads are keyed by (the same as the health reports'). */
  maxPages: number;
  pageViews: Pick<PageViewsReports, 'periodViews'>;
  health?: Pick<HealthReports, 'report'>;
  /** An atomic claim in the job store (any replica): one background fill at a time per workspace. */
  claim(key: string, ttlMs: number): Promise<boolean>;
  logger: Logger;
}

/** Never called: a cache-only read that found nothing stops before any request (see `peekOnly`). */
const NO_CALLS: HealthApi = {
  getSearches: () => Promise.reject(new Error('cache-only read')),
  getFeedbackByPage: () => Promise.reject(new Error('cache-only read')),
  getFeedback: () => Promise.reject(new Error('cache-only read')),
  getAssistantConversations: () => Promise.reject(new Error('cache-only read')),
};

class NotCached extends Error {}

/**
 * Home's weekly summary, cache-only: the last 7 days (UTC, the workspace's project), as `/docs-views` and
 * `/docs-health` with no arguments read and cache them. Opening Home never costs an analytics request; a
 * Home with nothing cached may start one budgeted fill in the background (`fill`), through the same reads
 * as those commands, so the next open shows it.
 */
export class ThisWeek {
  private filling: Promise<void> | undefined;

  constructor(private readonly o: ThisWeekOptions) {}

  private range(): DateRange {
    return resolveRange(DEFAULT_RANGE, this.o.now(), 'UTC');
  }

  /** What the cache holds for this week; a cache failure reads as nothing cached. */
  async cached(): Promise<ThisWeekFacts> {
    const range = this.range();
    const [current, previous, health] = await Promise.all([
      this.totals(range),
      this.totals(previousPeriod(range)),
      this.health(range),
    ]);
    return {
      ...(current ? { views: { current, ...(previous ? { previous } : {}) } } : {}),
      ...(health ? { health } : {}),
    };
  }

  /**
   * A range's totals: from a report's full read or first-page read of it, else the sum of its days' totals
   * (what a report's chart and the chart fill cache), when every day is there.
   */
  private async totals(range: DateRange): Promise<PageViewsTotals | undefined> {
    const whole = (await this.peekTotals('views', range)) ?? (await this.peekTotals('views-first', range));
    if (whole) return whole;
    const days = Array.from({ length: daysBetween(range.from, range.toExclusive) }, (_, i) => {
      const from = addDays(range.from, i);
      return this.peekTotals('totals', { from, toExclusive: addDays(from, 1) });
    });
    const found = await Promise.all(days);
    if (found.some((day) => day === undefined)) return undefined;
    const sum = (pick: (t: PageViewsTotals) => number) => found.reduce((s, t) => s + pick(t!), 0);
    return { human: sum((t) => t.human), ai: sum((t) => t.ai), total: sum((t) => t.total) };
  }

  private async peekTotals(endpoint: string, range: DateRange): Promise<PageViewsTotals | undefined> {
    const key = { endpoint, projectId: this.o.projects.defaultProjectId, range: rangeKey(range) };
    return (await this.o.source.peek<RangePageViews>(key))?.totals;
  }

  private async health(range: DateRange): Promise<ThisWeekFacts['health']> {
    if (!this.o.health) return undefined;
    // The reads a `/docs-health` report makes, answered from the cache only: the first miss stops them.
    const peekOnly = {
      read: async <T>(key: AnalyticsKey): Promise<T> => {
        const hit = await this.o.source.peek<T>(key);
        if (hit === undefined) throw new NotCached();
        return hit;
      },
    };
    try {
      const window = await fetchHealthWindow(NO_CALLS, apiBounds(range), {
        source: peekOnly,
        projectId: this.o.projects.defaultProjectId,
        maxPages: this.o.maxPages,
      });
      const report = buildHealthReport(window, { top: 1 });
      const gap = topGap(report.searches.rows[0], report.pages.rows[0]);
      return gap ? { gap } : {};
    } catch (error) {
      if (!(error instanceof NotCached))
        this.o.logger.warn({ error: describeError(error) }, "could not read this week's cached health");
      return undefined;
    }
  }

  /**
   * Reads what `cached` lacked, in the background, when the hour's analytics budget has room to spare (half
   * of it stays for people's commands) and no other fill ran in the last 10 minutes. Never throws; resolves
   * whether a fill of this scope is under way (started now or before).
   */
  async fill(): Promise<boolean> {
    if (this.filling) return true;
    try {
      const { budget, hourlyLimit } = this.o.source;
      if ((await budget.remaining()) < FILL_ESTIMATE + Math.ceil(hourlyLimit / 2)) return false;
      const projectId = this.o.projects.defaultProjectId;
      if (!(await this.o.claim(`home-this-week-fill:${projectId}`, FILL_CLAIM_MS))) return false;
    } catch (error) {
      this.o.logger.warn({ error: describeError(error) }, "could not decide on reading this week's numbers");
      return false;
    }
    const range = this.range();
    const health = this.o.health;
    this.filling = Promise.allSettled([
      this.o.pageViews.periodViews(range),
      this.o.pageViews.periodViews(previousPeriod(range)),
      ...(health ? [health.report({ range: DEFAULT_RANGE, top: TOP_DEFAULT })] : []),
    ]).then((results) => {
      this.filling = undefined;
      for (const result of results)
        if (result.status === 'rejected')
          this.o.logger.info(
            { error: describeError(result.reason) },
            "Home: a read of this week's numbers failed",
          );
    });
    return true;
  }
}

/** The gap that touched the most readers: searches that found nothing, or the most-flagged page. */
export function topGap(
  search: SearchEvidence | undefined,
  page: PageEvidence | undefined,
): SearchEvidence | PageEvidence | undefined {
  if (!search) return page;
  if (!page) return search;
  return page.thumbsDown > search.hits ? page : search;
}

export type { Evidence };
