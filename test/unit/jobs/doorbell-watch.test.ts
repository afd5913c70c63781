import { describe, expect, it } from 'vitest';
import { ringFor } from '../../../src/jobs/doorbell/doorbell-rules.js';
import { PullRequestReadError } from '../../../src/jobs/pull-requests/pull-request.js';
import { doorbellWorld } from '../../support/doorbell-world.js';

/** Issue 37: watched jobs poll on a long backoff, so the doorbell must ring every job a new PR may be. */
describe('the doorbell behind the long backoff', () => {
  it('rings every job that may own an unseen PR when numbers were skipped since the last read', async () => {
    const now = { t: 1_000_000 };
    const { job, store, github, polled, doorbell, pollRan } = await doorbellWorld(now);
    for (const id of ['job_a', 'job_b']) {
      const record = await job(id, 'acme/docs', now.t);
      record.ref = `docs-agent/${id}`;
      await store.saveJob(record);
    }
    const bell = doorbell('replica-1');
    github.open('acme/docs', 1, now.t - 60_000_000, 'old');
    await bell.tick();
    now.t += 2_000;
    // Two PRs between reads, job_a's then job_b's: the read sees only the newest, job_b's.
    github.open('acme/docs', 2, now.t - 500, 'docs-agent/job_a');
    github.open('acme/docs', 3, now.t - 100, 'docs-agent/job_b');
    await bell.tick();
    expect(polled).toEqual(['job_a@0']);
    // job_a opened PR 2: PR 3 is still someone's, so the turn goes on to job_b.
    now.t += 400;
    await pollRan('job_a', 'https://github.com/acme/docs/pull/2');
    await bell.tick();
    expect(polled).toEqual(['job_a@0', 'job_b@0']);
    expect(
      ringFor({ etag: null, newestNumber: 2, notBefore: 0 }, { number: 3, createdAt: 0, headRef: 'x' })
        .headRef,
    ).toBe('x');
    expect(
      ringFor({ etag: null, newestNumber: 1, notBefore: 0 }, { number: 3, createdAt: 0, headRef: 'x' })
        .headRef,
    ).toBeNull();
    // Never read before: nothing tells what was skipped.
    expect(ringFor(undefined, { number: 1, createdAt: 0, headRef: 'x' }).headRef).toBeNull();
  });

  it('watches a job once its repository has been read, not before, not elsewhere, not while GitHub fails', async () => {
    const now = { t: 1_000_000 };
    const { job, github, doorbell } = await doorbellWorld(now);
    const a = await job('job_a', 'acme/docs', now.t);
    const elsewhere = await job('job_b', 'https://gitlab.com/acme/docs', now.t);
    const bell = doorbell('replica-1');
    const other = doorbell('replica-2');
    expect(await bell.watches(a)).toBe(false);
    bell.start();
    other.start();
    expect(await bell.watches(a)).toBe(false); // not read yet
    await bell.tick();
    expect(await bell.watches(a)).toBe(true);
    // Another replica (not the reader) sees the same shared state.
    expect(await other.watches(a)).toBe(true);
    expect(await bell.watches(elsewhere)).toBe(false);

    github.failWith = new PullRequestReadError('github_unavailable', 'GitHub answered 503');
    now.t += 2_000;
    await bell.tick();
    expect(await bell.watches(a)).toBe(false);
    expect(await other.watches(a)).toBe(false);
    await Promise.all([bell.stop(), other.stop()]);
    github.failWith = undefined;
    expect(await bell.watches(a)).toBe(false); // stopped: nothing rings
  });
});
