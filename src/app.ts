import { AnalyticsService } from './analytics/analytics-service.js';
import { WeeklyReports } from './analytics/weekly-reports.js';
import { DocsApiClient } from './api/docs-client.js';
import { type Config, secretsOf } from './config.js';
import { createLogger, type Logger } from './logger.js';
import { BullmqPollQueue } from './scheduler/bullmq-poll-queue.js';
import { BullmqWeeklyScheduler } from './scheduler/bullmq-weekly-scheduler.js';
import { MemoryPollQueue } from './scheduler/memory-poll-queue.js';
import {
  InProcessWeeklyScheduler,
  type SchedulerTimers,
  systemTimers,
} from './scheduler/weekly-cron-scheduler.js';
import { AccessPolicy } from './services/access-policy.js';
import { ConversationService } from './services/conversation-service.js';
import { InMemoryHourlyQuota } from './services/hourly-quota.js';
import { JobService } from './services/job-service.js';
import { type Clock, type JobStore, systemClock } from './services/ports.js';
import { SlackJobNotifier } from './slack/job-notifier.js';
import { createSlackApp } from './slack/slack-app.js';
import { UserNames } from './slack/user-names.js';
import { MAX_PROMPT_CHARS } from './slack/views/help.js';
import { SlackReportPublisher } from './slack/views-publisher.js';
import { createMemoryJobStore } from './store/keyv-job-store.js';
import { createMemoryScheduleStore, createRedisScheduleStore } from './store/keyv-schedule-store.js';
import { createMemoryViewsCache, createRedisViewsCache } from './store/keyv-views-cache.js';
import { RedisHourlyQuota } from './store/redis-hourly-quota.js';
import { createRedisState } from './store/redis-job-store.js';

export interface DocsAgentOptions {
  logger?: Logger;
  clock?: Clock;
  /** Time for the weekly report scheduler (tests pass a manual one); defaults to real timers on `clock`. */
  schedulerTimers?: SchedulerTimers;
  /** A prepared in-memory job store (benchmarks seed thousands of watched jobs); ignored with REDIS_URL. */
  jobStore?: JobStore;
}

export interface DocsAgent {
  logger: Logger;
  /** Starts receiving Slack requests and resumes watching jobs; resolves the HTTP port. */
  start(): Promise<number>;
  stop(): Promise<void>;
}

