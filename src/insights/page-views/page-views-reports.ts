import { z } from 'zod';
import type { Clock } from '../../common/clock.js';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { AnalyticsBudgetError, type AnalyticsKey, type AnalyticsSource } from '../analytics-source.js';
import type { ChartFill } from '../chart-fill.js';
import type {
  PageViewsApi,
  PageViewsTotals,
  PostContext,
  RangePageViews,
  ReportPublisher,
} from '../ports.js';
import {
  type DateRange,
  describeSpec,
  isValidDate,
  isValidTimeZone,
  previousPeriod,
  resolveRange,
} from '../ranges/dates.js';
import { MAX_TOP, type ReportParams } from '../ranges/grammar.js';
import { apiBounds } from '../ranges/zone-instants.js';
import { fetchRangeViews, PAGE_SIZE } from './fetch-page-views.js';
import { buildReport, type PagesByPath, type PageViewsReport, type ReportRequest, toCsv } from './report.js';
import { type ViewsTrend, ViewsTrends } from './views-trend.js';

/** Which project a channel reads (`ProjectDirectory` fits). */
export interface AnalyticsProjects {
  readonly defaultProjectId: string;
  readonly isMulti: boolean;
  projectFor(channelId: string | null | undefined): string;
}

export interface PageViewsReportsOptions {
  /** The page-views endpoint of one project (one admin key serves every project). */
  apiFor(projectId: string): PageViewsApi;
  /** The shared budget, cache and in-flight sharing of every analytics endpoint. */
  source: AnalyticsSource;
  publisher: Pick<ReportPublisher, 'postReport' | 'uploadCsv'>;
  clock: Clock;
  logger: Logger;
  projects: AnalyticsProjects;
  maxPages: number;
  /** Daily views for a chart on every report (REPORT_CHARTS); absent or false: tables only. */
  charts?: boolean;
  /** Fills charts too big to draw with their report, in the background. */
  fill?: ChartFill;
}

/**
 * Page-view reports: each range is fetched once (every page, sorted client-side) through the analytics
 * source, which caches it by project and range, guards the organisation's hourly budget and lets
 * concurrent requests share one fetch, so several channels' weekly posts cost one set of requests.
 */
export class PageViewsReports {
  /** Requests the last full fetch needed: the estimate for the next one, so budget refusals come first. */
  private lastFetchRequests = 1;
  private readonly trends: ViewsTrends | undefined;
  private readonly byPath: PagesByPath = new WeakMap();

  constructor(private readonly o: PageViewsReportsOptions) {
    this.trends =
      o.charts !== true
        ? undefined
        : new ViewsTrends({
            source: o.source,
            apiFor: o.apiFor,
            now: () => this.now(),
            keyOf: (endpoint, range, projectId) => this.key(endpoint, range, projectId),
            ...(o.fill ? { fill: o.fill } : {}),
          });
  }

  now(): number {
    return this.o.clock.now();
  }

  /** Resolves the user's range in a time zone (UTC for ad-hoc reports), for the channel's project. */
  requestFor(params: ReportParams, timeZone = 'UTC', nowMs = this.now(), channelId?: string): ReportRequest {
    return this.inChannel(
      {
        range: resolveRange(params.range, nowMs, timeZone),
        label: describeSpec(params.range),
        timeZone,
        top: params.top,
        prefix: params.prefix,
      },
      channelId,
    );
  }

  /** The request for the channel's project (a decoded button value carries none). */
  inChannel(request: ReportRequest, channelId: string | undefined): ReportRequest {
    return { ...request, projectId: this.o.projects.projectFor(channelId) };
  }

