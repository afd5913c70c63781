import { describe, expect, it } from 'vitest';
import { leaseMs, REFUSED_BACKOFF_MS, readIntervalMs } from '../../../src/jobs/doorbell/doorbell-rules.js';
import { repositoryOf } from '../../../src/jobs/doorbell/repository.js';
import { PullRequestReadError } from '../../../src/jobs/pull-requests/pull-request.js';
import { doorbellWorld as setUp, DOORBELL_TEST_TIMING as timing } from '../../support/doorbell-world.js';

const WEB = 'https://github.com';

describe('the repository of a job', () => {
  it('is read from a link, an SSH remote or owner/repo on the GitHub host only', () => {
    expect(repositoryOf('https://github.com/acme/docs', WEB)).toEqual({ owner: 'acme', repo: 'docs' });
    expect(repositoryOf('https://github.com/acme/docs.git/', WEB)).toEqual({ owner: 'acme', repo: 'docs' });
    expect(repositoryOf('git@github.com:acme/docs.git', WEB)).toEqual({ owner: 'acme', repo: 'docs' });
    expect(repositoryOf('acme/docs', WEB)).toEqual({ owner: 'acme', repo: 'docs' });
    for (const other of [
      'https://gitlab.com/acme/docs',
      'https://github.com/acme/docs/pull/1',
      'https://user:pw@github.com/acme/docs',
      'acme/docs <!channel>',
      '../etc/passwd',
      'acme--x/docs',
      null,
      'a'.repeat(400),
    ])
      expect(repositoryOf(other, WEB)).toBeUndefined();
    expect(repositoryOf('https://ghe.example/git/acme/docs', 'https://ghe.example/git')).toEqual({
      owner: 'acme',
      repo: 'docs',
    });
  });
});

