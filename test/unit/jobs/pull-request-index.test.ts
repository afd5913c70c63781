import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/common/logger.js';
import { changeSeenFrom } from '../../../src/insights/page-snapshot/page-snapshot.js';
import type { JobRecord } from '../../../src/jobs/domain/job.js';
import type { PullRequestState } from '../../../src/jobs/pull-requests/pull-request.js';
import { PullRequestIndex } from '../../../src/jobs/pull-requests/pull-request-index.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const PR = 'https://github.com/Acme/Docs/pull/12';

function setup() {
  const kv = new Map<string, string>();
  const jobs = new Map<string, JobRecord>();
  const index = new PullRequestIndex({
    store: { put: async (k, v) => void kv.set(k, v), get: async (k) => kv.get(k) },
    jobs: { getJob: async (id) => jobs.get(id) },
    webUrl: 'https://github.com',
    logger,
  });
  const record = (jobId: string, fields: Partial<JobRecord> = {}) => {
    const r = {
      ...{ jobId, teamId: 'T1', channelId: 'C1', threadTs: '1.1', cardTs: '1.1', requesterId: 'U1' },
      ...{ prompt: 'Fix it', origin: 'command', status: 'completed', prLink: PR, ...fields },
    } as JobRecord;
    jobs.set(jobId, r);
    return r;
  };
  return { index, kv, record };
}

const merged = (mergedAt: number, files: string[]): PullRequestState => ({
  ...{ state: 'merged', draft: false, review: 'none', checks: 'none', openedAt: 0, mergedAt },
  ...{ mergedBy: 'octo', closedAt: null, headSha: 'abc', files },
});

describe('PullRequestIndex', () => {
  it('finds the job of a PR link however the owner and repo are cased, and nothing for other links', async () => {
    const { index, record } = setup();
    await index.remember(record('job_1'), PR);
    const here = { channelId: 'C1' };
    expect(await index.describe('https://github.com/acme/docs/pull/12/files', here)).toMatchObject({
      kind: 'job',
      jobId: 'job_1',
    });
    expect(await index.describe('https://github.com/acme/docs/pull/13', here)).toBeUndefined();
    expect(await index.describe('https://gitlab.com/acme/docs/pull/12', here)).toBeUndefined();
  });

  it('shows the job (instruction, requester, id) only in its own channel: elsewhere the PR’s number and state', async () => {
    const { index, record } = setup();
    await index.remember(record('job_1', { channelId: 'G0PRIVATE', prompt: 'Secret roadmap' }), PR);
    const own = await index.describe(PR, { channelId: 'G0PRIVATE' });
    expect(own).toMatchObject({ kind: 'job', prompt: 'Secret roadmap', requesterId: 'U1' });
    for (const channelId of ['C0PUBLIC', 'D0SOMEONE', 'C1']) {
      const elsewhere = await index.describe(PR, { channelId });
      expect(elsewhere).toEqual({
        kind: 'state',
        ...{ prLink: PR, repo: 'Acme/Docs', number: 12, pr: null, followed: false, teamId: 'T1' },
      });
      expect(JSON.stringify(elsewhere)).not.toMatch(/Secret|U1|job_1|G0PRIVATE|1\.1/);
    }
  });

  it('names the newest merged PR of ours for each docs page it changed, per project', async () => {
    const { index, record } = setup();
    const older = record('job_old', { prLink: 'https://github.com/acme/docs/pull/1' });
    const newer = record('job_new', { requesterId: 'U2' });
    await index.rememberMerged(newer, merged(2_000, ['docs/guides/auth.mdx', 'src/app.ts']));
    await index.rememberMerged(older, merged(1_000, ['docs/guides/auth.mdx']));
    expect(await index.lastMerged('p0', 'p0', '/guides/auth')).toMatchObject({
      jobId: 'job_new',
      requesterId: 'U2',
      mergedAt: 2_000,
    });
    expect(await index.lastMerged('p0', 'p0', '/src/app')).toBeUndefined();
    expect(await index.lastMerged('p_other', 'p0', '/guides/auth')).toBeUndefined();
    const elsewhere = record('job_p', { projectId: 'p_other' });
    await index.rememberMerged(elsewhere, merged(3_000, ['guides/auth.md']));
    expect((await index.lastMerged('p_other', 'p0', '/guides/auth'))?.jobId).toBe('job_p');
  });

  it('keeps the job’s channel with a page’s last change, and names its requester only there (changeSeenFrom)', async () => {
    const { index, record } = setup();
    await index.rememberMerged(
      record('job_p', { channelId: 'G0PRIVATE' }),
      merged(5_000, ['guides/auth.md']),
    );
    const change = await index.lastMerged('p0', 'p0', '/guides/auth');
    expect(change).toMatchObject({ jobId: 'job_p', requesterId: 'U1', channelId: 'G0PRIVATE' });
    expect(changeSeenFrom(change!, 'G0PRIVATE')).toEqual(change);
    expect(changeSeenFrom(change!, 'C0PUBLIC')).toEqual({ prLink: PR, mergedAt: 5_000 });
    // Entries recorded before the channel was kept name nobody anywhere.
    expect(changeSeenFrom({ prLink: PR, mergedAt: 1, jobId: 'j', requesterId: 'U1' }, 'C1')).toEqual({
      prLink: PR,
      mergedAt: 1,
    });
  });

  it('never throws when the store fails', async () => {
    const index = new PullRequestIndex({
      store: {
        put: async () => Promise.reject(new Error('down')),
        get: async () => Promise.reject(new Error('down')),
      },
      jobs: { getJob: async () => undefined },
      webUrl: 'https://github.com',
      logger,
    });
    await expect(index.remember({ jobId: 'j' }, PR)).resolves.toBeUndefined();
    await expect(
      index.rememberMerged({ jobId: 'j', requesterId: 'U', prLink: PR } as JobRecord, merged(1, ['a.md'])),
    ).resolves.toBeUndefined();
  });
});
