import { describe, expect, it } from 'vitest';
import type { FeedbackVote, JobFeedbackStore } from '../../src/jobs/job-feedback.js';
import { MemoryFeedbackStore } from '../../src/state/memory/memory-feedback-store.js';
import { RedisFeedbackStore } from '../../src/state/redis/redis-feedback-store.js';
import { redisForReplicas } from '../support/redis-replicas.js';

/** The feedback store's contract, memory and Redis (two clients = two replicas on one Redis). */
const redis = redisForReplicas();

async function redisStores(): Promise<[JobFeedbackStore, JobFeedbackStore]> {
  const [a, b] = [await redis.replica(), await redis.replica()];
  const prefix = `t${Math.random().toString(36).slice(2, 8)}:`;
  return [new RedisFeedbackStore(a, prefix), new RedisFeedbackStore(b, prefix)];
}

const memory = async (): Promise<[JobFeedbackStore, JobFeedbackStore]> => {
  const store = new MemoryFeedbackStore();
  return [store, store];
};

describe.each([
  ['memory', memory],
  ['redis', redisStores],
] as const)('JobFeedbackStore (%s)', (_mode, make) => {
  it('one vote per person per job: replaced, not added; others add; filed by month', async () => {
    const [store] = await make();
    expect(await store.vote('job_1', 'U1', 'useful', '2026-11')).toBeNull();
    expect(await store.vote('job_1', 'U1', 'not_useful', '2026-11')).toBe('useful');
    expect(await store.vote('job_1', 'U2', 'useful', '2026-11')).toBeNull();
    expect(await store.vote('job_2', 'U1', 'useful', '2026-10')).toBeNull();
    expect(await store.tallies('2026-11')).toEqual([{ jobId: 'job_1', useful: 1, notUseful: 1 }]);
    expect(await store.tallies('2026-10')).toEqual([{ jobId: 'job_2', useful: 1, notUseful: 0 }]);
    expect(await store.tallies('2026-09')).toEqual([]);
  });

  it('concurrent clicks by one person on two replicas leave one vote, and only one of them is "new"', async () => {
    const [a, b] = await make();
    const votes: FeedbackVote[] = ['useful', 'not_useful'];
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) => (i % 2 ? a : b).vote('job_9', 'U1', votes[i % 2]!, '2026-11')),
    );
    expect(results.filter((previous) => previous === null)).toHaveLength(1);
    const [tally] = await a.tallies('2026-11');
    expect((tally?.useful ?? 0) + (tally?.notUseful ?? 0)).toBe(1);
  });
});
