import { describe, expect, it } from 'vitest';
import {
  MAX_TURNS,
  parseTurns,
  pullNumberIn,
  pullNumberOf,
  TURN_STEP_TIMEOUT_MS,
} from '../../../src/jobs/doorbell/ring-turns.js';
import { doorbellWorld } from '../../support/doorbell-world.js';

/** Issue 37: a PR nobody can tie to a job rings its candidates one at a time, not all at once. */
describe('ringing in turn', () => {
  async function threeJobs() {
    const now = { t: 1_000_000 };
    const world = await doorbellWorld(now);
    for (const [i, id] of ['job_c', 'job_a', 'job_b'].entries()) await world.job(id, 'acme/docs', now.t + i);
    /** PR 5 opens 2 s after `reader`'s first read, and its next read sees it. */
    const prOpens = async (reader: { tick(): Promise<void> }) => {
      now.t += 2_000;
      world.github.open('acme/docs', 5, now.t - 100);
      await reader.tick();
    };
    /** Replica 1 reads the repository, then PR 5 opens and its next read sees it. */
    const opened = async () => {
      const bell = world.doorbell('replica-1');
      await bell.tick();
      await prOpens(bell);
      return bell;
    };
    return { now, prOpens, opened, ...world };
  }

  it('stops at the job that opened the PR: the jobs after it are not read', async () => {
    const { now, polled, pollRan, opened, ticks } = await threeJobs();
    const bell = await opened();
    expect(polled).toEqual(['job_c@0']); // the oldest
    now.t += 300;
    await pollRan('job_c');
    await bell.tick();
    expect(polled).toEqual(['job_c@0', 'job_a@0']);
    now.t += 300;
    await pollRan('job_a', 'https://github.com/acme/docs/pull/5');
    await ticks(bell, 5, 1_000);
    expect(polled).toEqual(['job_c@0', 'job_a@0']);
  });

  it('goes on when the rung job ended with a PR of the same number in another repository', async () => {
    const { now, polled, pollRan, opened } = await threeJobs();
    const bell = await opened();
    now.t += 300;
    await pollRan('job_c', 'https://github.com/acme/site/pull/5');
    await bell.tick();
    expect(polled).toEqual(['job_c@0', 'job_a@0']);
  });

  it('moves on when a rung job is not read in time (its poll failed, the queue is behind)', async () => {
    const { now, polled, opened } = await threeJobs();
    const bell = await opened();
    now.t += TURN_STEP_TIMEOUT_MS - 1;
    await bell.tick();
    expect(polled).toEqual(['job_c@0']);
    now.t += 1;
    await bell.tick();
    expect(polled).toEqual(['job_c@0', 'job_a@0']);
  });

  it('goes on with the replica that takes the repository over', async () => {
    const { now, prOpens, polled, doorbell, pollRan } = await threeJobs();
    const first = doorbell('replica-1');
    const second = doorbell('replica-2');
    await first.tick();
    await second.tick(); // the lease is the first's: the second reads nothing
    await prOpens(first);
    expect(polled).toEqual(['job_c@0']);
    await first.stop(); // hands the lease back
    now.t += 300;
    await pollRan('job_c');
    await second.tick(); // its turn to read: it takes the lease and the turn with it
    now.t += 100;
    await second.tick();
    expect(polled).toEqual(['job_c@0', 'job_a@0']);
  });

  it('a reader that lost the lease between its reads rings nobody: the turn goes on with the new holder, once', async () => {
    const { now, prOpens, polled, doorbell, pollRan, leases } = await threeJobs();
    const first = doorbell('replica-1');
    const second = doorbell('replica-2');
    await first.tick();
    await prOpens(first);
    expect(polled).toEqual(['job_c@0']);
    // The first replica's lease is taken from under it (it was paused past it, say); it does not know yet.
    const token = (await leases.acquire('acme/docs', 'replica-1', 10_000))!;
    await leases.release('acme/docs', token);
    now.t += 300;
    await pollRan('job_c');
    await second.tick(); // takes the lease and the turn
    await first.tick(); // not its turn to read: it only steps the turn it knew, and its save is refused
    expect(polled).toEqual(['job_c@0', 'job_a@0']);
    now.t += 100;
    await first.tick();
    await second.tick();
    expect(polled).toEqual(['job_c@0', 'job_a@0']);
  });

  it('reads PR numbers from links without trusting their text, and stored turns without trusting them', () => {
    expect(pullNumberOf('https://github.com/acme/docs/pull/42')).toBe(42);
    expect(pullNumberOf('https://github.com/acme/docs/pull/42/files?x=1')).toBe(42);
    expect(pullNumberOf('https://github.com/acme/docs/pull/42#top')).toBe(42);
    for (const junk of [
      null,
      '',
      'https://github.com/acme/docs',
      '/pull/',
      '/pull/4x2',
      '/pull/-1',
      `/pull/${'9'.repeat(20)}`,
    ])
      expect(pullNumberOf(junk)).toBeUndefined();
    expect(pullNumberOf(`${'/pull/'.repeat(50_000)}7`)).toBeUndefined(); // capped before it is read
    // A job's PR in another repository (or on another host) does not answer this repository's turn.
    const web = 'https://github.com';
    expect(pullNumberIn('https://github.com/acme/docs/pull/42', 'acme/docs', web)).toBe(42);
    expect(pullNumberIn('https://github.com/acme/site/pull/42', 'acme/docs', web)).toBeUndefined();
    expect(pullNumberIn('https://gitlab.com/acme/docs/pull/42', 'acme/docs', web)).toBeUndefined();
    expect(parseTurns('x')).toEqual([]);
    expect(
      parseTurns([null, { numbers: ['1'], queue: [], rungAt: 0 }, { numbers: [1], queue: [2], rungAt: 0 }]),
    ).toEqual([]);
    const turn = { numbers: [3], queue: ['j'], current: 'k', stamp: 5, rungAt: 9 };
    expect(parseTurns([turn])).toEqual([turn]);
    expect(parseTurns(Array.from({ length: 50 }, () => turn))).toHaveLength(MAX_TURNS);
  });
});
