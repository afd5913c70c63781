import { z } from 'zod';
import type { Clock } from '../../common/clock.js';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { AnalyticsBudgetError, type AnalyticsKey, type AnalyticsSource } from '../analytics-source.js';
import type { PageViewsApi, PageViewsTotals, RangePageViews, ReportPublisher } from '../ports.js';
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
import { buildReport, type PageViewsReport, type ReportRequest, toCsv } from './report.js';

export interface PageViewsReportsOptions {
  api: PageViewsApi;
  /** The shared budget, cache and in-flight sharing of every analytics endpoint. */
  source: AnalyticsSource;
  publisher: Pick<ReportPublisher, 'postReport' | 'uploadCsv'>;
  clock: Clock;
  logger: Logger;
  projectId: string;
  maxPages: number;
}

/**
 * Page-view reports: each range is fetched once (every page, sorted client-side) through the analytics
 * source, which caches it by project and range, guards the organisation's hourly budget and lets
 * concurrent requests share one fetch, so several channels' weekly posts cost one set of requests.
 */
export class PageViewsReports {
  /** Requests the last full fetch needed: the estimate for the next one, so budget refusals come first. */
  private lastFetchRequests = 1;

  constructor(private readonly o: PageViewsReportsOptions) {}

  now(): number {
    return this.o.clock.now();
  }

  /** Resolves the user's range in a time zone (UTC for ad-hoc reports). */
  requestFor(params: ReportParams, timeZone = 'UTC', nowMs = this.now()): ReportRequest {
    return {
      range: resolveRange(params.range, nowMs, timeZone),
      label: describeSpec(params.range),
      timeZone,
      top: params.top,
      prefix: params.prefix,
    };
  }

  async report(request: ReportRequest): Promise<PageViewsReport> {
    const previousRange = previousPeriod(request.range);
    const needsPrevious = !(await this.o.source.peek<RangePageViews>(this.key('totals', previousRange)));
    const current = await this.views(request.range, needsPrevious ? 1 : 0);
    const previous = await this.totals(previousRange).catch((error: unknown) => {
      // The comparison is a nicety: the report still stands without it.
      this.o.logger.warn({ error: describeError(error) }, 'could not fetch previous-period totals');
      return undefined;
    });
    return buildReport(request, current, previous);
  }

  /**
   * The report when everything it needs is already cached (no API call, no budget), else undefined: lets
   * the command answer in its acknowledgement instead of a second request to Slack.
   */
  async cachedReport(request: ReportRequest): Promise<PageViewsReport | undefined> {
    const previousRange = previousPeriod(request.range);
    const current = await this.o.source.peek<RangePageViews>(this.key('views', request.range));
    if (!current) return undefined;
    const previous =
      (await this.o.source.peek<RangePageViews>(this.key('views', previousRange))) ??
      (await this.o.source.peek<RangePageViews>(this.key('totals', previousRange)));
    if (!previous) return undefined;
    return buildReport(request, current, previous.totals);
  }

  async csv(request: ReportRequest): Promise<{ filename: string; title: string; content: string }> {
    const views = await this.views(request.range, 0);
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
  async publish(channelId: string, request: ReportRequest, requestedBy?: string): Promise<PageViewsReport> {
    const report = await this.report(request);
    await this.o.publisher.postReport(channelId, report, requestedBy ? { requestedBy } : {});
    return report;
  }

  async uploadCsv(channelId: string, request: ReportRequest, requestedBy: string): Promise<void> {
    const file = await this.csv(request);
    await this.o.publisher.uploadCsv({ channelId, requestedBy, ...file });
  }

  /** Every page of a range, from the cache or fetched once. `extra` requests are budgeted alongside. */
  async views(range: DateRange, extra = 0): Promise<RangePageViews> {
    return this.o.source.read(this.key('views', range), this.lastFetchRequests + extra, async (budget) => {
      const views = await fetchRangeViews(this.o.api, range, {
        maxPages: this.o.maxPages,
        budget,
        now: () => this.now(),
      });
      this.lastFetchRequests = views.requests;
      this.o.logger.info(
        { range, requests: views.requests, pages: views.pages.length, partial: views.partial },
        'fetched page views',
      );
      return views;
    });
  }

  /** Site-wide totals of a range: from a cached full fetch, or one `limit=1` request. */
  async totals(range: DateRange): Promise<PageViewsTotals> {
    const full = await this.o.source.peek<RangePageViews>(this.key('views', range));
    if (full) return full.totals;
    const fetched = await this.o.source.read<RangePageViews>(this.key('totals', range), 1, async (budget) => {
      const slot = await budget.take();
      if (!slot.ok) throw new AnalyticsBudgetError(slot.retryAfterMs);
      const page = await this.o.api.getPageViews({ ...apiBounds(range), limit: 1, offset: 0 });
      return { range, totals: page.totals, pages: [], partial: true, requests: 1, fetchedAt: this.now() };
    });
    return fetched.totals;
  }

  private key(endpoint: 'views' | 'totals', range: DateRange): AnalyticsKey {
    return { endpoint, projectId: this.o.projectId, range: rangeKey(range) };
  }
}

/** The instants the API is asked for: the same days in two time zones are two different spans. */
function rangeKey(range: DateRange): string {
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
