import { Queue } from 'bullmq';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { Evidence } from '../../src/insights/health/evidence.js';
import { encodeEvidenceRef } from '../../src/insights/health/evidence-ref.js';
import { impactWindows } from '../../src/insights/health/impact.js';
import { formatDayRange } from '../../src/slack/messages/dates.js';
import { impactJobId } from '../../src/state/redis/bullmq-impact-queue.js';
import { shardPrefix } from '../../src/state/redis/plane-shards.js';
import { planeJobId } from '../../src/state/redis/queue-plane.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { SINGLE_WORKSPACE_TENANT } from '../../src/state/redis/single-plane.js';
import { FakeDocs } from '../support/fake-docs.js';
import { emptyHealthData, type HealthData, makeConversation } from '../support/fake-docs-health.js';
import { FakeSlack, type StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { ManualTimers } from '../support/manual-timers.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 14, "Did it work?": a job started from a /docs-health gap completes with a pull request; after
 * HEALTH_IMPACT_DAYS the bot posts the gap's figures since the PR against as long before it, once, in the
 * job's thread. Real app, fake Slack, fake docs platform; Redis mode on a real redis-server.
 */

// The app's clock runs from noon UTC of a fixed day, so the windows are known and no midnight intervenes.
const PR_DAY_NOON = Date.parse('2026-03-10T12:00:00Z');
const started = Date.now();
const clock = { now: () => PR_DAY_NOON + (Date.now() - started) };
const windows = impactWindows(PR_DAY_NOON, 14);
const range = { from: '2026-03-01', toExclusive: '2026-03-08' };
const PR = 'https://github.com/acme/docs/pull/77';

let redis: RedisServer | undefined;
const apps: TestApp[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  await redis?.stop();
});
afterEach(async () => {
  for (const app of apps.splice(0).reverse()) await app.stop();
});

const key = (w: { from: string; toExclusive: string }) => `${w.from}..${w.toExclusive}`;

function seed(docs: FakeDocs, data: { before: Partial<HealthData>; after: Partial<HealthData> }) {
  docs.health.byRange.set(key(windows.before), { ...emptyHealthData(), ...data.before });
  docs.health.byRange.set(key(windows.after), { ...emptyHealthData(), ...data.after });
}

/** Bot replies in a thread (not the cards, which carry the PR link too) that name `text`. */
const slackPostsWith = (slack: FakeSlack, text: string) =>
  slack.messages.filter(
    (m: StoredMessage) => m.bot_id && m.thread_ts && m.thread_ts !== m.ts && JSON.stringify(m).includes(text),
  ).length;

const impactPosts = (slack: FakeSlack) =>
  slack.messages.filter((m: StoredMessage) => m.bot_id && m.text.startsWith('Did it work?'));

async function startFromGap(app: TestApp, evidence: Evidence) {
  const result = await app.agent.jobs.start({
    teamId: 'T1',
    channelId: 'C0HEALTH',
    threadTs: null,
    requesterId: 'U1',
    prompt: 'Fix the gap',
    origin: 'health_fix',
    evidenceRef: encodeEvidenceRef(evidence),
  });
  if (!result.ok) throw new Error(`job did not start: ${result.stage}`);
  return result.record;
}