  async report(request: ReportRequest): Promise<PageViewsReport> {
    const previousRange = previousPeriod(request.range);
    const needsPrevious = !(await this.peekPeriod(previousRange, request.projectId));
    // The report's own reads come first: its chart never costs it its answer.
    const current = await this.views(request.range, needsPrevious ? 1 : 0, request.projectId);
    const chart = await this.chart(request);
    // One read of the period before gives its totals and its pages for "vs last period".
    const before = await this.periodViews(previousRange, request.projectId).catch((error: unknown) => {
      // The comparison is a nicety: the report still stands without it.
      this.o.logger.warn({ error: describeError(error) }, 'could not fetch the previous period');
      return undefined;
    });
    // With the period before beside the chart, its days add up to the period's totals.
    const previous = (chart.trend?.previous?.total ? sumTotals(chart.trend) : undefined) ?? before?.totals;
    return this.named(request, { ...buildReport(request, current, previous, before, this.byPath), ...chart });
  }

  /**
   * Reads queued for charts too big to draw with their report, started once the report is out (the edge
   * calls this after answering; `publish` after posting).
   */
  fillCharts(): void {
    this.o.fill?.run();
  }

  private async chart(
    request: ReportRequest,
  ): Promise<Pick<PageViewsReport, 'trend' | 'chartMissing' | 'chartReads'>> {
    if (!this.trends) return {};
    const outcome = await this.trends
      .trend(request.range, this.projectOf(request))
      .catch((error: unknown) => {
        // The chart adds to the report and never holds it back.
        this.o.logger.warn({ error: describeError(error) }, 'could not fetch daily views for the chart');
        return { missing: 'unavailable' as const, reads: 0 };
      });
    if ('trend' in outcome) return { trend: outcome.trend };
    this.o.logger.info(
      { range: request.range, chartMissing: outcome.missing, reads: outcome.reads },
      'report goes out without its chart',
    );
    return { chartMissing: outcome.missing, ...(outcome.reads > 0 ? { chartReads: outcome.reads } : {}) };
  }

  /** Names the project on the report when there is more than one to tell apart. */
  private named(request: ReportRequest, report: PageViewsReport): PageViewsReport {
    return this.o.projects.isMulti ? { ...report, project: this.projectOf(request) } : report;
  }

  private projectOf(request: Pick<ReportRequest, 'projectId'>): string {
    return request.projectId ?? this.o.projects.defaultProjectId;
  }

  async csv(request: ReportRequest): Promise<{ filename: string; title: string; content: string }> {
    const views = await this.views(request.range, 0, request.projectId);
    const { from, toExclusive } = request.range;
    const prefixPart = request.prefix
      ? `-${request.prefix.replace(/[^A-Za-z0-9_-]+/g, '_').replace(/^_+/, '')}`
      : '';
    return {
      filename: `page-views-${from}-to-${toExclusive}-exclusive${prefixPart}.csv`,
      title: `Page views ${from} to ${toExclusive} (exclusive)${request.prefix ? ` under ${request.prefix}` : ''}`,
      content: toCsv(views.pages, request.prefix),
    };
  }

  /** Posts a report in a channel (the "Post to channel" button and weekly posts). */
  async publish(
    channelId: string,
    request: ReportRequest,
    requestedBy?: string,
    once?: string,
    weekly?: PostContext['weekly'],
  ): Promise<PageViewsReport> {
    const report = await this.report(request);
    await this.o.publisher.postReport(channelId, report, {
      ...(requestedBy ? { requestedBy } : {}),
      ...(once ? { once } : {}),
      ...(weekly ? { weekly } : {}),
    });
    this.fillCharts();
    return report;
  }

  async uploadCsv(channelId: string, request: ReportRequest, requestedBy: string): Promise<void> {
    const file = await this.csv(request);
    await this.o.publisher.uploadCsv({ channelId, requestedBy, ...file });
  }

  /**
   * Every page of a range of a project (absent: the default), from the cache or fetched once. `extra`
   * requests are budgeted alongside.
   */
  async views(range: DateRange, extra = 0, projectId?: string): Promise<RangePageViews> {
    const key = this.key('views', range, projectId);
    return this.o.source.read(key, this.lastFetchRequests + extra, async (budget) => {
      const views = await fetchRangeViews(this.o.apiFor(key.projectId), range, {
        maxPages: this.o.maxPages,
        budget,
        now: () => this.now(),
      });
      this.lastFetchRequests = views.requests;
      this.o.logger.info(
        {
          range,
          projectId: key.projectId,
          requests: views.requests,
          pages: views.pages.length,
          partial: views.partial,
        },
        'fetched page views',
      );
      return views;
    });
  }

