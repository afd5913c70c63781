import { describe, expect, it } from 'vitest';
import { InMemoryHourlyQuota } from '../../../src/common/hourly-quota.js';
import { createLogger } from '../../../src/common/logger.js';
import { ProjectDirectory } from '../../../src/common/projects.js';
import type { AgentJob, JobRecord } from '../../../src/jobs/domain/job.js';
import { JobService } from '../../../src/jobs/job-service.js';
import type { JobNotifier } from '../../../src/jobs/ports.js';
import { fakeJobStore } from './fake-job-store.js';

const logger = createLogger({ level: 'silent', secrets: [], destination: { write: () => undefined } });
const PR = 'https://github.com/acme/docs/pull/9';

const agentJob = (status: string, prLink: string | null = null): AgentJob => ({
  id: 'job_1',
  status,
  repository: null,
  ref: null,
  model: null,
  prLink,
  createdAt: null,
  archivedAt: null,
});

/** JobService on in-memory fakes; the notifier's reply is once per generation, as the real claim makes it. */
function harness(onPullRequest: (record: JobRecord, prLink: string) => Promise<void>) {
  const records = new Map<string, JobRecord>();
  const replied = new Set<number>();
  const gets: AgentJob[] = [];
  const store = fakeJobStore(records);
  const notifier: JobNotifier = {
    postStartingCard: async () => '1.0001',
    updateCard: async () => undefined,
    markCardFailed: async () => undefined,
    postTerminalReply: async (record) => {
      replied.add(record.generation);
    },
    postNotice: async () => undefined,
  };
  const quota = new InMemoryHourlyQuota(100);
  const service = new JobService({
    projects: new ProjectDirectory('proj_test'),
    quotaFor: () => quota,
    apiFor: () => ({
      createJob: async () => agentJob('active'),
      getJob: async () => gets.shift() ?? agentJob('active'),
      sendMessage: async () => agentJob('active'),
    }),
    store,
    notifier,
    queue: {
      start: () => undefined,
      schedule: async () => undefined,
      cancel: async () => undefined,
      reconcile: async () => 0,
      close: async () => undefined,
    },
    clock: { now: () => 1_000_000 },
    logger,
    poll: { minMs: 1000, maxMs: 10_000, maxAgeMs: 3_600_000 },
    onPullRequest,
  });
  const start = (evidenceRef?: string) =>
    service.start({
      teamId: 'T1',
      channelId: 'C1',
      threadTs: null,
      requesterId: 'U1',
      prompt: 'fix it',
      origin: evidenceRef ? 'health_fix' : 'command',
      ...(evidenceRef ? { evidenceRef } : {}),
    });
  return { service, records, replied, gets, start };
}

describe('onPullRequest (every job ending with a PR: followed on GitHub; health fixes get their check)', () => {
  it('is called with the record and the PR once the reply is posted, for every job with a PR', async () => {
    const seen: Array<[string | undefined, string]> = [];
    const hook = async (record: JobRecord, prLink: string) => void seen.push([record.evidenceRef, prLink]);
    const withEvidence = harness(hook);
    await withEvidence.start('{"kind":"search"}');
    withEvidence.gets.push(agentJob('completed', PR));
    expect(await withEvidence.service.poll('job_1')).toBeNull();
    expect(seen).toEqual([['{"kind":"search"}', PR]]);

    const noEvidence = harness(hook);
    await noEvidence.start();
    noEvidence.gets.push(agentJob('completed', PR));
    await noEvidence.service.poll('job_1');
    const noPr = harness(hook);
    await noPr.start('{"kind":"page"}');
    noPr.gets.push(agentJob('completed', null));
    await noPr.service.poll('job_1');
    expect(seen).toEqual([
      ['{"kind":"search"}', PR],
      [undefined, PR],
    ]);
  });

  it('a failing hook retries the poll: the hook runs again, the reply is not posted twice', async () => {
    let calls = 0;
    const h = harness(async () => {
      calls += 1;
      if (calls === 1) throw new Error('redis down');
    });
    await h.start('{"kind":"question"}');
    h.gets.push(agentJob('completed', PR), agentJob('completed', PR));
    const retry = await h.service.poll('job_1');
    expect(retry).toBeGreaterThan(0);
    expect(h.records.get('job_1')).toMatchObject({ watching: true, repliedGeneration: 0 });
    expect(await h.service.poll('job_1')).toBeNull();
    expect(calls).toBe(2);
    expect(h.replied.size).toBe(1);
    expect(h.records.get('job_1')).toMatchObject({ watching: false, repliedGeneration: 1 });
  });
});
