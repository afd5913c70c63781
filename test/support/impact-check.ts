import type { ImpactCheck } from '../../src/insights/health/ports.js';

/** A "did it work?" check of a job's merged PR, as the impact queues hold it. */
export function impactCheck(jobId = 'job:1'): ImpactCheck {
  return {
    jobId,
    channelId: 'C1',
    threadTs: '1.000',
    evidenceRef: '{}',
    prLink: 'https://github.com/acme/docs/pull/1',
    prSeenAt: 0,
  };
}
