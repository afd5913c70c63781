import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FAKE_GITHUB_TOKEN, FakeGitHub } from '../support/fake-github.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { appHomeOpenedEnvelope } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 23: after its terminal reply a job's PR is followed on GitHub to its merge or close. Real app over
 * signed HTTP requests, fake Slack, fake docs platform, fake GitHub; Redis mode on a real redis-server.
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
  if (redis) {
    const client = await connectRedis(redis.url, createLogger({ level: 'silent', secrets: [] }), {
      failFast: true,
    });
    await client.flushAll();
    await closeRedis(client);
  }
});
afterAll(async () => {
  await redis?.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const PR_NUMBER = 101;
const PR = `https://github.com/acme/docs/pull/${PR_NUMBER}`;
const MERGED_AT = '2026-03-12T15:04:00Z';

async function fakes3() {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  const github = await FakeGitHub.start();
  fakes.push(slack, docs, github);
  return { slack, docs, github };
}

function githubEnv(github: FakeGitHub, extra: Record<string, string> = {}) {
  return {
    GITHUB_TOKEN: FAKE_GITHUB_TOKEN,
    GITHUB_API_URL: github.url,
    PR_FOLLOW_INTERVAL_MS: '40',
    PR_FOLLOW_MAX_INTERVAL_MS: '200',
    ...extra,
  };
}

async function start(f: Awaited<ReturnType<typeof fakes3>>, env: Record<string, string>) {
  const app = await startTestApp({ slack: f.slack, docs: f.docs, env });
  apps.push(app);
  return app;
}

/** `/docs-agent …` over a signed request; the job completes with PR #101. */
async function jobWithPr(app: TestApp, pr = PR) {
  const before = app.docs.jobs.size;
  await app.command({ text: 'Fix the typo on the auth page', user_id: 'U1', channel_id: 'C0DOCS' });
  const job = await waitFor(
    () => (app.docs.jobs.size > before ? [...app.docs.jobs.values()].at(-1) : undefined),
    {
      what: 'job',
    },
  );
  const card = await waitFor(
    () => app.slack.messages.filter((m) => !m.thread_ts && m.channel === 'C0DOCS').at(before),
    { what: 'card' },
  );
  app.docs.complete(job.id, pr);
  await waitFor(() => app.slack.threadReplies(card.channel, card.ts).some((m) => m.text.includes('pull')), {
    what: 'terminal reply',
  });
  return { job, card };
}

const prNotices = (slack: FakeSlack, channel: string, ts: string) =>
  slack
    .threadReplies(channel, ts)
    .filter((m) => /was merged|closed without merging|still open after/.test(m.text));
const cardText = (slack: FakeSlack, channel: string, ts: string) =>
  JSON.stringify(slack.message(channel, ts)?.blocks ?? []);
const pullReads = (github: FakeGitHub) => github.requestsTo(/\/pulls\/\d+$/);

describe('following a PR on GitHub (memory)', () => {
  it('shows open → approved, checks passing → merged on the card and Home; one thread message; reads stop', async () => {
    const f = await fakes3();
    f.github.addPull('acme', 'docs', PR_NUMBER, { draft: true, created_at: '2026-03-10T09:00:00Z' });
    const app = await start(f, githubEnv(f.github));
    const { card } = await jobWithPr(app);

    await waitFor(() => cardText(f.slack, card.channel, card.ts).includes('Pull request *draft*'), {
      what: 'draft on the card',
    });
    const pull = f.github.pull('acme', 'docs', PR_NUMBER);
    pull.draft = false;
    pull.reviews.push({ id: 1, state: 'APPROVED', user: { login: 'rev' }, submitted_at: MERGED_AT });
    pull.checkRuns.push({ id: 1, name: 'build', status: 'completed', conclusion: 'success' });
    await waitFor(
      () =>
        cardText(f.slack, card.channel, card.ts).includes('Pull request *open* · approved · checks passing'),
      { what: 'approved + checks on the card' },
    );
    // Unchanged PRs are re-read with If-None-Match: most reads are free 304s.
    await waitFor(() => f.github.requests.some((r) => r.status === 304), { what: 'a 304' });

    f.github.merge('acme', 'docs', PR_NUMBER, 'octo-cat', MERGED_AT);
    const [notice] = await waitFor(
      () =>
        prNotices(f.slack, card.channel, card.ts).length
          ? prNotices(f.slack, card.channel, card.ts)
          : undefined,
      { what: 'merge notice' },
    );
    expect(notice!.text).toContain('merged by octo-cat');
    expect(JSON.stringify(notice!.blocks)).toContain(`<${PR}|The pull request>`);
    await waitFor(
      () => cardText(f.slack, card.channel, card.ts).includes('Pull request *merged* by *octo-cat*'),
      {
        what: 'merged on the card',
      },
    );
    const home = await app.event(appHomeOpenedEnvelope({ userId: 'U1' }));
    expect(home.status).toBe(200);
    await waitFor(
      () => JSON.stringify(f.slack.surfaces.homeOf('U1') ?? {}).includes('Pull request *merged*'),
      {
        what: 'merged in App Home',
      },
    );

    const reads = pullReads(f.github).length;
    await sleep(600);
    expect(pullReads(f.github).length).toBe(reads);
    expect(prNotices(f.slack, card.channel, card.ts)).toHaveLength(1);
    expect(f.slack.everythingSent()).not.toContain(FAKE_GITHUB_TOKEN);
    expect(app.logs.join('\n')).not.toContain(FAKE_GITHUB_TOKEN);
  });

  it('a PR closed without merge: one plain message, the card says closed, reading stops', async () => {
    const f = await fakes3();
    f.github.addPull('acme', 'docs', PR_NUMBER);
    const app = await start(f, githubEnv(f.github));
    const { card } = await jobWithPr(app);
    await waitFor(() => pullReads(f.github).length > 0, { what: 'first read' });
    f.github.closeWithoutMerge('acme', 'docs', PR_NUMBER, MERGED_AT);
    await waitFor(() => prNotices(f.slack, card.channel, card.ts).length === 1, { what: 'close notice' });
    await waitFor(() => cardText(f.slack, card.channel, card.ts).includes('*closed* without merging'), {
      what: 'closed on the card',
    });
    await sleep(400);
    expect(prNotices(f.slack, card.channel, card.ts)).toHaveLength(1);
    expect(prNotices(f.slack, card.channel, card.ts)[0]!.text).toContain('closed without merging');
  });

  it('waits out a secondary rate limit (429, retry-after) without a storm, then follows on', async () => {
    const f = await fakes3();
    f.github.addPull('acme', 'docs', PR_NUMBER);
    // Two more PRs followed at once: their reads fall due during the limit too.
    for (const n of [102, 103]) f.github.addPull('acme', 'docs', n);
    const app = await start(f, githubEnv(f.github));
    for (const n of [102, 103]) await jobWithPr(app, `https://github.com/acme/docs/pull/${n}`);
    const { card } = await jobWithPr(app);
    await waitFor(() => f.github.requestsTo(/\/pulls\/101$/).length > 0, { what: 'first read' });
    f.github.injectSecondaryLimit(1, 429, 1);
    f.github.merge('acme', 'docs', PR_NUMBER, 'octo-cat', MERGED_AT);
    const limited = await waitFor(() => f.github.requests.find((r) => r.status === 429), { what: 'the 429' });
    await waitFor(() => prNotices(f.slack, card.channel, card.ts).length === 1, {
      what: 'merge notice after the wait',
      timeoutMs: 5_000,
    });
    expect(f.github.requests.filter((r) => r.status === 429)).toHaveLength(1);
    // Inside retry-after (1 s) nothing new is asked: the whole client waits, however many reads fall due
    // (only calls already in flight with the limited one land after it: at most the other three calls of
    // that read and of the one other read running at once, MemoryPollQueue's concurrency of 2).
    const during = f.github.requests.filter((r) => r.at > limited.at && r.at < limited.at + 900);
    expect(during.length).toBeLessThanOrEqual(7);
    const after = f.github.requests.filter((r) => r.at >= limited.at + 900);
    expect(after.length).toBeGreaterThan(0);
    expect(app.logs.some((l) => l.includes('GitHub rate limit hit'))).toBe(true);
  });

  it('honours the rate-limit headers: once none are left nothing is asked until the reset', async () => {
    const f = await fakes3();
    for (const n of [101, 102, 103]) f.github.addPull('acme', 'docs', n);
    const app = await start(f, githubEnv(f.github));
    for (const n of [102, 103]) await jobWithPr(app, `https://github.com/acme/docs/pull/${n}`);
    const { card } = await jobWithPr(app);
    await waitFor(() => f.github.requestsTo(/\/pulls\/101$/).length > 0, { what: 'first read' });
    f.github.remaining = 0;
    f.github.resetAt = Math.floor(Date.now() / 1000) + 2;
    const resetMs = f.github.resetAt * 1000;
    const refused = await waitFor(() => f.github.requests.find((r) => r.status === 403), { what: 'the 403' });
    f.github.merge('acme', 'docs', PR_NUMBER, 'octo-cat', MERGED_AT);
    await waitFor(() => prNotices(f.slack, card.channel, card.ts).length === 1, {
      what: 'merge notice after the reset',
      timeoutMs: 8_000,
    });
    // Between the first refusal and the reset only calls already in flight arrive (a storm would be dozens).
    const during = f.github.requests.filter((r) => r.at > refused.at && r.at < resetMs);
    expect(during.length).toBeLessThanOrEqual(7);
    expect(f.github.requests.filter((r) => r.status === 403).length).toBeLessThanOrEqual(8);
    expect(app.logs.some((l) => l.includes('GitHub rate limit hit'))).toBe(true);
  });

  it('a token GitHub refuses (401) is one clear message; the bot runs on without following', async () => {
    const f = await fakes3();
    f.github.addPull('acme', 'docs', PR_NUMBER);
    const app = await start(
      f,
      githubEnv(f.github, { GITHUB_TOKEN: 'github_pat_revoked0123456789abcdefghij' }),
    );
    const refused = app.logs.filter((l) => l.includes('GitHub refused GITHUB_TOKEN'));
    expect(refused).toHaveLength(1);
    expect(refused[0]).not.toContain('github_pat_revoked0123456789abcdefghij');
    const { card } = await jobWithPr(app);
    await sleep(300);
    expect(f.github.requests.map((r) => r.path)).toEqual(['/rate_limit']);
    expect(cardText(f.slack, card.channel, card.ts)).not.toContain('Pull request *');
  });

  it('without GITHUB_TOKEN nothing is followed and the card is as before', async () => {
    const f = await fakes3();
    f.github.addPull('acme', 'docs', PR_NUMBER);
    const app = await start(f, { GITHUB_API_URL: f.github.url });
    const { card } = await jobWithPr(app);
    await sleep(300);
    expect(f.github.requests).toEqual([]);
    expect(cardText(f.slack, card.channel, card.ts)).not.toContain('Pull request *');
    expect(f.slack.threadReplies(card.channel, card.ts)).toHaveLength(1);
  });
});

describe('following a PR on GitHub (Redis, two instances and a restart)', () => {
  it('posts the merge once across replicas and a restart', async () => {
    const f = await fakes3();
    f.github.addPull('acme', 'docs', PR_NUMBER);
    const env = githubEnv(f.github, { REDIS_URL: redis!.url });
    const a = await start(f, env);
    const b = await start(f, env);
    const { card } = await jobWithPr(a);
    await waitFor(() => pullReads(f.github).length >= 2, { what: 'reads' });
    // A restart of one instance: the follow waits in Redis; either instance reads on.
    await a.stop();
    apps.splice(apps.indexOf(a), 1);
    const c = await start(f, env);
    f.github.merge('acme', 'docs', PR_NUMBER, 'octo-cat', MERGED_AT);
    await waitFor(() => prNotices(f.slack, card.channel, card.ts).length === 1, {
      what: 'merge notice',
      timeoutMs: 10_000,
    });
    await waitFor(() => cardText(f.slack, card.channel, card.ts).includes('Pull request *merged*'), {
      what: 'merged on the card',
    });
    await sleep(800);
    expect(prNotices(f.slack, card.channel, card.ts)).toHaveLength(1);
    const reads = pullReads(f.github).length;
    await sleep(400);
    expect(pullReads(f.github).length).toBe(reads);
    expect([b, c].every((app) => app.logs.length > 0)).toBe(true);
  });
});
