import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/common/config.js';
import { InMemoryHourlyQuota } from '../../src/common/hourly-quota.js';
import { createLogger } from '../../src/common/logger.js';
import { type AdapterSet, createAdapters } from '../../src/state/adapters.js';
import { createMemoryJobStore } from '../../src/state/keyv-job-store.js';
import { MemoryPollQueue } from '../../src/state/memory/memory-poll-queue.js';
import { InProcessWeeklyScheduler } from '../../src/state/memory/weekly-cron-scheduler.js';
import { BullmqPollQueue } from '../../src/state/redis/bullmq-poll-queue.js';
import { BullmqWeeklyScheduler } from '../../src/state/redis/bullmq-weekly-scheduler.js';
import { RedisHourlyQuota } from '../../src/state/redis/redis-hourly-quota.js';
import { record } from '../contract/job-store.contract.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const clock = { now: () => Date.now() };
const env = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  SLACK_SIGNING_SECRET: 'secret-secret',
  DOCS_API_KEY: 'svc_abcdefghijklmnopqrstuvwxyz',
  DOCS_PROJECT_ID: 'proj_1',
  AGENT_JOBS_PER_HOUR: '7',
  ANALYTICS_HOURLY_BUDGET: '11',
};

/** Stops what the app would stop before closing the state (the poll queue, the weekly scheduler). */
async function shutDown(adapters: AdapterSet): Promise<void> {
  await adapters.weeklyScheduler.stop();
  await adapters.pollQueue.close();
  await adapters.close();
}

describe('createAdapters without REDIS_URL', () => {
  it('returns the in-memory set, ready at once, with the configured budgets', async () => {
    const adapters = createAdapters(loadConfig(env), { logger, clock });
    expect(adapters.backend).toBe('in-memory');
    expect(adapters.pollQueue).toBeInstanceOf(MemoryPollQueue);
    expect(adapters.weeklyScheduler).toBeInstanceOf(InProcessWeeklyScheduler);
    expect(adapters.agentJobQuota).toBeInstanceOf(InMemoryHourlyQuota);
    expect(await adapters.agentJobQuota.remaining()).toBe(7);
    expect(await adapters.analyticsBudget.remaining()).toBe(11);
    expect(await adapters.waitUntilReady(new AbortController().signal)).toBe(true);
    expect(await adapters.state()).toBe('in-memory');
    await shutDown(adapters);
  });

  it('uses a prepared job store (benchmarks seed one)', async () => {
    const jobStore = createMemoryJobStore(logger);
    const adapters = createAdapters(loadConfig(env), { logger, clock, jobStore });
    expect(adapters.jobStore).toBe(jobStore);
    await shutDown(adapters);
  });
});

describe('createAdapters with REDIS_URL', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('returns the Redis set: state, budgets and polls in Redis under the namespace', async () => {
    const prepared = createMemoryJobStore(logger);
    const adapters = createAdapters(loadConfig({ ...env, REDIS_URL: redis.url }), {
      logger,
      clock,
      jobStore: prepared,
      namespace: 'factory-test',
    });
    expect(adapters.backend).toBe('redis');
    expect(adapters.jobStore).not.toBe(prepared);
    expect(adapters.pollQueue).toBeInstanceOf(BullmqPollQueue);
    expect(adapters.weeklyScheduler).toBeInstanceOf(BullmqWeeklyScheduler);
    expect(adapters.agentJobQuota).toBeInstanceOf(RedisHourlyQuota);
    expect(await adapters.waitUntilReady(new AbortController().signal)).toBe(true);
    expect(await adapters.state()).toBe('ok');

    await adapters.jobStore.saveJob(record({ jobId: 'job_factory' }));
    expect(await adapters.agentJobQuota.take()).toEqual({ ok: true });
    expect(await adapters.analyticsBudget.remaining()).toBe(11);
    const probe = createClient({ url: redis.url });
    await probe.connect();
    const keys = await probe.keys('factory-test*');
    await probe.close();
    expect(keys).toContain('factory-test:quota:agent-jobs:proj_1');
    expect(keys.some((key) => key.includes('job_factory'))).toBe(true);
    await shutDown(adapters);
  });

  it("keeps nothing per user for a user's job budget: each use is a fresh view of the same Redis key", async () => {
    const adapters = createAdapters(loadConfig({ ...env, REDIS_URL: redis.url }), {
      logger,
      clock,
      namespace: 'user-quota-test',
    });
    expect(await adapters.waitUntilReady(new AbortController().signal)).toBe(true);
    const first = adapters.agentJobUserQuotaFor('proj_1', 'U1');
    const again = adapters.agentJobUserQuotaFor('proj_1', 'U1');
    expect(again).not.toBe(first);
    const before = await again.remaining();
    expect(await first.take()).toEqual({ ok: true });
    expect(await first.take()).toEqual({ ok: true });
    expect(await again.remaining()).toBe(before - 2);
    expect(await adapters.agentJobUserQuotaFor('proj_1', 'U2').remaining()).toBe(before);
    await shutDown(adapters);
  });

  it('is not ready while Redis does not answer, and stops waiting on abort', async () => {
    const down = await startRedisServer();
    const url = down.url;
    await down.stop();
    const adapters = createAdapters(loadConfig({ ...env, REDIS_URL: url }), { logger, clock });
    expect(await adapters.state()).toBe('unreachable');
    const abort = new AbortController();
    const waiting = adapters.waitUntilReady(abort.signal);
    setTimeout(() => abort.abort(), 200);
    expect(await waiting).toBe(false);
    await shutDown(adapters);
  });
});
