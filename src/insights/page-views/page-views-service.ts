import { z } from 'zod';
import type { Clock } from '../../shared/clock.js';
import { describeError } from '../../shared/errors.js';
import type { HourlyQuota } from '../../shared/hourly-quota.js';
import type { Logger } from '../../shared/logger.js';
import type { PageViewsApi, RangeViews, ReportPublisher, ViewsCache, ViewsTotals } from '../ports.js';
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
import { AnalyticsBudgetError, fetchRangeViews, PAGE_SIZE } from './fetch-page-views.js';
import { buildReport, type ReportRequest, toCsv, type ViewsReport } from './report.js';

export interface AnalyticsServiceOptions {
  api: PageViewsApi;
  cache: ViewsCache;
  /** The organisation's analytics budget: a rolling hour shared by every analytics call (and replica). */
  budget: HourlyQuota;
  publisher: ReportPublisher;
  clock: Clock;
  logger: Logger;
  projectId: string;
  maxPages: number;
  cacheTtlMs: number;
}

/**
 * Page-view reports: fetches each range once (every page, sorted client-side), caches it by project and
 * range, and guards the organisation's hourly analytics budget. Concurrent requests for one range share
 * one fetch, so several channels' weekly posts cost one set of requests.
 */
export class AnalyticsService {
  private readonly inFlight = new Map<string, Promise<RangeViews>>();
  /** Requests the last full fetch needed: the estimate for the next one, so budget refusals come first. */
  private lastFetchRequests = 1;
  /**
   * Reports built from cached ranges, by request: while the cache hands out the same range objects (memory
   * mode), a repeated `/docs-views` returns the same frozen report, which the Slack side renders once.
   */
  private readonly builtReports = new Map<string, BuiltReport>();

  constructor(private readonly o: AnalyticsServiceOptions) {}

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

  async report(request: ReportRequest): Promise<ViewsReport> {
    const previousRange = previousPeriod(request.range);
    const needsPrevious = !(await this.cached(totalsKey(this.o.projectId, previousRange)));
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
  async cachedReport(request: ReportRequest): Promise<ViewsReport | undefined> {
    const previousRange = previousPeriod(request.range);
    const current = await this.cached(viewsKey(this.o.projectId, request.range));
    if (!current) return undefined;
    const previous =
      (await this.cached(viewsKey(this.o.projectId, previousRange))) ??
      (await this.cached(totalsKey(this.o.projectId, previousRange)));
    if (!previous) return undefined;
    const key = encodeReportRequest(request);
    const built = this.builtReports.get(key);
    if (built?.current === current && built.previous === previous) return built.report;
    const report = Object.freeze(buildReport(request, current, previous.totals));
    // Never keep a range alive after the cache has let it go: drop reports of expired ranges, then the oldest.
    const expired = this.now() - this.o.cacheTtlMs;
    for (const [k, b] of this.builtReports) if (b.current.fetchedAt <= expired) this.builtReports.delete(k);
    if (this.builtReports.size >= BUILT_REPORTS_KEPT)
      this.builtReports.delete(this.builtReports.keys().next().value!);
    this.builtReports.set(key, { current, previous, report });
    return report;
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
  async publish(channelId: string, request: ReportRequest, requestedBy?: string): Promise<ViewsReport> {
    const report = await this.report(request);
    await this.o.publisher.postReport(channelId, report, requestedBy ? { requestedBy } : {});
    return report;
  }

  async uploadCsv(channelId: string, request: ReportRequest, requestedBy: string): Promise<void> {
    const file = await this.csv(request);
    await this.o.publisher.uploadCsv({ channelId, requestedBy, ...file });
  }

  /** Every page of a range, from the cache or fetched once. `extra` requests are budgeted alongside. */
  async views(range: DateRange, extra = 0): Promise<RangeViews> {
    const key = viewsKey(this.o.projectId, range);
    const hit = await this.cached(key);
    if (hit) return hit;
    return this.shared(key, async () => {
      const views = await this.fetchWithinBudget(range, this.lastFetchRequests + extra);
      this.lastFetchRequests = views.requests;
      this.o.logger.info(
        { range, requests: views.requests, pages: views.pages.length, partial: views.partial },
        'fetched page views',
      );
      await this.store(key, views);
      return views;
    });
  }

  /** One fetch per cache key at a time: concurrent callers share the running one. */
  private shared(key: string, fetch: () => Promise<RangeViews>): Promise<RangeViews> {
    const running = this.inFlight.get(key);
    if (running) return running;
    // Registered before the fetch's first await, so every concurrent caller finds it.
    const fetching = fetch().finally(() => this.inFlight.delete(key));
    this.inFlight.set(key, fetching);
    return fetching;
  }

  private async fetchWithinBudget(range: DateRange, needed: number): Promise<RangeViews> {
    if ((await this.o.budget.remaining()) < needed) {
      throw new AnalyticsBudgetError(await this.o.budget.waitTime(needed));
    }
    return fetchRangeViews(this.o.api, range, {
      maxPages: this.o.maxPages,
      budget: this.o.budget,
      now: () => this.now(),
    });
  }

  /** Site-wide totals of a range: from a cached full fetch, or one `limit=1` request. */
  async totals(range: DateRange): Promise<ViewsTotals> {
    const full = await this.cached(viewsKey(this.o.projectId, range));
    if (full) return full.totals;
    const key = totalsKey(this.o.projectId, range);
    const hit = await this.cached(key);
    if (hit) return hit.totals;
    const fetched = await this.shared(key, async () => {
      const slot = await this.o.budget.take();
      if (!slot.ok) throw new AnalyticsBudgetError(slot.retryAfterMs);
      const page = await this.o.api.getPageViews({ ...apiBounds(range), limit: 1, offset: 0 });
      const views = {
        range,
        totals: page.totals,
        pages: [],
        partial: true,
        requests: 1,
        fetchedAt: this.now(),
      };
      await this.store(key, views);
      return views;
    });
    return fetched.totals;
  }

  private async cached(key: string): Promise<RangeViews | undefined> {
    return this.o.cache.get(key).catch((error: unknown) => {
      this.o.logger.warn({ error: describeError(error) }, 'analytics cache read failed; fetching');
      return undefined;
    });
  }

  private async store(key: string, value: RangeViews): Promise<void> {
    if (this.o.cacheTtlMs <= 0) return;
    await this.o.cache.set(key, value, this.o.cacheTtlMs).catch((error: unknown) => {
      this.o.logger.warn({ error: describeError(error) }, 'analytics cache write failed');
    });
  }
}

interface BuiltReport {
  current: RangeViews;
  previous: RangeViews;
  report: ViewsReport;
}

const BUILT_REPORTS_KEPT = 20;

/** The instants the API is asked for: the same days in two time zones are two different spans. */
function rangeKey(range: DateRange): string {
  const { dateFrom, dateTo } = apiBounds(range);
  return `${dateFrom}..${dateTo}`;
}

export function viewsKey(projectId: string, range: DateRange): string {
  return `views:${projectId}:${rangeKey(range)}`;
}

function totalsKey(projectId: string, range: DateRange): string {
  return `totals:${projectId}:${rangeKey(range)}`;
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
