import { describe, expect, it } from 'vitest';
import { DocsApiError } from '../../../src/common/docs-api-error.js';
import { InMemoryHourlyQuota } from '../../../src/common/hourly-quota.js';
import { createLogger } from '../../../src/common/logger.js';
import { ProjectDirectory } from '../../../src/common/projects.js';
import { type AgentJob, type JobRecord, JobVersionConflictError } from '../../../src/jobs/domain/job.js';
import { JobService } from '../../../src/jobs/job-service.js';
import type { JobNotifier, PollQueue, TerminalOutcome } from '../../../src/jobs/ports.js';
import { StateUnavailableError } from '../../../src/state/keyv-job-store.js';
import { fakeJobStore } from './fake-job-store.js';

const logger = createLogger({ level: 'silent', secrets: [], destination: { write: () => undefined } });

function agentJob(status: string, prLink: string | null = null): AgentJob {
  return {
    id: 'job_1',
    status,
    repository: null,
    ref: null,
    model: null,
    prLink,
    createdAt: null,
    archivedAt: null,
  };
}

/** A JobService on in-memory fakes with a hand-driven clock and a scripted docs API. */
function harness() {
  let now = 1_000_000;
  const records = new Map<string, JobRecord>();
  const replies: Array<{ generation: number; outcome: TerminalOutcome }> = [];
  const scheduled: number[] = [];
  const gets: AgentJob[] = [];
  let sendResult: AgentJob | Error = agentJob('active');
  /** The next saves fail this way, in order: a version conflict, or the store not answering. */
  const saveFailures: Array<'conflict' | 'error'> = [];
  const waits: number[] = [];
  const fake = fakeJobStore(records);
  const store = {
    ...fake,
    saveJob: async (record: JobRecord) => {
      const failure = saveFailures.shift();
      if (failure === 'conflict') throw new JobVersionConflictError(record.jobId, record.version ?? 0);
      if (failure === 'error') throw new StateUnavailableError(new Error('ECONNRESET'));
      await fake.saveJob(record);
    },
  };
  const notifier: JobNotifier = {
    postStartingCard: async () => '1.0001',
    updateCard: async () => undefined,
    markCardFailed: async () => undefined,
    postTerminalReply: async (record, outcome) => {
      replies.push({ generation: record.generation, outcome });
    },
    postNotice: async () => undefined,
  };
  const queue: PollQueue = {
    start: () => undefined,
    schedule: async (_id, delay) => void scheduled.push(delay),
    cancel: async () => undefined,
    reconcile: async () => 0,
    close: async () => undefined,
  };
  const quota = new InMemoryHourlyQuota(100, () => now);
  const service = new JobService({
    projects: new ProjectDirectory('proj_test'),
    quotaFor: () => quota,
    apiFor: () => ({
      createJob: async () => agentJob('active'),
      getJob: async () => gets.shift() ?? agentJob('active'),
      sendMessage: async () => {
        if (sendResult instanceof Error) throw sendResult;
        return sendResult;
      },
    }),
    store,
    notifier,
    queue,
    clock: { now: () => now },
    logger,
    poll: { minMs: 1000, maxMs: 10_000, maxAgeMs: 3_600_000 },
    followUpGraceMs: 20_000,
    random: () => 0.5,
    wait: async (ms) => void waits.push(ms),
  });
  return {
    service,
    records,
    replies,
    scheduled,
    gets,
    saveFailures,
    waits,
    advance: (ms: number) => {
      now += ms;
    },
    setSend: (result: AgentJob | Error) => {
      sendResult = result;
    },
  };
}

/** A job that was started and finished with a PR (generation 1 replied). */
async function finishedJob(h: ReturnType<typeof harness>) {
  await h.service.start({
    teamId: 'T1',
    channelId: 'C1',
    threadTs: null,
    requesterId: 'U1',
    prompt: 'do it',
    origin: 'command',
  });
  h.gets.push(agentJob('completed', 'https://github.com/acme/docs/pull/1'));
  expect(await h.service.poll('job_1')).toBeNull();
  expect(h.replies).toHaveLength(1);
}

