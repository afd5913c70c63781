import type { HealthAlert } from './alerts/alert.js';
import type { Sensitivity } from './alerts/rules.js';
import type { DaySignals } from './alerts/signals.js';
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

/** What a weekly post reports: page views (`/docs-views`) or docs health (`/docs-health`). */
export type ScheduleKind = 'page_views' | 'health';

export interface WeeklySchedule {
  /** Absent on schedules stored before docs-health posts existed: those are page views. */
  kind?: ScheduleKind;
  channelId: string;
  /** Croner pattern, e.g. `0 9 * * 1` (Mondays 09:00). */
  cron: string;
  timeZone: string;
  createdBy: string;
  createdAt: number;
  source: 'command' | 'env';
}

export const kindOf = (schedule: Pick<WeeklySchedule, 'kind'>): ScheduleKind => schedule.kind ?? 'page_views';

/**
 * Identifies a schedule: one per kind per channel. A page-view schedule's key is its channel id, as before
 * kinds existed, so stored schedules, BullMQ schedulers and claims keep their names.
 */
export function scheduleKey(schedule: Pick<WeeklySchedule, 'kind' | 'channelId'>): string {
  return kindOf(schedule) === 'health' ? `health:${schedule.channelId}` : schedule.channelId;
}

/** Durable weekly schedules of both kinds (by `scheduleKey`), and the once-only claims of their occurrences. */
export interface ScheduleStore {
  list(): Promise<WeeklySchedule[]>;
  get(key: string): Promise<WeeklySchedule | undefined>;
  put(schedule: WeeklySchedule): Promise<void>;
  remove(key: string): Promise<boolean>;
  /** Set-if-absent with expiry: true for the first caller only. */
  claim(key: string, ttlMs: number): Promise<boolean>;
  release(key: string): Promise<void>;
  /** A flag with expiry (an occurrence that was owed); `isMarked` reads it. */
  mark(key: string, ttlMs: number): Promise<void>;
  isMarked(key: string): Promise<boolean>;
}

/**
 * Fires registered schedules at their local times: in-process (croner timers) in memory mode, BullMQ job
 * schedulers in Redis mode (one replica runs each occurrence). `occurrenceMs` is the scheduled time, which
 * may be in the past when the fire is late; exactly-once per occurrence is the store claim's job.
 */
export interface WeeklyReportScheduler {
  /** Starts firing; `upsert`s made before are kept. */
  start(onFire: (schedule: WeeklySchedule, occurrenceMs: number) => Promise<void>): Promise<void>;
  /** Registers (or replaces) the schedule of its kind in its channel. */
  upsert(schedule: WeeklySchedule): Promise<void>;
  /** Stops the schedule with this `scheduleKey`. */
  remove(key: string): Promise<void>;
  /**
   * Fires `occurrenceMs` of `schedule` once more at `atMs` (a post that failed): durable and picked up by
   * any replica in Redis mode, a timer in this process in memory mode.
   */
  retry(schedule: WeeklySchedule, occurrenceMs: number, atMs: number): Promise<void>;
  /** Stops firing and waits for running fires. */
  stop(): Promise<void>;
}

/** Who asked for a post, and for a post owed once (a weekly occurrence), its key. */
export interface PostContext {
  requestedBy?: string;
  once?: string;
  /** A weekly post: who set it up (its footer says so, and how to manage or stop it). */
  weekly?: { setUpBy: string | undefined };
}

/** Where reports and CSVs go (Slack, rendered by the Slack adapter). */
export interface ReportPublisher {
  /** With `once` (a weekly occurrence's key) the post is owed once under that key, whoever posts it. */
  postReport(channelId: string, report: PageViewsReport, context: PostContext): Promise<void>;
  /** A docs-health report in the channel, with its fix buttons. */
  postHealthReport(channelId: string, report: HealthReport, context: PostContext): Promise<void>;
  uploadCsv(input: {
    channelId: string;
    filename: string;
    title: string;
    content: string;
    requestedBy: string;
  }): Promise<void>;
}

/** A channel subscribed to docs-health alerts (`/docs-health alerts on`). */
export interface AlertSubscription {
  channelId: string;
  sensitivity: Sensitivity;
  createdBy: string;
  createdAt: number;
}

/** An alert posted (or owed) in a channel for one signal; it stands for 7 days. */
export interface AlertRecord {
  /** `kind:key` (`signalId`). */
  signalId: string;
  /** The outbox key of the alert's post: its thread gets the follow-up. */
  deliveryKey: string;
  /** The count (or, for traffic, the views) the alert reported. */
  count: number;
  alertedAt: number;
  /** The Fix button's evidence id (or encoded evidence). */
  evidenceRef: string;
}

/**
 * Alert subscriptions, each project's stored days of signals, and the once-only claims: one alert per signal
 * per channel per 7 days (set-if-absent with the record, atomic in Redis), one follow-up per alert, one
 * check per interval. Memory (one process, lost on restart) or Redis (shared by replicas, kept).
 */
export interface AlertStore {
  subscriptions(): Promise<AlertSubscription[]>;
  subscription(channelId: string): Promise<AlertSubscription | undefined>;
  subscribe(subscription: AlertSubscription): Promise<void>;
  unsubscribe(channelId: string): Promise<boolean>;
  day(projectId: string, day: string): Promise<DaySignals | undefined>;
  putDay(projectId: string, signals: DaySignals, ttlMs: number): Promise<void>;
  /** Stores `record` unless this channel's signal has one: true for the first caller only (atomic). */
  claimAlert(channelId: string, record: AlertRecord, ttlMs: number): Promise<boolean>;
  alert(channelId: string, signalId: string): Promise<AlertRecord | undefined>;
  /** Set-if-absent with expiry (an interval's check, an alert's follow-up): true for the first caller only. */
  claim(key: string, ttlMs: number): Promise<boolean>;
  /** Mutes one signal (by its `shortHash`) in one channel until `ttlMs` from now; a second mute extends it. */
  mute(channelId: string, signalHash: string, ttlMs: number): Promise<void>;
  isMuted(channelId: string, signalHash: string): Promise<boolean>;
}

/**
 * Fires the alert check every interval: a croner timer in memory mode, one BullMQ job scheduler in Redis
 * mode (one replica runs each interval). `tickMs` is the interval's scheduled time.
 */
/**
 * Runs the alert check every interval while armed. Armed only while the tenant has a subscription, so an idle
 * tenant schedules nothing: `alerts on` arms, the last `alerts off` (or a check finding none) disarms.
 */
export interface AlertScheduler {
  /** Takes the checks this replica is given (the timer or job scheduler itself is `arm`'s). */
  start(onTick: (tickMs: number) => Promise<void>): Promise<void>;
  /** Creates the recurring check if absent (idempotent; keeps its timing when present). */
  arm(): Promise<void>;
  /** Removes the recurring check (a check running now finishes). */
  disarm(): Promise<void>;
  /** Stops taking checks in this process; the recurring check stays for the other replicas. */
  stop(): Promise<void>;
}

/** Where alerts go (Slack, through the outbox). */
export interface AlertPublisher {
  /** Owes the alert's post under `key` (recorded before it is attempted; a second owe is a no-op). */
  postAlert(alert: HealthAlert, key: string): Promise<void>;
  /** The alert post's ts once Slack confirmed it, else undefined. */
  postedTs(key: string): Promise<string | undefined>;
  /** Owes one follow-up in the alert's thread under `key`. */
  postFollowUp(alert: HealthAlert, previous: number, threadTs: string, key: string): Promise<void>;
}
