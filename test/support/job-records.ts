import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';

/** When the default job was created, and its last update 65 s later: "took 1m 5s" in cards. */
export const JOB_CREATED_AT = Date.parse('2026-11-21T09:58:55Z');

/**
 * One job record for message, lifecycle and listener tests: Alice's command job in C1, running, on
 * acme/docs with a branch and a model (what people's view must never show). Tests override what they test.
 */
export function jobRecord(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: 'job_7f3a9c',
        teamId: 'T1',
        channelId: 'C1',
        threadTs: '1.000001',
        cardTs: '1.000001',
        requesterId: 'U0ALICE',
        prompt: 'Document the 429 response',
        origin: 'command',
        status: 'active',
        repository: 'https://github.com/acme/docs',
        ref: 'docs-agent/rate-limits-429',
        model: 'claude-sonnet-4-5',
        prLink: null,
      },
      JOB_CREATED_AT,
    ),
    updatedAt: JOB_CREATED_AT + 65_000,
    ...overrides,
  };
}
