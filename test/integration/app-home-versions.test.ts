import { randomUUID } from 'node:crypto';
import type { HomeView } from '@slack/types';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import type { JobStore } from '../../src/jobs/ports.js';
import { AppHomePublisher } from '../../src/slack/app-home-publisher.js';
import { createMemoryJobStore } from '../../src/state/keyv-job-store.js';
import { createRedisJobStore } from '../../src/state/redis/redis-job-store.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/*
 * Home's versioning in both state modes: two replicas (two publishers; in Redis mode each on its own
 * connection) and one user. Replica a's read is slow and sees the jobs from before job b was saved;
 * replica b reads after. Whatever the timing, the view left on screen is built from the newer read.
 */
const logger = createLogger({ level: 'silent', secrets: [] });
const DEBOUNCE_MS = 50;

let redis: RedisServer | undefined;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const close of closers) await close();
  await redis?.stop();
});

function job(jobId: string): JobRecord {
  return newJobRecord(
    {
      jobId,
      teamId: 'T1',
      channelId: 'C1',
      threadTs: '1.000100',
      cardTs: '1.000100',
      requesterId: 'U1',
      prompt: `prompt of ${jobId}`,
      origin: 'command',
      status: 'active',
      repository: null,
      ref: null,
      model: null,
      prLink: null,
    },
    1_000,
  );
}

async function stores(mode: 'memory' | 'redis'): Promise<[JobStore, JobStore]> {
  if (mode === 'memory') {
    const store = createMemoryJobStore(logger);
    return [store, store];
  }
  const namespace = `home-${randomUUID()}`;
  const [a, b] = [
    await createRedisJobStore(redis!.url, logger, { namespace }),
    await createRedisJobStore(redis!.url, logger, { namespace }),
  ];
  closers.push(a.close, b.close);
  return [a.store, b.store];
}

describe.each(['memory', 'redis'] as const)('App Home versions (%s)', (mode) => {
  // Checked (memory and redis): without the per-user publish claim, replica a's older view was left on screen.
  it('a view built from an older read never replaces one built from a newer read', async () => {
    const [storeA, storeB] = await stores(mode);
    let onScreen: HomeView | undefined;
    const publish = async (_userId: string, view: HomeView) => {
      onScreen = view;
      return undefined;
    };
    const replica = (store: JobStore) =>
      new AppHomePublisher({
        store,
        schedules: async () => [],
        budgets: async () => [],
        publish,
        logger,
        debounceMs: DEBOUNCE_MS,
      });
    const [a, b] = [replica(storeA), replica(storeB)];
    await storeA.saveJob(job('a'));
    await a.opened('T1', 'U1');
    await new Promise((resolve) => setTimeout(resolve, DEBOUNCE_MS * 4));

    const read = storeA.listByRequester.bind(storeA);
    let readDone!: () => void;
    const slowRead = new Promise<void>((resolve) => {
      readDone = resolve;
    });
    vi.spyOn(storeA, 'listByRequester').mockImplementationOnce(async (...args) => {
      const jobs = await read(...args);
      await slowRead;
      return jobs;
    });
    const older = a.publishNow('T1', 'U1');
    await vi.waitFor(() => expect(storeA.listByRequester).toHaveBeenCalled());
    await storeB.saveJob(job('b'));
    await b.publishNow('T1', 'U1');
    readDone();
    await older;
    await vi.waitFor(() => expect(JSON.stringify(onScreen)).toContain('prompt of b'), { timeout: 5_000 });
    await Promise.all([a.close(), b.close()]);
    expect(JSON.stringify(onScreen)).toContain('prompt of b');
  });
});
