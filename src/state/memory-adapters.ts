import { type Clock, systemClock } from '../common/clock.js';
import { type Config, userShareOf } from '../common/config.js';
import { InMemoryHourlyQuota } from '../common/hourly-quota.js';
import { type AdapterOptions, type AdapterSet, perProject } from './adapter-set.js';
import { MemoryAlertStore } from './alert-stores.js';
import { createMemoryAnalyticsCache } from './keyv-analytics-cache.js';
import { createMemoryAssistantThreadStore } from './keyv-assistant-threads.js';
import { createMemoryEvidenceStore } from './keyv-evidence-store.js';
import { createMemoryJobStore } from './keyv-job-store.js';
import { createMemoryScheduleStore } from './keyv-schedule-store.js';
import { InProcessAlertScheduler } from './memory/alert-cron-scheduler.js';
import { MemoryDeliveryStore } from './memory/memory-delivery-store.js';
import { MemoryDoorbellLeases } from './memory/memory-doorbell-leases.js';
import { MemoryFeedbackStore } from './memory/memory-feedback-store.js';
import { MemoryImpactQueue } from './memory/memory-impact-queue.js';
import { MemoryPollQueue } from './memory/memory-poll-queue.js';
import {
  InProcessWeeklyScheduler,
  type SchedulerTimers,
  systemTimers,
} from './memory/weekly-cron-scheduler.js';

/** State in this process only: lost on restart, not shared by replicas. Nothing to connect or close. */
export function memoryAdapters(config: Config, options: AdapterOptions): AdapterSet {
  const { logger, clock } = options;
  const now = () => clock.now();
  const jobQuotas = perProject(
    config.docs.projectId,
    () => new InMemoryHourlyQuota(config.docs.jobsPerHour, now),
  );
  const userQuotas = perProject('', () => new InMemoryHourlyQuota(userShareOf(config), now));
  return {
    backend: 'in-memory',
    jobStore: options.jobStore ?? createMemoryJobStore(logger, now),
    feedbackStore: new MemoryFeedbackStore(),
    pollQueue: new MemoryPollQueue({
      logger,
      concurrency: config.docs.maxConcurrency,
      minGapMs: config.docs.maxPollsPerSecond > 0 ? Math.ceil(1000 / config.docs.maxPollsPerSecond) : 0,
    }),
    deliveryStore: new MemoryDeliveryStore(),
    pullRequestQueue: new MemoryPollQueue({ logger, concurrency: 2 }),
    doorbellLeases: new MemoryDoorbellLeases(now),
    agentJobQuota: jobQuotas.default,
    agentJobQuotaFor: jobQuotas.of,
    agentJobUserQuotaFor: (projectId, userId) => userQuotas.of(`${projectId}\u0000${userId}`),
    analyticsBudget: new InMemoryHourlyQuota(config.analytics.hourlyBudget, now),
    analyticsCache: createMemoryAnalyticsCache(logger, now),
    scheduleStore: createMemoryScheduleStore(logger, now),
    assistantThreads: createMemoryAssistantThreadStore(logger),
    weeklyScheduler: new InProcessWeeklyScheduler(logger, options.schedulerTimers ?? timersOn(clock)),
    impactQueue: new MemoryImpactQueue(logger, options.impactTimers ?? timersOn(clock)),
    evidenceStore: createMemoryEvidenceStore(logger, now),
    alertStore: new MemoryAlertStore(now),
    alertScheduler: new InProcessAlertScheduler(config.analytics.healthAlertIntervalMs, logger),
    state: async () => 'in-memory',
    waitUntilReady: async () => true,
    close: async () => undefined,
  };
}

/** Real timers; a given clock (tests) also decides the scheduler's "now". */
function timersOn(clock: Clock): SchedulerTimers {
  return clock === systemClock ? systemTimers : { ...systemTimers, now: () => clock.now() };
}