  /** A range's views as read already (every page, or its first page), without a read of its own. */
  private async peekPeriod(range: DateRange, projectId?: string): Promise<RangePageViews | undefined> {
    return (
      (await this.o.source.peek<RangePageViews>(this.key('views', range, projectId))) ??
      (await this.o.source.peek<RangePageViews>(this.key('views-first', range, projectId)))
    );
  }

  /**
   * A range's totals and pages: from a cached full fetch, or one request of the API's largest page (its
   * first 250 rows, `partial` when there are more).
   */
  async periodViews(range: DateRange, projectId?: string): Promise<RangePageViews> {
    const full = await this.o.source.peek<RangePageViews>(this.key('views', range, projectId));
    if (full) return full;
    const key = this.key('views-first', range, projectId);
    return this.o.source.read<RangePageViews>(key, 1, async (budget) => {
      const slot = await budget.take();
      if (!slot.ok) throw new AnalyticsBudgetError(slot.retryAfterMs);
      const page = await this.o
        .apiFor(key.projectId)
        .getPageViews({ ...apiBounds(range), limit: PAGE_SIZE, offset: 0 });
      const pages = page.views.map(({ path, human, ai, total }) => ({ path, human, ai, total }));
      return { range, totals: page.totals, pages, partial: page.hasMore, requests: 1, fetchedAt: this.now() };
    });
  }

  private key(
    endpoint: 'views' | 'views-first' | 'totals',
    range: DateRange,
    projectId?: string,
  ): AnalyticsKey {
    return { endpoint, projectId: this.projectOf({ projectId }), range: rangeKey(range) };
  }
}

/** The period before's totals as the sum of its chart points (each a totals read of its days). */
function sumTotals(trend: ViewsTrend): PageViewsTotals | undefined {
  const before = trend.previous;
  if (!before?.total) return undefined;
  const sum = (values: readonly number[]) => values.reduce((s, v) => s + v, 0);
  return { human: sum(before.human), ai: sum(before.ai), total: sum(before.total) };
}

/** The instants the API is asked for: the same days in two time zones are two different spans. */
export function rangeKey(range: DateRange): string {
  const { dateFrom, dateTo } = apiBounds(range);
  return `${dateFrom}..${dateTo}`;
}

const LABEL_MAX = 40;
const ymd = z.string().refine(isValidDate);
const requestSchema = z.object({
  f: ymd,
  t: ymd,
  l: z.string().max(LABEL_MAX),
  z: z.string().max(64).refine(isValidTimeZone),
  n: z.number().int().min(1).max(MAX_TOP),
  p: z.string().max(200).optional(),
});

/** A report request as a button value (well under Slack's 2,000 characters): the parameters, not the report. */
export function encodeReportRequest(request: ReportRequest): string {
  return JSON.stringify({
    f: request.range.from,
    t: request.range.toExclusive,
    l: request.label.slice(0, LABEL_MAX),
    z: request.timeZone,
    n: request.top,
    ...(request.prefix ? { p: request.prefix } : {}),
  });
}

export function decodeReportRequest(value: string | undefined): ReportRequest | undefined {
  try {
    const parsed = requestSchema.safeParse(JSON.parse(value ?? ''));
    if (!parsed.success || parsed.data.t <= parsed.data.f) return undefined;
    const d = parsed.data;
    const range = { from: d.f, toExclusive: d.t, ...(d.z === 'UTC' ? {} : { timeZone: d.z }) };
    return { range, label: d.l, timeZone: d.z, top: d.n, prefix: d.p };
  } catch {
    return undefined;
  }
}

export { PAGE_SIZE };
