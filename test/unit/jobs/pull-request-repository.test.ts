import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/common/logger.js';
import type { JobRecord } from '../../../src/jobs/domain/job.js';
import { startFollowing } from '../../../src/jobs/pull-requests/follow-pull-request.js';
import type { PullRequestFollowDeps } from '../../../src/jobs/pull-requests/ports.js';
import { isJobRepository, parsePullRequestLink } from '../../../src/jobs/pull-requests/pull-request.js';
import { followedRecord, idleQueue } from '../../support/pull-request-fixtures.js';
import { fakeJobStore } from './fake-job-store.js';

const WEB = 'https://github.com';
const ref = (link: string) => {
  const parsed = parsePullRequestLink(link, WEB);
  if (!parsed) throw new Error(`not a PR link: ${link}`);
  return parsed;
};

describe("a PR is followed only in the job's own repository (issue 27, hole 4)", () => {
  it('matches the platform’s names for the repository, case-insensitively', () => {
    const pr = ref('https://github.com/Acme/Docs/pull/3');
    for (const repository of [
      'acme/docs',
      'https://github.com/acme/docs',
      'https://github.com/ACME/docs.git/',
    ])
      expect(isJobRepository(pr, repository, WEB)).toBe(true);
    for (const repository of [
      null,
      '',
      'acme/other',
      'evil/docs',
      'https://evil.example/acme/docs',
      'https://github.com/acme/docs/tree/main',
      'acme',
    ])
      expect(isJobRepository(pr, repository, WEB)).toBe(false);
    // GHES under a path prefix.
    const ghes = parsePullRequestLink('https://ghe.example/git/acme/docs/pull/1', 'https://ghe.example/git');
    expect(
      ghes && isJobRepository(ghes, 'https://ghe.example/git/acme/docs', 'https://ghe.example/git'),
    ).toBe(true);
  });

  it('never reads or records a PR link that points at another repository the token can see', async () => {
    const records = new Map<string, JobRecord>();
    const record = followedRecord('job_1');
    record.pullRequest = undefined;
    record.repository = 'acme/docs';
    records.set(record.jobId, structuredClone(record));
    const scheduled: string[] = [];
    const lines: string[] = [];
    const deps = {
      store: { ...fakeJobStore(records), setFollowing: async () => undefined },
      queue: idleQueue({ schedule: async (id: string) => void scheduled.push(id) }),
      clock: { now: () => 1 },
      logger: createLogger({
        level: 'info',
        secrets: [],
        destination: { write: (l: string) => lines.push(l) },
      }),
      timing: { minMs: 1000 },
      webUrl: WEB,
    } as unknown as PullRequestFollowDeps;

    expect(await startFollowing(deps, record, 'https://github.com/acme/private-infra/pull/7')).toBe(false);
    expect(scheduled).toEqual([]);
    expect(records.get('job_1')?.pullRequest).toBeUndefined();
    expect(lines.join('')).toContain("outside the job's own repository");

    expect(await startFollowing(deps, record, 'https://github.com/acme/docs/pull/7')).toBe(true);
    expect(scheduled).toEqual(['job_1']);
  });
});
