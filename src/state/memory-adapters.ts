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
import { createMemoryVersionedRecords } from './versioned-records.js';

/** State in this process only: lost on restart, not shared by replicas. Nothing to connect or close. */
export function memoryAdapters(config: Config, options: AdapterOptions): AdapterSet {
  const { logger, clock } = options;
  const now = () => clock.now();
  const jobQuotas = perProject(
    config.docs.projectId,
    () => new InMemoryHourlyQuota(config.docs.jobsPerHour, now),
  );
  const userQuotas = perProject('', () => new InMemoryHourlyQuota(userShareOf(config), now));
  const deliveryStore = new MemoryDeliveryStore();
  return {
    backend: 'in-memory',
    jobStore: options.jobStore ?? createMemoryJobStore(logger, now),
    feedbackStore: new MemoryFeedbackStore(),
    pollQueue: new MemoryPollQueue({
      logger,
      concurrency: config.docs.maxConcurrency,
      minGapMs: config.docs.maxPollsPerSecond > 0 ? Math.ceil(1000 / config.docs.maxPollsPerSecond) : 0,
    }),
    deliveryStore,
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
    sharedMessageRecords: createMemoryVersionedRecords(logger, now),
    alertStore: new MemoryAlertStore(now),
    alertScheduler: new InProcessAlertScheduler(config.analytics.healthAlertIntervalMs, logger),
    state: async () => 'in-memory',
    waitUntilReady: async () => true,
    // Nothing to close, but what the outbox still owes dies with this process: said, never silent.
    close: async () => warnOfDroppedDeliveries(deliveryStore.owed(now()), logger),
  };
}

/** What each kind of owed message is, in the operator's words. */
const OWED_KINDS: Record<string, string> = {
  post: 'posts (job cards, replies, notices)',
  update: 'card updates',
  reactions: 'reaction changes',
  respond: 'answers to commands or buttons',
  assistant: 'assistant status lines or streams',
  unfurl: 'link previews',
};

/** Memory mode keeps owed messages in this process only: on stop, says how many of which kind it drops. */
function warnOfDroppedDeliveries(owed: Partial<Record<string, number>>, logger: AdapterOptions['logger']) {
  const kinds = Object.entries(owed).filter((entry): entry is [string, number] => (entry[1] ?? 0) > 0);
  const total = kinds.reduce((sum, [, count]) => sum + count, 0);
  if (total === 0) return;
  const what = kinds.map(([kind, count]) => `${count} ${OWED_KINDS[kind] ?? kind}`).join(', ');
  logger.warn(
    { dropped: total, byKind: Object.fromEntries(kinds) },
    `memory mode: ${total} owed Slack message(s) not delivered are dropped on stop (${what}); set REDIS_URL to keep them across restarts`,
  );
}

/** Real timers; a given clock (tests) also decides the scheduler's "now". */
function timersOn(clock: Clock): SchedulerTimers {
  return clock === systemClock ? systemTimers : { ...systemTimers, now: () => clock.now() };
}
