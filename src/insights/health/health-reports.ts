import type { Clock } from '../../common/clock.js';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { AnalyticsSource } from '../analytics-source.js';
import type { ChartFill } from '../chart-fill.js';
import type { AnalyticsProjects } from '../page-views/page-views-reports.js';
import type { ReportPublisher } from '../ports.js';
import {
  addDays,
  type DateRange,
  DEFAULT_RANGE,
  describeSpec,
  type RangeSpec,
  resolveRange,
} from '../ranges/dates.js';
import { parsePageViewsCommand, type Weekday } from '../ranges/grammar.js';
import { apiBounds } from '../ranges/zone-instants.js';
import type { Evidence } from './evidence.js';
import { fetchHealthWindow } from './fetch-health.js';
import type { HealthEvidence } from './health-evidence.js';
import { HealthTrends } from './health-trend.js';
import type { HealthApi, HealthWindow } from './ports.js';
import { buildHealthReport, type HealthReport, TOP_DEFAULT, TOP_MAX } from './report.js';

export interface HealthRequest {
  range: RangeSpec;
  top: number;
  /** The docs project read (absent: DOCS_PROJECT_ID); the channel's, see `inChannel`. */
  projectId?: string;
  /** Weekly posts: the days are the schedule's local days before its occurrence (default: UTC, now). */
  timeZone?: string;
  asOf?: number;
}

export type HealthCommand =
  | { kind: 'help' }
  | { kind: 'schedule'; weekday: Weekday; hour: number; minute: number; timeZone: string | undefined }
  | { kind: 'schedules' }
  | { kind: 'unschedule' }
  | { kind: 'report'; request: HealthRequest }
  | { kind: 'invalid'; token: string; problem: string };

/**
 * `/docs-health [range] [top N]`: the `/docs-views` range grammar, with `top` 1–25 (default 5) and none
 * of the page-views extras (path prefix, csv, schedules), which are refused naming the token.
 */
export function parseHealthCommand(text: string | undefined): HealthCommand {
  const tokens = (text ?? '').trim().split(/\s+/).filter(Boolean);
  const parsed = parsePageViewsCommand(text);
  // Weekly posts: the same sub-commands, grammar and refusals as /docs-views.
  if (/^(schedules?|unschedule)$/i.test(tokens[0] ?? '')) {
    if (parsed.kind === 'schedule' || parsed.kind === 'schedules' || parsed.kind === 'unschedule')
      return parsed;
    if (parsed.kind === 'invalid') return parsed;
  }
  const extra = tokens.find((t) => t.startsWith('/') || /^(csv|schedules?|unschedule)$/i.test(t));
  if (extra) return { kind: 'invalid', token: extra, problem: 'is not a range or `top N`' };
  if (parsed.kind === 'help') return parsed;
  if (parsed.kind === 'invalid') {
    const problem = parsed.problem.replace(/\(1–\d+\)|1–\d+/g, `1–${TOP_MAX}`);
    return { kind: 'invalid', token: parsed.token, problem };
  }
  if (parsed.kind !== 'report') return { kind: 'invalid', token: tokens[0] ?? '', problem: 'is unexpected' };
  // The page-views default top differs: only a `top` the user wrote counts.
  const topGiven = tokens.some((t) => /^top\d*$/i.test(t));
  const top = topGiven ? parsed.params.top : TOP_DEFAULT;
  if (top > TOP_MAX) {
    return { kind: 'invalid', token: String(top), problem: `is out of range for \`top\`: use 1–${TOP_MAX}` };
  }
  return { kind: 'report', request: { range: parsed.params.range ?? DEFAULT_RANGE, top } };
}

/**
 * A report's own days and top N as `/docs-health` text: "Post to channel" asks for exactly the days shown,
 * even when clicked after midnight (a relative range like `7d` would have moved on).
 */
export function healthReportCommandText(report: HealthReport): string {
  return `${report.range.from}..${addDays(report.range.toExclusive, -1)} top ${report.top}`;
}

export interface HealthReportsOptions {
  /** The analytics endpoints of one project (one admin key serves every project). */
  apiFor(projectId: string): HealthApi;
  /** The same source as page views: one budget and one cache for every analytics endpoint. */
  source: AnalyticsSource;
  clock: Clock;
  projects: AnalyticsProjects;
  maxPages: number;
  /** Where "Post to channel" sends a report. */
  publisher: Pick<ReportPublisher, 'postHealthReport'>;
  /** Keeps each row's evidence for its fix button (absent: buttons carry the evidence itself, as before). */
  evidence?: Pick<HealthEvidence, 'save'>;
  /** Daily counts for a chart on every report (REPORT_CHARTS); absent or false: none. */
  charts?: boolean;
  /** Fills what a chart lacks in the background, once the report is out. */
  fill?: ChartFill;
  logger?: Logger;
}