describe('JobService follow-ups', () => {
  it('starts a new generation, watched again at the fast cadence', async () => {
    const h = harness();
    await finishedJob(h);
    h.advance(60_000);
    const result = await h.service.followUp({ jobId: 'job_1', prompt: 'more' });
    expect(result.ok).toBe(true);
    const record = h.records.get('job_1')!;
    expect(record).toMatchObject({ generation: 2, repliedGeneration: 1, watching: true, status: 'active' });
    expect(record.activeSince).toBe(1_060_000);
    expect(h.scheduled.at(-1)).toBe(1000);
  });

  it('ignores a stale terminal status until the job is seen running, then replies once', async () => {
    const h = harness();
    await finishedJob(h);
    await h.service.followUp({ jobId: 'job_1', prompt: 'more' });
    h.gets.push(agentJob('completed', 'https://github.com/acme/docs/pull/1'));
    expect(await h.service.poll('job_1')).toBe(1000);
    expect(h.replies).toHaveLength(1);
    h.gets.push(agentJob('active'), agentJob('completed', 'https://github.com/acme/docs/pull/2'));
    expect(await h.service.poll('job_1')).not.toBeNull();
    expect(await h.service.poll('job_1')).toBeNull();
    expect(h.replies).toHaveLength(2);
    expect(h.replies[1]).toEqual({
      generation: 2,
      outcome: { kind: 'pull_request', prLink: 'https://github.com/acme/docs/pull/2' },
    });
  });

  it('trusts a terminal status after the grace period even if the run was never seen', async () => {
    const h = harness();
    await finishedJob(h);
    await h.service.followUp({ jobId: 'job_1', prompt: 'more' });
    h.advance(20_000);
    h.gets.push(agentJob('completed', null));
    expect(await h.service.poll('job_1')).toBeNull();
    expect(h.replies[1]).toEqual({
      generation: 2,
      outcome: { kind: 'no_changes', previousPrLink: 'https://github.com/acme/docs/pull/1' },
    });
  });

  it('reports refusals without changing the generation; a 404 marks the job gone', async () => {
    const h = harness();
    await finishedJob(h);
    h.setSend(new DocsApiError('invalid_request', 'bad', { status: 400, apiMessage: 'bad' }));
    const refused = await h.service.followUp({ jobId: 'job_1', prompt: 'more' });
    expect(refused).toMatchObject({ ok: false, reason: 'refused', reachedApi: true });
    expect(h.records.get('job_1')!.generation).toBe(1);
    h.setSend(new DocsApiError('not_found', 'gone', { status: 404 }));
    await h.service.followUp({ jobId: 'job_1', prompt: 'more' });
    expect(h.records.get('job_1')).toMatchObject({ watching: false, watchEnded: 'gone', generation: 1 });
    expect(await h.service.followUp({ jobId: 'job_404', prompt: 'x' })).toEqual({
      ok: false,
      reason: 'unknown_job',
    });
  });

  it('retries a save that hit a store error, with backoff, and records the new run', async () => {
    const h = harness();
    await finishedJob(h);
    h.saveFailures.push('error', 'error');
    const result = await h.service.followUp({ jobId: 'job_1', prompt: 'more' });
    expect(result.ok).toBe(true);
    expect(h.records.get('job_1')).toMatchObject({ generation: 2, watching: true });
    expect(h.waits).toEqual([250, 500]);
    // Polled, and the poll follows the new run to its reply.
    expect(h.scheduled.at(-1)).toBe(1000);
    h.gets.push(agentJob('active'), agentJob('completed', 'https://github.com/acme/docs/pull/2'));
    await h.service.poll('job_1');
    expect(await h.service.poll('job_1')).toBeNull();
    expect(h.replies.map((r) => r.generation)).toEqual([1, 2]);
  });

  it('gets past five conflicts in a row (another replica saving) by re-reading with backoff', async () => {
    const h = harness();
    await finishedJob(h);
    h.saveFailures.push('conflict', 'conflict', 'conflict', 'conflict', 'conflict');
    const result = await h.service.followUp({ jobId: 'job_1', prompt: 'more' });
    expect(result.ok).toBe(true);
    expect(h.records.get('job_1')).toMatchObject({ generation: 2, watching: true });
    expect(h.waits).toEqual([250, 500, 1000, 2000, 2000]);
  });

  it('says the run was not recorded when the store keeps failing, and still schedules a poll', async () => {
    const h = harness();
    await finishedJob(h);
    const pollsBefore = h.scheduled.length;
    h.saveFailures.push(...Array.from({ length: 10 }, () => 'error' as const));
    const result = await h.service.followUp({ jobId: 'job_1', prompt: 'more' });
    expect(result).toMatchObject({ ok: false, reason: 'not_recorded' });
    expect(h.waits.length).toBeGreaterThanOrEqual(3);
    expect(h.scheduled.length).toBe(pollsBefore + 1);
  });
});
