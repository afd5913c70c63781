import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/common/logger.js';
import { type JobRecord, newJobRecord } from '../../../src/jobs/domain/job.js';
import type { PollQueue } from '../../../src/jobs/ports.js';
import { resumeFollowing, stopFollowing } from '../../../src/jobs/use-cases/stop-following.js';
import { createMemoryJobStore } from '../../../src/state/keyv-job-store.js';

/*
 * Stop and "Keep following" on the real memory store (with its version check): the record says whether the
 * job is followed, so every replica's next poll or save sees it; the pending poll is cancelled or scheduled.
 */

const logger = createLogger({ level: 'silent', secrets: [] });

function job(): JobRecord {
  return newJobRecord(
    {
      jobId: 'job_1',
      teamId: 'T0TEAM',
      channelId: 'D0ALICE',
      threadTs: '1.000001',
      cardTs: '1.000002',
      requesterId: 'U0ALICE',
      prompt: 'Document the 429 response',
      origin: 'assistant',
      status: 'active',
      repository: null,
      ref: null,
      model: null,
      prLink: null,
    },
    0,
  );
}

async function setup() {
  const store = createMemoryJobStore(logger);
  await store.saveJob(job());
  const queue = { cancelled: [] as string[], scheduled: [] as string[] };
  const deps = {
    store,
    clock: { now: () => 5_000 },
    poll: { minMs: 25, maxMs: 200, maxAgeMs: 60_000 },
    queue: {
      cancel: async (id: string) => void queue.cancelled.push(id),
      schedule: async (id: string) => void queue.scheduled.push(id),
    } as unknown as PollQueue,
  };
  return { store, queue, deps };
}

describe('stop following and keep following', () => {
  it('stops following once: the record says so, the pending poll is cancelled, a second Stop finds nothing', async () => {
    const { store, queue, deps } = await setup();
    const first = await stopFollowing(deps, 'job_1');
    expect(first).toMatchObject({ ok: true, record: { watching: false, watchEnded: 'stopped' } });
    expect(queue.cancelled).toEqual(['job_1']);
    expect((await store.getJob('job_1'))?.watching).toBe(false);
    expect(await stopFollowing(deps, 'job_1')).toMatchObject({ ok: false, reason: 'not_watched' });
    expect(await stopFollowing(deps, 'job_2')).toEqual({ ok: false, reason: 'unknown_job' });
  });

  it("refuses a stale poll's save after the stop (the version check): no replica undoes it", async () => {
    const { store, deps } = await setup();
    const pollCopy = (await store.getJob('job_1'))!;
    await stopFollowing(deps, 'job_1');
    pollCopy.ref = 'docs/branch';
    await expect(store.saveJob(pollCopy)).rejects.toMatchObject({ code: 'version_conflict' });
    expect((await store.getJob('job_1'))?.watching).toBe(false);
  });

  it('keeps following the stopped run only: schedules a poll; a later run or a second click is refused', async () => {
    const { store, queue, deps } = await setup();
    expect(await resumeFollowing(deps, 'job_1', 1)).toMatchObject({ ok: false, reason: 'already_watched' });
    await stopFollowing(deps, 'job_1');
    expect(await resumeFollowing(deps, 'job_1', 2)).toMatchObject({ ok: false, reason: 'not_stopped' });
    expect(await resumeFollowing(deps, 'job_1', 1)).toMatchObject({ ok: true, record: { watching: true } });
    expect(queue.scheduled).toEqual(['job_1']);
    expect((await store.getJob('job_1'))?.watchEnded).toBeNull();
    expect(await resumeFollowing(deps, 'job_1', 1)).toMatchObject({ ok: false, reason: 'already_watched' });
  });
});
