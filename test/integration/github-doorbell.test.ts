import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { FakeDocs } from '../support/fake-docs.js';
import { FAKE_GITHUB_TOKEN, FakeGitHub } from '../support/fake-github.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 28: the GitHub doorbell. Real app over signed HTTP requests, fake Slack, fake docs platform and a
 * fake GitHub that answers a matching If-None-Match with a free 304. Polling is slowed to 30 s, so a reply
 * that comes within seconds of the PR can only have been rung; Redis mode on a real redis-server.
 */

let redis: RedisServer | undefined;
const apps: TestApp[] = [];
const fakes: Array<{ close(): Promise<void> }> = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  for (const app of apps.splice(0).reverse()) await app.stop();
  for (const fake of fakes.splice(0)) await fake.close();
});
afterAll(async () => {
  await redis?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SLOW_POLLS = { POLL_INTERVAL_MS: '30000', POLL_MAX_INTERVAL_MS: '60000' };

async function setUp() {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  const github = await FakeGitHub.start();
  fakes.push(slack, docs, github);
  // The fake platform's jobs work on https://github.com/acme/docs, which has an old PR of someone else's.
  github.addPull('acme', 'docs', 5, { created_at: '2026-01-05T10:00:00Z' });
  const env = (extra: Record<string, string> = {}) => ({
    GITHUB_TOKEN: FAKE_GITHUB_TOKEN,
    GITHUB_API_URL: github.url,
    PR_DOORBELL_INTERVAL_MS: '500',
    ...SLOW_POLLS,
    ...extra,
  });
  const start = async (extra: Record<string, string> = {}) => {
    const app = await startTestApp({ slack, docs, env: env(extra) });
    apps.push(app);
    return app;
  };
  return { slack, docs, github, start };
}

async function startJob(app: TestApp, channel = 'C0DOCS') {
  const before = app.docs.jobs.size;
  const cards = () => app.slack.messages.filter((m) => !m.thread_ts && m.channel === channel);
  const cardsBefore = cards().length;
  await app.command({ text: 'Fix the typo on the auth page', user_id: 'U1', channel_id: channel });
  const job = await waitFor(
    () => (app.docs.jobs.size > before ? [...app.docs.jobs.values()].at(-1) : undefined),
    {
      what: 'job',
    },
  );
  const card = await waitFor(() => cards().at(cardsBefore), { what: 'card', timeoutMs: 10_000 });
  return { job, card };
}

const listReads = (github: FakeGitHub) => github.requestsTo(/^\/repos\/acme\/docs\/pulls$/);
const replyWith = (slack: FakeSlack, card: { channel: string; ts: string }, text: string) =>
  slack.threadReplies(card.channel, card.ts).find((m) => JSON.stringify(m).includes(text));

describe('the GitHub doorbell', () => {
  it('a new PR brings the platform’s link within seconds; a PR that is not the job’s is never posted', async () => {
    const f = await setUp();
    const app = await f.start();
    const { job, card } = await startJob(app);
    const polls = () => f.docs.requestsTo('GET', new RegExp(`/job/${job.id}$`)).length;
    await waitFor(() => listReads(f.github).length >= 3, { what: 'doorbell reads', timeoutMs: 10_000 });
    expect(polls()).toBe(0);

    // Someone else's PR in the same repository: the job is polled at once, the platform says "active".
    f.github.addPull('acme', 'docs', 102);
    await waitFor(() => polls() >= 1, { what: 'the rung poll', timeoutMs: 10_000 });
    // (A job is rung at most every 5 s: the next PR comes after that.)
    await sleep(5_500);
    expect(f.slack.threadReplies(card.channel, card.ts)).toHaveLength(0);

    // The job's own PR: opened on GitHub as the platform completes the job.
    const openedAt = Date.now();
    f.docs.complete(job.id, 'https://github.com/acme/docs/pull/103');
    f.github.addPull('acme', 'docs', 103);
    const reply = await waitFor(() => replyWith(f.slack, card, '/pull/103'), {
      what: 'the reply with the PR',
      timeoutMs: 15_000,
    });
    expect(reply).toBeDefined();
    // Long before the 30 s poll; generous for a loaded machine.
    expect(Date.now() - openedAt).toBeLessThan(12_000);
    expect(polls()).toBe(2);
    expect(JSON.stringify(f.slack.messages)).not.toContain('/pull/102');

    // Counted calls: the first full answer and one per new PR; every other read a free 304.
    const reads = listReads(f.github);
    expect(reads.filter((r) => r.status === 200)).toHaveLength(3);
    expect(reads.filter((r) => r.status === 304).length).toBeGreaterThanOrEqual(2);
    expect(reads.filter((r) => r.status === 304).every((r) => r.conditional)).toBe(true);
  });

  it('a watched job is read on a long backoff (issue 37), and its PR still brings the read that matters', async () => {
    const f = await setUp();
    // Scaled timing: the fastest poll 400 ms, so the watched bound is 2.4 s (6 fastest intervals).
    const app = await f.start({ POLL_INTERVAL_MS: '400' });
    const watched = (await startJob(app)).job;
    const { job: elsewhere } = await startJob(app, 'C0OTHER');
    // Its repository is on no GitHub host the doorbell reads: polled on the usual schedule.
    elsewhere.source.repository = 'https://git.example.org/acme/docs';
    const reads = (id: string) => f.docs.requestsTo('GET', new RegExp(`/job/${id}$`)).length;
    // Counted from the repository's first read (the doorbell lists the repositories to read every 5 s).
    await waitFor(() => listReads(f.github).length >= 1, {
      what: 'the first doorbell read',
      timeoutMs: 10_000,
    });
    const [w0, u0] = [reads(watched.id), reads(elsewhere.id)];
    await sleep(7_000);
    const [w, u] = [reads(watched.id) - w0, reads(elsewhere.id) - u0];
    // Both still read (the bound), the watched one far less: ~4 against ~11 over the same 7 s.
    expect(w).toBeGreaterThanOrEqual(3);
    expect(w).toBeLessThanOrEqual(0.6 * u);

    const card = f.slack.messages.find((m) => !m.thread_ts && JSON.stringify(m).includes(watched.id));
    f.docs.complete(watched.id, 'https://github.com/acme/docs/pull/110');
    f.github.addPull('acme', 'docs', 110);
    await waitFor(
      () => app.logs.some((l) => l.includes('doorbell: new pull request') && l.includes(watched.id)),
      {
        what: 'the ring',
      },
    );
    await waitFor(() => card && replyWith(f.slack, card, '/pull/110'), { what: 'the reply with the PR' });
  });

  it('a PR no branch ties to a job reads the candidates one at a time, oldest first, and stops at its own', async () => {
    const f = await setUp();
    const app = await f.start();
    const { job: oldest } = await startJob(app);
    const { job: middle, card } = await startJob(app, 'C0OTHER');
    await startJob(app, 'C0THIRD');
    await waitFor(() => listReads(f.github).length >= 3, { what: 'doorbell reads', timeoutMs: 10_000 });
    const reads = () =>
      f.docs.requests
        .filter((r) => r.method === 'GET' && /\/job\/[^/]+$/.test(r.path))
        .map((r) => r.path.split('/').at(-1));
    expect(reads()).toEqual([]);

    // The middle job's PR; the platform reports no branch, so only the reads can tell whose it is.
    f.docs.complete(middle.id, 'https://github.com/acme/docs/pull/104');
    f.github.addPull('acme', 'docs', 104);
    await waitFor(() => replyWith(f.slack, card, '/pull/104'), {
      what: 'the reply with the PR',
      timeoutMs: 15_000,
    });
    // Two more doorbell reads of the repository after the reply: a third ring would have been read by then.
    const readsAtReply = listReads(f.github).length;
    await waitFor(() => listReads(f.github).length >= readsAtReply + 2, {
      what: 'two more doorbell reads',
      timeoutMs: 10_000,
    });
    expect(reads()).toEqual([oldest.id, middle.id]); // the newest, started after, is not read
  });

  it('turned off (PR_DOORBELL_INTERVAL_MS=0) or without a token: no list is read and polling is as before', async () => {
    const f = await setUp();
    const app = await f.start({ PR_DOORBELL_INTERVAL_MS: '0' });
    await startJob(app);
    const none = await startTestApp({ slack: f.slack, docs: f.docs, env: { ...SLOW_POLLS } });
    apps.push(none);
    await startJob(none, 'C0OTHER');
    await sleep(2_000);
    expect(listReads(f.github)).toEqual([]);
  });

  it('Redis mode, two replicas: one reader for the repository; when it stops the other rings', async () => {
    const f = await setUp();
    const env = { REDIS_URL: redis!.url };
    const one = await f.start(env);
    const two = await f.start(env);
    const { job, card } = await startJob(one);
    await waitFor(() => listReads(f.github).length >= 2, { what: 'doorbell reads', timeoutMs: 15_000 });
    const from = listReads(f.github).length;
    const windowStart = Date.now();
    await sleep(4_000);
    const inWindow = listReads(f.github).length - from;
    const windowS = (Date.now() - windowStart) / 1000;
    // One reader at one read per 0.5 s interval (ticks of 125 ms): at most ~2 reads a second, never 4.
    expect(inWindow).toBeGreaterThan(2);
    expect(inWindow).toBeLessThanOrEqual(Math.ceil(windowS * 2) + 2);
    const readers = [one, two].filter((app) =>
      app.logs.some((l) => l.includes('doorbell: reading this repository')),
    );
    expect(readers).toHaveLength(1);

    // The reader stops (hands its lease back): the other replica reads on, and a new PR still rings.
    const reader = readers[0]!;
    const other = reader === one ? two : one;
    await reader.stop();
    apps.splice(apps.indexOf(reader), 1);
    await waitFor(() => other.logs.some((l) => l.includes('doorbell: reading this repository')), {
      what: 'the takeover',
      timeoutMs: 15_000,
    });
    f.docs.complete(job.id, 'https://github.com/acme/docs/pull/104');
    f.github.addPull('acme', 'docs', 104);
    await waitFor(() => replyWith(f.slack, card, '/pull/104'), { what: 'the reply', timeoutMs: 15_000 });
    expect(listReads(f.github).filter((r) => r.status === 200).length).toBeLessThanOrEqual(2);
  });
});
