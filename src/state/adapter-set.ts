import type { Clock } from '../common/clock.js';
import type { HourlyQuota } from '../common/hourly-quota.js';
import type { Logger } from '../common/logger.js';
import type { SharedSlots } from '../common/shared-slots.js';
import type { VersionedRecords } from '../common/versioned-records.js';
import type { DeliveryStore } from '../delivery/ports.js';
import type { EvidenceStore, ImpactQueue } from '../insights/health/ports.js';
import type {
  AlertScheduler,
  AlertStore,
  AnalyticsCache,
  ScheduleStore,
  WeeklyReportScheduler,
} from '../insights/ports.js';
import type { AssistantThreadStore } from '../jobs/assistant-thread.js';
import type { DoorbellLeases } from '../jobs/doorbell/ports.js';
import type { JobFeedbackStore } from '../jobs/job-feedback.js';
import type { JobStore, PollQueue, StartHandovers } from '../jobs/ports.js';
import type { SchedulerTimers } from './memory/weekly-cron-scheduler.js';
import type { QueuePlane } from './redis/queue-plane.js';
import type { DueMarker } from './redis/redis-due-index.js';
import type { SharedRedisConnections } from './redis/redis-job-store.js';

/** Where state lives, as /readyz and the start-up line say it. */
export type StateBackend = 'in-memory' | 'redis';

/**
 * Every state adapter the capabilities need, for one backend: the composition root wires from this set and
 * never asks which backend it got. Built by `createAdapters` (memory, or Redis with REDIS_URL).
 */
export interface AdapterSet {
  backend: StateBackend;
  jobStore: JobStore;
  pollQueue: PollQueue;
  /** The outbox of every message the bot owes (src/delivery): shared by replicas with Redis. */
  deliveryStore: DeliveryStore;
  /** Feedback on jobs' results: one vote per person per job. */
  feedbackStore: JobFeedbackStore;
  /** Reads of followed pull requests on GitHub: the same poll machinery, its own queue (`pr-follow`). */
  pullRequestQueue: PollQueue;
  /** The GitHub doorbell's one reader per repository: fenced leases and each repository's ETag. */
  doorbellLeases: DoorbellLeases;
  /** The agent-job budget of DOCS_PROJECT_ID (AGENT_JOBS_PER_HOUR): `agentJobQuotaFor(DOCS_PROJECT_ID)`. */
  agentJobQuota: HourlyQuota;
  /** The agent-job budget of one project: the platform counts job creations and follow-ups per project. */
  agentJobQuotaFor(projectId: string): HourlyQuota;
  /** One person's share of a project's agent-job budget (USER_BUDGET_SHARE percent of it). */
  agentJobUserQuotaFor(projectId: string, userId: string): HourlyQuota;
  /** The analytics requests budget (ANALYTICS_HOURLY_BUDGET), shared by every analytics source. */
  analyticsBudget: HourlyQuota;
  analyticsCache: AnalyticsCache;
  scheduleStore: ScheduleStore;
  /** Assistant threads (Slack's AI app container) and the channel each is looking at. */
  assistantThreads: AssistantThreadStore;
  weeklyScheduler: WeeklyReportScheduler;
  /** "Did it work?" checks of health-fix PRs: in-process timers, or BullMQ delayed jobs with Redis. */
  impactQueue: ImpactQueue;
  /** Fix-button evidence under short ids (7 days): in memory, or in Redis shared by replicas. */
  evidenceStore: EvidenceStore;
  /** Shared messages' last state, changed by compare-and-set (replicas act on one message at once). */
  sharedMessageRecords: VersionedRecords;
  /** Docs-health alert subscriptions, stored days of signals and once-only alert claims. */
  alertStore: AlertStore;
  /** Fires the alert check every HEALTH_ALERT_INTERVAL_MS: croner in-process, or one BullMQ scheduler. */
  alertScheduler: AlertScheduler;
  /** Job starts a stopping replica hands to the others (Redis); absent in memory mode (no other replica). */
  startHandovers?: StartHandovers;
  /** Slack call slots shared by replicas (Redis); absent in memory mode, where one process paces alone. */
  slackSlots?: SharedSlots;
  /**
   * OAuth mode on Redis: when this tenant's earliest owed delivery or handed-over start falls due (its next
   * mark in the replica-wide due index), or undefined when nothing is owed. Absent without a due index.
   */
  nextDueAt?(): Promise<number | undefined>;
  /** Readiness of the state backend: memory is always there; Redis must answer a PING within a second. */
  state(): Promise<'in-memory' | 'ok' | 'unreachable'>;
  /**
   * Start-up: resolves true once state can be used (Redis answers and the connections are open, retried
   * with a growing wait), false when `signal` aborts first (shutdown during start-up).
   */
  waitUntilReady(signal: AbortSignal): Promise<boolean>;
  /** Closes the state connections (the poll queue and the scheduler are stopped by their owners first). */
  close(): Promise<void>;
}

export interface AdapterOptions {
  logger: Logger;
  clock: Clock;
  /** A prepared in-memory job store (benchmarks seed thousands of watched jobs); ignored with REDIS_URL. */
  jobStore?: JobStore;
  /** Time for the in-process weekly scheduler (tests pass a manual one); ignored with REDIS_URL. */
  schedulerTimers?: SchedulerTimers;
  /** Time for the in-process impact checks (tests pass a manual one); ignored with REDIS_URL. */
  impactTimers?: SchedulerTimers;
  /** Key prefix in Redis (tests isolate runs); defaults to `docs-agent`. */
  namespace?: string;
  /** OAuth mode: the process's command connections, shared by every tenant's state (Redis only). */
  sharedRedis?: SharedRedisConnections;
  /** OAuth mode on Redis: this tenant's side of the replica-wide due index (issue 34). */
  dueIndex?: DueMarker;
  /** OAuth mode on Redis: the replica's shared queue plane, and the tenant whose views are built on it. */
  plane?: { plane: QueuePlane; tenant: string };
}

/** One budget per project, made on first use and kept: every caller of a project shares its count. */
export function perProject<T>(defaultProjectId: string, make: (projectId: string) => T) {
  const made = new Map<string, T>();
  const of = (projectId: string): T => {
    let value = made.get(projectId);
    if (value === undefined) {
      value = make(projectId);
      made.set(projectId, value);
    }
    return value;
  };
  return { of, default: of(defaultProjectId) };
}
