import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { PullRequestFollower } from '../../src/jobs/pull-requests/pull-request-follower.js';
import { createMemoryJobStore } from '../../src/state/keyv-job-store.js';
import { followedRecord, idleQueue } from '../support/pull-request-fixtures.js';

const logger = createLogger({ level: 'silent', secrets: [] });

const followed = (jobId: string, ended: 'merged' | null, noticed: boolean) => {
  const record = followedRecord(jobId, { ended, noticed }, jobId);
  record.watching = false;
  return record;
};

describe('followed pull requests are reconciled', () => {
  it('every followed PR without a pending read gets one; ended ones leave the index', async () => {
    const store = createMemoryJobStore(logger);
    for (const record of [
      followed('job_a', null, false),
      followed('job_b', 'merged', false),
      followed('job_c', 'merged', true),
    ]) {
      await store.saveJob(record);
      await store.setFollowing(record.jobId, true);
    }
    await store.setFollowing('job_gone', true);
    const asked: string[][] = [];
    const queue = idleQueue({
      reconcile: async (ids) => {
        asked.push([...ids].sort());
        return ids.length;
      },
    });
    const follower = new PullRequestFollower({
      reader: { read: async () => Promise.reject(new Error('not read in this test')) },
      store,
      queue,
      notices: { post: async () => undefined },
      notifier: { updateCard: async () => undefined },
      outcomes: { merged: async () => undefined, unreadable: async () => undefined },
      clock: { now: () => 1 },
      logger,
      timing: { minMs: 1_000, maxMs: 10_000, maxAgeMs: 86_400_000 },
      webUrl: 'https://github.com',
    });
    // Still followed: a, and b (ended but its one thread message not yet posted).
    expect(await follower.reconcile()).toBe(2);
    expect(asked).toEqual([['job_a', 'job_b']]);
    expect((await store.listFollowing()).sort()).toEqual(['job_a', 'job_b']);
  });
});