describe('the doorbell', () => {
  it('a new PR rings the active jobs of its repository in turn, oldest first, until its job is found; 304s ring nothing', async () => {
    const now = { t: 1_000_000 };
    const { job, github, polled, doorbell, pollRan, ticks } = await setUp(now);
    github.open('acme/docs', 7, now.t - 3_600_000); // an old PR: not any active job's
    await job('job_a', 'https://github.com/acme/docs', now.t);
    await job('job_b', 'acme/docs', now.t + 1_000);
    await job('job_other', 'https://github.com/acme/site', now.t);
    const bell = doorbell('replica-1');

    await bell.tick();
    expect(polled).toEqual([]);
    expect(github.reads.map((r) => r.status)).toEqual([200, 200]); // the first reads: acme/docs, acme/site

    now.t += 2_000;
    await bell.tick();
    expect(github.reads.slice(2).map((r) => [r.repo, r.status])).toEqual([
      ['acme/docs', 304],
      ['acme/site', 304],
    ]);
    expect(github.reads[2]?.etag).toBe('"acme/docs#7"');
    expect(polled).toEqual([]);

    now.t += 2_000;
    github.open('acme/docs', 8, now.t - 500);
    await job('job_late', 'acme/docs', now.t + 60_000); // started after the PR: cannot be its job
    now.t += 1; // (read before job_late's record counts: the ring reads the store fresh)
    await bell.tick();
    expect(polled).toEqual(['job_a@0']); // the oldest first, alone
    expect(github.reads.filter((r) => r.status === 200)).toHaveLength(3); // one counted call for the new PR
    now.t += 100;
    await bell.tick();
    expect(polled).toEqual(['job_a@0']); // its poll has not run yet: the turn waits
    now.t += 300;
    await pollRan('job_a'); // still running: not its PR
    await bell.tick();
    expect(polled).toEqual(['job_a@0', 'job_b@0']);

    // job_b's poll sees it ended with PR 8: the turn is over, and a PR is not rung again.
    now.t += 300;
    await pollRan('job_b', 'https://github.com/acme/docs/pull/8');
    await ticks(bell, 3, 2_000);
    expect(polled).toHaveLength(2);
  });

  it('PRs opening in quick succession ring a job at most once per TURN_SPACING_MS (3 s)', async () => {
    const now = { t: 1_000_000 };
    const { job, github, polled, doorbell } = await setUp(now);
    await job('job_a', 'acme/docs', now.t);
    const bell = doorbell('replica-1');
    await bell.tick();
    for (const [number, after] of [
      [1, 2_000],
      [2, 2_000],
      [3, 10_000],
    ] as const) {
      now.t += after;
      github.open('acme/docs', number, now.t - 100);
      await bell.tick();
    }
    // Rung at once; 2 s later its poll waits out the 3 s spacing (1 s); 10 s later at once again.
    expect(polled).toEqual(['job_a@0', 'job_a@1000', 'job_a@0']);
  });

  it('a PR from a branch a job reported rings only the jobs on that branch; other branches ring all in turn', async () => {
    const now = { t: 1_000_000 };
    const { job, store, github, polled, doorbell, pollRan } = await setUp(now);
    const a = await job('job_a', 'acme/docs', now.t);
    await job('job_b', 'acme/docs', now.t);
    a.ref = 'docs-agent/job_a';
    await store.saveJob(a);
    const bell = doorbell('replica-1');
    await bell.tick();
    now.t += 2_000;
    github.open('acme/docs', 1, now.t - 100, 'docs-agent/job_a');
    await bell.tick();
    expect(polled).toEqual(['job_a@0']);
    now.t += 6_000;
    github.open('acme/docs', 2, now.t - 100, 'someone/else');
    await bell.tick();
    expect(polled).toHaveLength(2);
    now.t += 400;
    await pollRan(polled[1]!.split('@')[0]!);
    await bell.tick();
    expect(polled.slice(1).sort()).toEqual(['job_a@0', 'job_b@0']);
    // Someone else's PR: once every candidate was read the turn is over.
    now.t += 400;
    await pollRan(polled[2]!.split('@')[0]!);
    await bell.tick();
    now.t += 20_000;
    await bell.tick();
    expect(polled).toHaveLength(3);
  });

  it('waits its turn: each repository is read once per interval, however often it ticks', async () => {
    const now = { t: 1_000_000 };
    const { job, github, doorbell } = await setUp(now);
    await job('job_a', 'acme/docs', now.t);
    const bell = doorbell('replica-1');
    for (let i = 0; i < 8; i += 1) {
      await bell.tick();
      now.t += 500;
    }
    expect(github.reads).toHaveLength(2);
    expect(readIntervalMs(100, timing)).toBe(20_000); // 100 repositories at 5 reads/s
    expect(readIntervalMs(3, timing)).toBe(2_000);
  });

  it('one reader per repository across replicas; a lapsed reader is fenced off and another takes over', async () => {
    const now = { t: 1_000_000 };
    const { job, github, polled, doorbell, leases } = await setUp(now);
    await job('job_a', 'acme/docs', now.t);
    const one = doorbell('replica-1');
    const two = doorbell('replica-2');
    for (let i = 0; i < 5; i += 1) {
      await Promise.all([one.tick(), two.tick()]);
      now.t += 2_000;
    }
    expect(github.reads).toHaveLength(5);
    const reader = one.reading().length === 1 ? one : two;
    const other = reader === one ? two : one;
    expect(other.reading()).toEqual([]);

    // The reader stalls past its lease: the other replica takes the repository over with a higher token.
    const stale = (await leases.acquire('acme/docs', reader === one ? 'replica-1' : 'replica-2', 1)) ?? 0;
    now.t += leaseMs(2_000) + 1;
    await other.tick();
    expect(other.reading()).toEqual(['acme/docs']);
    const fresh =
      (await leases.acquire('acme/docs', reader === one ? 'replica-2' : 'replica-1', 10_000)) ?? 0;
    expect(fresh).toBeGreaterThan(stale);
    // The stale holder's save is refused by the store: it can neither move the state nor ring.
    expect(await leases.save('acme/docs', stale, { etag: null, newestNumber: 99, notBefore: 0 })).toBe(false);
    expect((await leases.state('acme/docs'))?.newestNumber).toBe(0);

    github.open('acme/docs', 1, now.t);
    now.t += 2_001;
    await Promise.all([reader.tick(), other.tick()]);
    expect(polled).toEqual(['job_a@0']); // rung once, by the holder
    expect(reader.reading()).toEqual([]);

    // A stopping replica hands its lease back: the other one reads at its next turn.
    await other.stop();
    now.t += 2_001;
    await reader.tick();
    expect(reader.reading()).toEqual(['acme/docs']);
  });

  it('a repository GitHub refuses is asked again only after a long pause, by whichever replica holds it', async () => {
    const now = { t: 1_000_000 };
    const { job, github, doorbell } = await setUp(now);
    await job('job_a', 'acme/private', now.t);
    github.failWith = new PullRequestReadError('github_unreadable', 'GitHub answered 404');
    const one = doorbell('replica-1');
    await one.tick();
    await one.stop();
    github.failWith = undefined;
    const two = doorbell('replica-2');
    for (let i = 0; i < 5; i += 1) {
      now.t += 60_000;
      await two.tick();
    }
    expect(github.reads).toHaveLength(0);
    now.t += REFUSED_BACKOFF_MS;
    await two.tick();
    expect(github.reads).toHaveLength(1);
  });

  it('without jobs on a GitHub repository nothing is read', async () => {
    const now = { t: 1_000_000 };
    const { job, github, doorbell } = await setUp(now);
    await job('job_a', 'https://gitlab.com/acme/docs', now.t);
    await job('job_b', null as unknown as string, now.t);
    await doorbell('replica-1').tick();
    expect(github.reads).toEqual([]);
  });
});