/** Composition root: builds adapters, services and the Slack app from a validated config. */
export function createDocsAgent(config: Config, options: DocsAgentOptions = {}): DocsAgent {
  const logger = options.logger ?? createLogger({ level: config.logLevel, secrets: secretsOf(config) });
  const clock = options.clock ?? systemClock;
  let stopping = false;

  const docsApi = new DocsApiClient({
    baseUrl: config.docs.apiUrl,
    apiKey: config.docs.apiKey,
    projectId: config.docs.projectId,
    timeoutMs: config.docs.timeoutMs,
    logger: logger.child({ component: 'docs-api' }),
  });
  // REDIS_URL: state, polls and the agent-job budget live in Redis, shared by replicas and kept across restarts.
  const redis = config.redisUrl ? createRedisState(config.redisUrl, logger) : undefined;
  const stateBackend = redis ? 'redis' : 'in-memory';
  const store = redis?.store ?? options.jobStore ?? createMemoryJobStore(logger, () => clock.now());
  const queue = redis
    ? new BullmqPollQueue({
        client: redis.queueClient,
        logger,
        concurrency: config.docs.maxConcurrency,
        maxPerSecond: config.docs.maxPollsPerSecond,
        namespace: redis.namespace,
      })
    : new MemoryPollQueue({
        logger,
        concurrency: config.docs.maxConcurrency,
        minGapMs: config.docs.maxPollsPerSecond > 0 ? Math.ceil(1000 / config.docs.maxPollsPerSecond) : 0,
      });
  const quota = redis
    ? new RedisHourlyQuota({
        client: redis.client,
        key: `${redis.namespace}:quota:agent-jobs:${config.docs.projectId}`,
        limit: config.docs.jobsPerHour,
        now: () => clock.now(),
      })
    : new InMemoryHourlyQuota(config.docs.jobsPerHour, () => clock.now());

  const slack = createSlackApp(config, logger, [
    {
      path: '/healthz',
      handle: () =>
        stopping ? { status: 503, body: { status: 'stopping' } } : { status: 200, body: { status: 'ok' } },
    },
  ]);
  const notifier = new SlackJobNotifier(slack.gateway, store, clock, logger, {
    followUpsFrom: config.access.followUpsFrom,
  });
  const jobs = new JobService({
    api: docsApi,
    store,
    notifier,
    queue,
    quota,
    clock,
    logger,
    poll: { minMs: config.poll.intervalMs, maxMs: config.poll.maxIntervalMs, maxAgeMs: config.poll.maxAgeMs },
  });
  const access = new AccessPolicy(config.access);
  const analytics = new AnalyticsService({
    api: docsApi,
    // With REDIS_URL the range cache and the organisation's analytics budget are shared by every replica.
    cache: redis
      ? createRedisViewsCache(redis.client, redis.namespace, logger, () => clock.now())
      : createMemoryViewsCache(logger, () => clock.now()),
    budget: redis
      ? new RedisHourlyQuota({
          client: redis.client,
          key: `${redis.namespace}:quota:analytics:${config.docs.projectId}`,
          limit: config.analytics.hourlyBudget,
          now: () => clock.now(),
        })
      : new InMemoryHourlyQuota(config.analytics.hourlyBudget, () => clock.now()),
    publisher: new SlackReportPublisher(slack.gateway, config.docs.siteUrl),
    clock,
    logger: logger.child({ component: 'analytics' }),
    projectId: config.docs.projectId,
    maxPages: config.analytics.maxPages,
    cacheTtlMs: config.analytics.cacheTtlMs,
  });
  const weekly = new WeeklyReports({
    analytics,
    // With REDIS_URL schedules and claims live in Redis and BullMQ job schedulers fire each occurrence once.
    store: redis
      ? createRedisScheduleStore(redis.client, redis.namespace, logger)
      : createMemoryScheduleStore(logger, () => clock.now()),
    scheduler: redis
      ? new BullmqWeeklyScheduler({ client: redis.queueClient, logger, namespace: redis.namespace })
      : new InProcessWeeklyScheduler(
          logger,
          options.schedulerTimers ??
            (options.clock ? { ...systemTimers, now: () => clock.now() } : systemTimers),
        ),
    clock,
    logger: logger.child({ component: 'weekly-reports' }),
    envDefault: config.analytics.weeklyReport,
  });
  const userNames = new UserNames(
    async (id) => {
      const name = await slack.gateway.userName(id);
      return name === undefined ? undefined : { name };
    },
    { logger },
  );
  const conversations = new ConversationService({
    jobs,
    store,
    notifier,
    text: userNames,
    access,
    followUpsFrom: config.access.followUpsFrom,
    maxPromptChars: MAX_PROMPT_CHARS,
    logger,
  });
  slack.register({
    jobs,
    conversations,
    access,
    logger,
    views: { analytics, weekly, siteUrl: config.docs.siteUrl },
  });

  return {
    logger,
    async start() {
      await redis?.connect();
      const port = await slack.start();
      const resumed = await jobs.startWatching();
      await weekly.start();
      logger.info(
        {
          mode: slack.mode,
          port,
          state: stateBackend,
          resumedJobs: resumed,
          project: config.docs.projectId,
        },
        slack.mode === 'http'
          ? `docs-agent is listening for Slack on port ${port} (POST /slack/events); ${stateNote(stateBackend)}`
          : `docs-agent is connected in Socket Mode (health on port ${port}); ${stateNote(stateBackend)}`,
      );
      return port;
    },
    async stop() {
      stopping = true;
      await slack.stop().catch(() => undefined);
      await weekly.stop();
      await queue.close();
      await redis?.close();
      await docsApi.close();
    },
  };
}

function stateNote(backend: 'redis' | 'in-memory'): string {
  return backend === 'redis'
    ? 'state is in Redis (REDIS_URL): jobs, threads and polls survive restarts and are shared by replicas'
    : 'state is in memory (set REDIS_URL to keep it across restarts)';
}
