import { type Config, userShareOf } from '../common/config.js';
import { lazyClosable } from '../common/lazily.js';
import { type AdapterOptions, type AdapterSet, perProject } from './adapter-set.js';
import { RedisAlertStore } from './alert-stores.js';
import { createRedisAnalyticsCache } from './keyv-analytics-cache.js';
import { createRedisAssistantThreadStore } from './keyv-assistant-threads.js';
import { createRedisEvidenceStore } from './keyv-evidence-store.js';
import { FOLLOW_RECHECK_MS, WATCH_RECHECK_MS } from './keyv-job-store.js';
import { createRedisScheduleStore } from './keyv-schedule-store.js';
import { builtOnFirstUse } from './lazy-store.js';
import { BullmqAlertScheduler } from './redis/bullmq-alert-scheduler.js';
import { BullmqImpactQueue } from './redis/bullmq-impact-queue.js';
import { BullmqPollQueue } from './redis/bullmq-poll-queue.js';
import { BullmqWeeklyScheduler } from './redis/bullmq-weekly-scheduler.js';
import { migrateAtStart, migrationsFor } from './redis/migrations/deployment.js';
import { waitForRedis } from './redis/redis-client.js';
import { RedisDeliveryStore } from './redis/redis-delivery-store.js';
import { RedisDoorbellLeases } from './redis/redis-doorbell-leases.js';
import { RedisFeedbackStore } from './redis/redis-feedback-store.js';
import { RedisHourlyQuota } from './redis/redis-hourly-quota.js';
import { createRedisState } from './redis/redis-job-store.js';
import { RedisSharedSlots } from './redis/redis-shared-slots.js';
import { RedisStartHandovers } from './redis/redis-start-handovers.js';
import { SINGLE_WORKSPACE_TENANT, singleWorkspacePlane } from './redis/single-plane.js';
import { RedisVersionedRecords } from './versioned-records.js';

/**
 * REDIS_URL: job state, polls, both budgets, the page-views cache and weekly schedules live in Redis, shared
 * by every replica and kept across restarts; BullMQ runs polls and fires each weekly occurrence once.
 * Nothing is sent to Redis before `waitUntilReady`.
 */