describe('health impact post (memory)', () => {
  it('posts the page’s 👎/👍 and page views after vs before, once, in the job’s thread', async () => {
    const timers = new ManualTimers(clock.now());
    const app = await startTestApp({ agentOptions: { clock, impactTimers: timers } });
    apps.push(app);
    seed(app.docs, {
      before: { pages: [{ path: '/guides/auth', thumbsUp: 2, thumbsDown: 9, code: 0, total: 11 }] },
      after: { pages: [{ path: '/guides/auth/', thumbsUp: 5, thumbsDown: 1, code: 0, total: 6 }] },
    });
    app.docs.viewsByRange.set(key(windows.before), [
      { path: '/guides/auth', human: 180, ai: 20, total: 200 },
    ]);
    app.docs.viewsByRange.set(key(windows.after), [{ path: '/guides/auth', human: 250, ai: 50, total: 300 }]);

    const page: Evidence = {
      kind: 'page',
      path: '/guides/auth',
      thumbsDown: 9,
      thumbsUp: 2,
      comments: [],
      range,
    };
    const record = await startFromGap(app, page);
    app.docs.complete(record.jobId, PR);
    await waitFor(
      () => app.slack.threadReplies('C0HEALTH', record.threadTs).some((m) => m.text.includes(PR)),
      {
        what: 'the terminal reply with the PR',
      },
    );
    await waitFor(() => app.logs.some((l) => l.includes('impact check scheduled')), { what: 'the check' });
    expect(impactPosts(app.slack)).toEqual([]);

    await timers.advanceTo(windows.dueAt - 1);
    expect(impactPosts(app.slack)).toEqual([]);
    await timers.advanceTo(windows.dueAt);
    const [post] = await waitFor(() => (impactPosts(app.slack).length ? impactPosts(app.slack) : undefined), {
      what: 'the impact post',
    });
    expect(post!.thread_ts).toBe(record.threadTs);
    const blocks = JSON.stringify(post!.blocks);
    expect(blocks).toContain('*👎:* 9 → 1 (▼ 89%) ✅');
    expect(blocks).toContain('*👍:* 2 → 5 (▲ 150%) ✅');
    expect(blocks).toContain('*Page views:* 200 → 300 (▲ 50%)');
    expect(blocks).toContain(`<${PR}|the pull request>`);
    expect(blocks).toContain(formatDayRange(windows.after.from, windows.after.toExclusive));

    // Each window read once, at the endpoint's maximum page size.
    const byPage = app.docs.requestsTo('GET', /\/feedback\/by-page$/);
    expect(byPage.map((r) => r.query.get('limit'))).toEqual(['100', '100']);
    await timers.advanceTo(windows.dueAt + 30 * 24 * 60 * 60 * 1000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(impactPosts(app.slack)).toHaveLength(1);
  });
});

describe('health impact post failures (memory)', () => {
  it('the outbox retries a post Slack failed, and logs and abandons one Slack refuses for good', async () => {
    const timers = new ManualTimers(clock.now());
    const app = await startTestApp({ agentOptions: { clock, impactTimers: timers } });
    apps.push(app);
    const question: Evidence = { kind: 'question', question: 'How do I rotate keys?', asked: 3, range };
    let ids = 0;
    const asked = (query: string, day: string, n: number) =>
      Array.from({ length: n }, (_, i) => ({
        ...makeConversation(++ids, query),
        timestamp: `${day}T08:00:0${i}Z`,
      }));
    const both = (day: string, n: number) => [
      ...asked('How do I rotate keys?', day, n),
      ...asked('Where is the CLI?', day, n),
    ];
    seed(app.docs, {
      before: { conversations: both(windows.before.from, 3) },
      after: { conversations: both(windows.after.from, 1) },
    });
    const first = await startFromGap(app, question);
    const second = await startFromGap(app, { ...question, question: 'Where is the CLI?' });
    for (const record of [first, second]) app.docs.complete(record.jobId, PR);
    await waitFor(() => app.logs.filter((l) => l.includes('impact check scheduled')).length === 2, {
      what: 'both checks',
    });
    // The jobs' own PR replies are out of the way first: the faults below are meant for the impact posts.
    await waitFor(() => slackPostsWith(app.slack, PR) >= 2, { what: 'both PR replies' });
    // The first post meets a channel Slack refuses for good, the second a failure worth retrying.
    app.slack.inject('chat.postMessage', { kind: 'error', error: 'is_archived' });
    app.slack.inject('chat.postMessage', { kind: 'error', error: 'fatal_error' });
    await timers.advanceTo(windows.dueAt);
    await waitFor(() => app.logs.some((l) => l.includes('Slack refused a message the bot owed; abandoned')), {
      what: 'the refusal',
    });
    expect(app.logs.some((l) => l.includes('is_archived'))).toBe(true);
    // The check itself is done: the outbox owns the post and retries it (no second measurement).
    const [post] = await waitFor(() => (impactPosts(app.slack).length ? impactPosts(app.slack) : undefined), {
      what: 'the retried post',
    });
    expect(app.logs.some((l) => l.includes('delivery not confirmed; will retry'))).toBe(true);
    expect(JSON.stringify(post!.blocks)).toContain('*Times asked:* 3 → 1 (▼ 67%) ✅');
    await timers.advanceTo(windows.dueAt + 7 * 24 * 60 * 60 * 1000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(impactPosts(app.slack)).toHaveLength(1);
  });
});

describe('health impact post (Redis, two app instances)', () => {
  it('keeps one delayed entry however often the PR is seen, and one replica posts it once', async () => {
    const slack = await FakeSlack.start();
    const docs = await FakeDocs.start();
    const env = { REDIS_URL: redis!.url, HEALTH_IMPACT_DAYS: '14' };
    const a = await startTestApp({ slack, docs, env, agentOptions: { clock } });
    apps.push(a);
    const b = await startTestApp({ slack, docs, env, agentOptions: { clock } });
    apps.push(b);
    seed(docs, {
      before: {
        searches: [
          {
            searchQuery: 'sso setup',
            hits: 40,
            ctr: 0,
            topClickedPage: null,
            lastSearchedAt: '2026-03-01T00:00:00Z',
          },
        ],
      },
      after: {
        searches: [
          {
            searchQuery: 'sso setup',
            hits: 12,
            ctr: 0.5,
            topClickedPage: '/sso',
            lastSearchedAt: '2026-03-12T00:00:00Z',
          },
        ],
      },
    });
    const search: Evidence = { kind: 'search', query: 'sso setup', hits: 40, ctr: 0, share: 0.4, range };
    const record = await startFromGap(a, search);
    docs.complete(record.jobId, PR);
    const replies = () => slack.threadReplies('C0HEALTH', record.threadTs).filter((m) => m.text.includes(PR));
    await waitFor(() => replies().length === 1, { what: 'the first terminal reply' });

    const client = await connectRedis(redis!.url, createLogger({ level: 'silent', secrets: [] }), {
      failFast: false,
    });
    // Single-workspace mode's plane queue of impact checks (one shard under `docs-agent`).
    const queue = new Queue('impact', { connection: client, prefix: shardPrefix('docs-agent', 'impact', 0) });
    try {
      const delayed = async () => (await queue.getJobs(['delayed'])).map((j) => j.id);
      await waitFor(async () => (await delayed()).length > 0, { what: 'the delayed impact check' });
      // A follow-up on the other instance ends with a PR again: a second sighting, still one entry.
      const followUp = await b.agent.jobs.followUp({ jobId: record.jobId, prompt: 'one more thing' });
      expect(followUp.ok).toBe(true);
      // Completed only once a poll has seen the new run active (a terminal state right after a follow-up
      // is distrusted until then).
      const polls = () => docs.requestsTo('GET', new RegExp(`/job/${record.jobId}$`)).length;
      const pollsBefore = polls();
      await waitFor(() => polls() > pollsBefore + 1, { what: 'a poll of the new run' });
      docs.complete(record.jobId, PR);
      await waitFor(() => replies().length === 2, { what: 'the second terminal reply', timeoutMs: 15_000 });
      await waitFor(
        () => [...a.logs, ...b.logs].filter((l) => l.includes('impact check scheduled')).length === 2,
        { what: 'both sightings remembered' },
      );
      expect(await delayed()).toEqual([
        planeJobId('impact', SINGLE_WORKSPACE_TENANT, impactJobId(record.jobId)),
      ]);
      const job = await queue.getJob(
        planeJobId('impact', SINGLE_WORKSPACE_TENANT, impactJobId(record.jobId)),
      );
      expect(job!.delay).toBeGreaterThan(13 * 24 * 60 * 60 * 1000);
      expect(impactPosts(slack)).toEqual([]);

      // A restart of one instance: the entry waits in Redis, and the restarted instance runs checks too.
      await a.stop();
      apps.splice(apps.indexOf(a), 1);
      const c = await startTestApp({ slack, docs, env, agentOptions: { clock } });
      apps.push(c);
      expect(await delayed()).toEqual([
        planeJobId('impact', SINGLE_WORKSPACE_TENANT, impactJobId(record.jobId)),
      ]);

      await job!.promote();
      const [post] = await waitFor(() => (impactPosts(slack).length ? impactPosts(slack) : undefined), {
        what: 'the impact post',
        timeoutMs: 10_000,
      });
      expect(post!.thread_ts).toBe(record.threadTs);
      const blocks = JSON.stringify(post!.blocks);
      expect(blocks).toContain('*Searches:* 40 → 12 (▼ 70%)');
      expect(blocks).toContain('*Click-through:* 0% → 50% (new) ✅');
      await waitFor(
        async () =>
          (await queue.getJobState(
            planeJobId('impact', SINGLE_WORKSPACE_TENANT, impactJobId(record.jobId)),
          )) === 'completed',
        {
          what: 'the check completed',
        },
      );
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(impactPosts(slack)).toHaveLength(1);
      const posters = [a, b, c].filter((app) => app.logs.some((l) => l.includes('"delivery":"posted"')));
      expect(posters).toHaveLength(1);
    } finally {
      await queue.close();
      await closeRedis(client);
      for (const app of apps.splice(0).reverse()) await app.stop();
      await slack.close();
      await docs.close();
    }
  });
});
