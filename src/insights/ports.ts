import type { HealthReport } from './health/report.js';
import type { PageViewsReport } from './page-views/report.js';
import type { DateRange } from './ranges/dates.js';

export interface PageViewsTotals {
  human: number;
  ai: number;
  total: number;
}

export interface PageViewRow extends PageViewsTotals {
  path: string;
}

/** The analytics export of the docs platform (`GET /v1/analytics/{projectId}/views`). */
export interface PageViewsApi {
  getPageViews(query: {
    dateFrom: string;
    dateTo: string;
    limit: number;
    offset: number;
  }): Promise<{ totals: PageViewsTotals; views: PageViewRow[]; hasMore: boolean }>;
}

/** Everything one range holds, as fetched: every page (up to the page cap), sorted by total views. */
export interface RangePageViews {
  range: DateRange;
  totals: PageViewsTotals;
  /** Sorted by total (desc), then path. */
  pages: PageViewRow[];
  /** True when the page cap stopped paging before `hasMore` turned false. */
  partial: boolean;
  requests: number;
  fetchedAt: number;
}

/**
 * Fetched analytics with a TTL, keyed by endpoint, project, range and parameters (`analyticsCacheKey`).
 * Values are JSON-able; failures may throw, and callers treat them as misses.
 */
export interface AnalyticsCache {
  get(key: string): Promise<unknown>;
  set(key: string, value: unknown, ttlMs: number): Promise<void>;
}

export interface WeeklySchedule {
  channelId: string;
  /** Croner pattern, e.g. `0 9 * * 1` (Mondays 09:00). */
  cron: string;
  timeZone: string;
  createdBy: string;
  createdAt: number;
  source: 'command' | 'env';
}

/** Durable weekly schedules, one per channel, and the once-only claims of their occurrences. */
export interface ScheduleStore {
  list(): Promise<WeeklySchedule[]>;
  get(channelId: string): Promise<WeeklySchedule | undefined>;
  put(schedule: WeeklySchedule): Promise<void>;
  remove(channelId: string): Promise<boolean>;
  /** Set-if-absent with expiry: true for the first caller only. */
  claim(key: string, ttlMs: number): Promise<boolean>;
  release(key: string): Promise<void>;
}

/**
 * Fires registered schedules at their local times: in-process (croner timers) in memory mode, BullMQ job
 * schedulers in Redis mode (one replica runs each occurrence). `occurrenceMs` is the scheduled time, which
 * may be in the past when the fire is late; exactly-once per occurrence is the store claim's job.
 */
export interface WeeklyReportScheduler {
  /** Starts firing; `upsert`s made before are kept. */
  start(onFire: (schedule: WeeklySchedule, occurrenceMs: number) => Promise<void>): Promise<void>;
  /** Registers (or replaces) the channel's schedule. */
  upsert(schedule: WeeklySchedule): Promise<void>;
  remove(channelId: string): Promise<void>;
  /** Stops firing and waits for running fires. */
  stop(): Promise<void>;
}

/** Where reports and CSVs go (Slack, rendered by the Slack adapter). */
export interface ReportPublisher {
  postReport(channelId: string, report: PageViewsReport, context: { requestedBy?: string }): Promise<void>;
  /** A docs-health report in the channel, with its fix buttons. */
  postHealthReport(channelId: string, report: HealthReport, context: { requestedBy?: string }): Promise<void>;
  uploadCsv(input: {
    channelId: string;
    filename: string;
    title: string;
    content: string;
    requestedBy: string;
  }): Promise<void>;
}