/** The `/docs-health` report: the four endpoints of one range through the shared analytics source. */
export class HealthReports {
  private readonly trends: HealthTrends | undefined;

  constructor(private readonly o: HealthReportsOptions) {
    this.trends =
      o.charts !== true
        ? undefined
        : new HealthTrends({
            source: o.source,
            apiFor: o.apiFor,
            now: () => this.now(),
            maxPages: o.maxPages,
            ...(o.fill ? { fill: o.fill } : {}),
          });
  }

  /** Starts the background reads queued for charts: called once the report is out. */
  fillCharts(): void {
    this.o.fill?.run();
  }

  now(): number {
    return this.o.clock.now();
  }

  /** The range label as the user reads it ("last 7 days"). */
  label(request: HealthRequest): string {
    return describeSpec(request.range);
  }

  /** The request for the channel's project. */
  inChannel(request: HealthRequest, channelId: string | undefined): HealthRequest {
    return { ...request, projectId: this.o.projects.projectFor(channelId) };
  }

  /**
   * Fetches (or reads from the cache) the range and builds the three sections; budget errors propagate.
   * Names the project when several are configured.
   */
  async report(request: HealthRequest): Promise<HealthReport> {
    const projectId = request.projectId ?? this.o.projects.defaultProjectId;
    const range = this.rangeOf(request);
    const window = await this.window(range, projectId);
    const built = buildHealthReport(window, { top: request.top });
    const report = this.o.projects.isMulti ? { ...built, project: projectId } : built;
    let chartMissing: HealthReport['chartMissing'];
    const trend = await this.trends?.trend(range, projectId, window).catch((error: unknown) => {
      // The chart adds to the report and never holds it back.
      this.o.logger?.warn(
        { error: describeError(error) },
        'could not read daily health counts for the chart',
      );
      chartMissing = 'unavailable';
      return undefined;
    });
    if (this.trends && !trend) chartMissing ??= 'budget';
    const chart = trend ? { trend } : chartMissing ? { chartMissing } : {};
    return { ...report, ...chart, ...(await this.refsOf(report)) };
  }

  /**
   * Every shown row's evidence saved under an id for its fix button. A store failure leaves the report
   * without ids (its buttons then carry the evidence itself, which fits all but quote-heavy rows).
   */
  private async refsOf(report: HealthReport): Promise<{ refs?: HealthReport['refs'] }> {
    const store = this.o.evidence;
    if (!store) return {};
    const save = (rows: Evidence[]) => Promise.all(rows.map((row) => store.save(row)));
    try {
      const [search, page, question] = await Promise.all([
        save(report.searches.rows),
        save(report.pages.rows),
        save(report.questions.rows),
      ]);
      return { refs: { search, page, question } };
    } catch {
      return {};
    }
  }

  /** "Post to channel": the same report (from the cache when it is fresh) posted in the channel's project. */
  async publish(channelId: string, request: HealthRequest, requestedBy: string): Promise<void> {
    const report = await this.report(this.inChannel(request, channelId));
    await this.o.publisher.postHealthReport(channelId, report, { requestedBy });
    this.fillCharts();
  }

  /** A weekly post: the last 7 full days before the occurrence in the schedule's zone, top 5, fix buttons. */
  async publishWeekly(
    channelId: string,
    timeZone: string,
    occurrenceMs: number,
    once: string,
    setUpBy?: string,
  ): Promise<void> {
    const request = { range: DEFAULT_RANGE, top: TOP_DEFAULT, timeZone, asOf: occurrenceMs };
    const report = await this.report(this.inChannel(request, channelId));
    await this.o.publisher.postHealthReport(channelId, report, { once, weekly: { setUpBy } });
    this.fillCharts();
  }

  private rangeOf(request: HealthRequest): DateRange {
    return resolveRange(request.range, request.asOf ?? this.now(), request.timeZone ?? 'UTC');
  }

  private window(range: DateRange, projectId: string): Promise<HealthWindow> {
    const bounds = apiBounds(range);
    return fetchHealthWindow(this.o.apiFor(projectId), bounds, {
      source: this.o.source,
      projectId,
      maxPages: this.o.maxPages,
    });
  }
}
