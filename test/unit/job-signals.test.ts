import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import { wantedSignal } from '../../src/jobs/domain/job-signal.js';
import { type JobSignalCalls, JobSignalFollower } from '../../src/slack/job-signals.js';

const logger = createLogger({ level: 'silent', secrets: [] });

function record(fields: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: 'job_1',
        teamId: null,
        channelId: 'C1',
        threadTs: '1.000001',
        cardTs: '1.000002',
        sourceTs: '1.000001',
        requesterId: 'U1',
        prompt: 'tidy',
        origin: 'mention',
        status: 'active',
        repository: null,
        ref: null,
        model: null,
        prLink: null,
      },
      1_000,
    ),
    ...fields,
  };
}

const done = (fields: Partial<JobRecord> = {}) =>
  record({ watching: false, status: 'completed', prLink: 'https://github.com/a/b/pull/1', ...fields });

/** Slack's reactions on the one source message, with a hook run inside each add (another replica acting). */
function slack(onAdd: (name: string) => void = () => undefined) {
  const shown = new Set<string>();
  const calls = {
    async addReaction(_c: string, _ts: string, name: string) {
      shown.add(name);
      onAdd(name);
    },
    async removeReaction(_c: string, _ts: string, name: string) {
      shown.delete(name);
    },
  } as unknown as JobSignalCalls;
  return { shown, calls };
}

describe('wantedSignal: from the record alone', () => {
  it('running, PR, problem; nothing without a source message', () => {
    expect(wantedSignal(record())).toBe('running');
    expect(wantedSignal(done())).toBe('pull_request');
    expect(wantedSignal(done({ prLink: null }))).toBe('problem');
    expect(wantedSignal(done({ status: 'failed' }))).toBe('problem');
    expect(wantedSignal(done({ status: 'archived' }))).toBe('problem');
    expect(wantedSignal(record({ watching: false, watchEnded: 'expired' }))).toBe('problem');
    expect(wantedSignal(done({ sourceTs: undefined }))).toBeNull();
  });
});

describe('JobSignalFollower', () => {
  it('latest state wins: a change saved while a stale one is being shown is shown next', async () => {
    let stored = record();
    // While 👀 (from a stale read) lands, another replica finishes the job and saves it.
    const { shown, calls } = slack((name) => {
      if (name === 'eyes') stored = done();
    });
    const follower = new JobSignalFollower(calls, { getJob: async () => structuredClone(stored) }, logger);
    follower.jobChanged(record());
    await follower.idle();
    expect([...shown]).toEqual(['white_check_mark']);
  });

  it('a follow-up after ✅ shows 👀 again and then ⚠️ if that run fails, one at a time', async () => {
    let stored = done();
    const { shown, calls } = slack();
    const follower = new JobSignalFollower(calls, { getJob: async () => structuredClone(stored) }, logger);
    follower.jobChanged(stored);
    await follower.idle();
    expect([...shown]).toEqual(['white_check_mark']);
    stored = record({ generation: 2 });
    follower.jobChanged(stored);
    await follower.idle();
    expect([...shown]).toEqual(['eyes']);
    stored = done({ generation: 2, status: 'failed' });
    follower.jobChanged(stored);
    await follower.idle();
    expect([...shown]).toEqual(['warning']);
  });

  it('repeated changes to the same state cost no Slack call; jobs without a source message none at all', async () => {
    const stored = record();
    let adds = 0;
    const { calls } = slack(() => {
      adds += 1;
    });
    const follower = new JobSignalFollower(calls, { getJob: async () => structuredClone(stored) }, logger);
    for (let i = 0; i < 5; i++) follower.jobChanged(stored);
    await follower.idle();
    follower.jobChanged(stored);
    await follower.idle();
    expect(adds).toBe(1);
    follower.jobChanged(record({ sourceTs: undefined, jobId: 'job_2' }));
    await follower.idle();
    expect(adds).toBe(1);
  });
});