export function redisAdapters(config: Config & { redisUrl: string }, options: AdapterOptions): AdapterSet {
  const { logger, clock } = options;
  const redisUrl = config.redisUrl;
  const now = () => clock.now();
  const redis = createRedisState(redisUrl, logger, {
    namespace: options.namespace,
    ...(options.sharedRedis ? { shared: options.sharedRedis } : {}),
    ...(options.dueIndex ? { dueIndex: options.dueIndex } : {}),
  });
  const { client, queueClient, namespace } = redis;
  // The job budget is the platform's per project; the analytics one is per organisation, and keeps the key
  // it always had (named after DOCS_PROJECT_ID) so a rolling upgrade does not reset its count.
  const quota = (name: string, limit: number, projectId = config.docs.projectId) =>
    new RedisHourlyQuota({ client, key: `${namespace}:quota:${name}:${projectId}`, limit, now });
  const jobQuotas = perProject(config.docs.projectId, (projectId) =>
    quota('agent-jobs', config.docs.jobsPerHour, projectId),
  );
  // A user's budget is its key in Redis and nothing else: made per use, so a tenant keeps no object per person
  // who once started a job (issue 43 §2: per-user state grew without bound in a resident scope).
  const userQuota = (projectId: string, userId: string) =>
    quota('agent-jobs-user', userShareOf(config), `${projectId}:${userId}`);
  // Every queue is a view of the plane: OAuth mode's shared one, or single-workspace mode's own (its one
  // key space, its one tenant), built here and closed with its poll queue.
  const ownPlane = options.plane
    ? undefined
    : singleWorkspacePlane({
        client: queueClient,
        logger,
        namespace,
        pollConcurrency: config.docs.maxConcurrency,
      });
  const plane = options.plane ?? { plane: ownPlane!, tenant: SINGLE_WORKSPACE_TENANT };
  const onPlane = { plane };
  const pollQueue = new BullmqPollQueue({
    client: queueClient,
    logger,
    maxPerSecond: config.docs.maxPollsPerSecond,
    namespace,
    plane,
    ownsPlane: ownPlane !== undefined,
  });
  const deliveryStore = new RedisDeliveryStore(client, `${namespace}:`, logger, options.dueIndex);
  const startHandovers = new RedisStartHandovers(client, `${namespace}:`, options.dueIndex);
  return {
    backend: 'redis',
    jobStore: redis.store,
    feedbackStore: new RedisFeedbackStore(client, `${namespace}:`),
    pollQueue,
    deliveryStore,
    // Built when the scope first follows a PR (a tenant with no GitHub token never does; issue 43 §2).
    pullRequestQueue: lazyClosable(
      () => new BullmqPollQueue({ client: queueClient, logger, namespace, queueName: 'pr-follow', plane }),
    ),
    doorbellLeases: new RedisDoorbellLeases(client, `${namespace}:`),
    agentJobQuota: jobQuotas.default,
    agentJobQuotaFor: jobQuotas.of,
    agentJobUserQuotaFor: userQuota,
    analyticsBudget: quota('analytics', config.analytics.hourlyBudget),
    // A scope's Keyv stores are built when first used: most tenants never read some of them (issue 43 §2).
    analyticsCache: builtOnFirstUse(() => createRedisAnalyticsCache(client, namespace, logger, now)),
    scheduleStore: builtOnFirstUse(() => createRedisScheduleStore(client, namespace, logger)),
    assistantThreads: builtOnFirstUse(() => createRedisAssistantThreadStore(client, namespace, logger)),
    weeklyScheduler: new BullmqWeeklyScheduler({ client: queueClient, logger, namespace, ...onPlane }),
    impactQueue: new BullmqImpactQueue({ client: queueClient, logger, namespace, now, ...onPlane }),
    evidenceStore: builtOnFirstUse(() => createRedisEvidenceStore(client, namespace, logger)),
    sharedMessageRecords: new RedisVersionedRecords(client, namespace),
    alertStore: new RedisAlertStore(client, `${namespace}:`),
    alertScheduler: new BullmqAlertScheduler({
      client: queueClient,
      logger,
      namespace,
      intervalMs: config.analytics.healthAlertIntervalMs,
      ...onPlane,
    }),
    slackSlots: new RedisSharedSlots(client, `${namespace}:`),
    startHandovers,
    ...(options.dueIndex
      ? {
          // Owed deliveries and handed-over starts when they fall due; a tenant with a watched job is looked
          // at again every few seconds (a poll nobody holds), one that only follows PRs every 15 minutes (its
          // reads are plane jobs, due every 5–60 minutes; the look only finds a read nobody holds), one with
          // neither leaves the index: a quiet tenant costs nothing (issue 43).
          async nextDueAt() {
            const [delivery, start, work] = await Promise.all([
              deliveryStore.nextDueAt(),
              startHandovers.nextDueAt(),
              redis.watchedWork(),
            ]);
            const recheck = work.watched ? WATCH_RECHECK_MS : work.following ? FOLLOW_RECHECK_MS : undefined;
            const next = [delivery, start, recheck === undefined ? undefined : Date.now() + recheck].filter(
              (at) => at !== undefined,
            );
            return next.length === 0 ? undefined : Math.min(...next);
          },
        }
      : {}),
    state: () => pingState(client),
    async waitUntilReady(signal) {
      // OAuth mode: the process's shared connections, which the process waited for before any scope: no
      // probe connection per scope built.
      if (!options.sharedRedis && !(await waitForRedis(redisUrl, logger, signal))) return false;
      await redis.connect();
      // Single-workspace mode: its stored data in this version's layout before anything reads it (OAuth
      // mode migrates once per process, before any scope).
      if (ownPlane && !config.oauth)
        await migrateAtStart({ client, ...migrationsFor(config, client, logger, namespace), logger, signal });
      return true;
    },
    async close() {
      await ownPlane?.close();
      await redis.close();
    },
  };
}

/** `ok` when Redis answers a PING within a second, else `unreachable`. */
export async function pingState(client: { ping(): Promise<unknown> }): Promise<'ok' | 'unreachable'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      client.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), 1_000);
      }),
    ]);
    return 'ok';
  } catch {
    return 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}
