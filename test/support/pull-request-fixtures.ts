import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import type { PollQueue } from '../../src/jobs/ports.js';
import type { PullRequestFollow } from '../../src/jobs/pull-requests/pull-request.js';

/** A finished job whose PR (`https://github.com/a/b/pull/<n>`) is followed, in its first read's state. */
export function followedRecord(jobId = 'job_1', follow: Partial<PullRequestFollow> = {}, n = '1'): JobRecord {
  const url = `https://github.com/a/b/pull/${n}`;
  const record = newJobRecord(
    {
      jobId,
      teamId: 'T1',
      channelId: 'C1',
      threadTs: '1.0',
      cardTs: '1.0',
      requesterId: 'U1',
      prompt: 'p',
      origin: 'command',
      status: 'completed',
      repository: 'https://github.com/a/b',
      ref: null,
      model: null,
      prLink: url,
    },
    0,
  );
  record.pullRequest = {
    url,
    startedAt: 0,
    last: null,
    reads: 0,
    failures: 0,
    ended: null,
    noticed: false,
    ...follow,
  };
  return record;
}

/** A poll queue that does nothing (the use case under test is called directly). */
export function idleQueue(overrides: Partial<PollQueue> = {}): PollQueue {
  return {
    start: () => undefined,
    schedule: async () => undefined,
    cancel: async () => undefined,
    reconcile: async () => 0,
    close: async () => undefined,
    ...overrides,
  };
}
