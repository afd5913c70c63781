import { describe, expect, it } from 'vitest';
import { type AgentJob, type JobRecord, newJobRecord } from '../../../src/jobs/domain/job.js';
import {
  applyJob,
  endWatch,
  FOLLOW_UP_GRACE_MIN_MS,
  followUpGraceMs,
  outcomeOf,
  startGeneration,
  trustsTerminal,
} from '../../../src/jobs/domain/lifecycle.js';

function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: 'job-1',
        teamId: 'T1',
        channelId: 'C1',
        threadTs: '1.000',
        cardTs: '1.000',
        requesterId: 'U1',
        prompt: 'fix the docs',
        origin: 'command',
        status: 'active',
        repository: 'acme/docs',
        ref: null,
        model: null,
        prLink: null,
      },
      1_000,
    ),
    ...overrides,
  };
}

function job(overrides: Partial<AgentJob> = {}): AgentJob {
  return {
    id: 'job-1',
    status: 'active',
    repository: 'acme/docs',
    ref: null,
    model: null,
    prLink: null,
    createdAt: null,
    archivedAt: null,
    ...overrides,
  };
}

describe('applyJob', () => {
  it('copies the reported state and says whether anything on the card changed', () => {
    const r = record();
    expect(applyJob(r, job())).toBe(false);
    expect(applyJob(r, job({ ref: 'docs-agent/fix', model: 'm1' }))).toBe(true);
    expect(r).toMatchObject({ ref: 'docs-agent/fix', model: 'm1', status: 'active' });
  });

  it('keeps known values (and an opened PR) when the platform reports null', () => {
    const r = record({ ref: 'b', prLink: 'https://git.example/pr/1' });
    expect(applyJob(r, job({ status: 'completed', ref: null, prLink: null }))).toBe(true);
    expect(r).toMatchObject({ status: 'completed', ref: 'b', prLink: 'https://git.example/pr/1' });
  });
});

describe('outcomeOf', () => {
  it('maps terminal statuses to the reply the thread gets', () => {
    expect(outcomeOf(job({ status: 'failed', prLink: 'x' }), null)).toEqual({ kind: 'failed' });
    expect(outcomeOf(job({ status: 'archived' }), null)).toEqual({ kind: 'archived' });
    expect(outcomeOf(job({ status: 'completed', prLink: 'pr' }), null)).toEqual({
      kind: 'pull_request',
      prLink: 'pr',
    });
    expect(outcomeOf(job({ status: 'completed' }), 'old-pr')).toEqual({
      kind: 'no_changes',
      previousPrLink: 'old-pr',
    });
  });
});

describe('startGeneration and endWatch', () => {
  it('a follow-up opens a watched generation with failures forgotten', () => {
    const r = record({ watching: false, watchEnded: 'gone', consecutiveFailures: 3, status: 'completed' });
    startGeneration(r, job({ status: 'active' }), 5_000);
    expect(r).toMatchObject({
      generation: 2,
      activeSince: 5_000,
      updatedAt: 5_000,
      watching: true,
      watchEnded: null,
      consecutiveFailures: 0,
      status: 'active',
    });
  });

  it('ending a watch records why and when', () => {
    const r = record();
    endWatch(r, 'expired', 9_000);
    expect(r).toMatchObject({ watching: false, watchEnded: 'expired', updatedAt: 9_000 });
  });
});

describe('trustsTerminal', () => {
  it('trusts the first generation at once', () => {
    expect(trustsTerminal(record({ generation: 1, activeSince: 1_000 }), 1_000, 60_000)).toBe(true);
  });

  it('trusts a follow-up generation once seen running in it, or after the grace period', () => {
    const r = record({ generation: 2, activeSince: 10_000 });
    expect(trustsTerminal(r, 10_500, 30_000)).toBe(false);
    expect(trustsTerminal(r, 40_000, 30_000)).toBe(true);
    expect(trustsTerminal({ ...r, seenRunningGeneration: 2 }, 10_500, 30_000)).toBe(true);
    expect(trustsTerminal({ ...r, seenRunningGeneration: 1 }, 10_500, 30_000)).toBe(false);
  });

  it('the grace period is the configured one, else at least 30 s or six fast polls', () => {
    expect(followUpGraceMs(1_234, 10_000)).toBe(1_234);
    expect(followUpGraceMs(undefined, 1_000)).toBe(FOLLOW_UP_GRACE_MIN_MS);
    expect(followUpGraceMs(undefined, 10_000)).toBe(60_000);
  });
});
