import { afterEach, describe, expect, it } from 'vitest';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack, type StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { startRedisServer } from '../support/redis-server.js';
import { nextMessageTs } from '../support/slack-events.js';
import {
  messageActionPayload,
  reactionAddedEnvelope,
  viewSubmissionPayload,
} from '../support/slack-interactions.js';
import { DISTRIBUTED_HISTORY_METHODS, SlackRateTiers } from '../support/slack-rate-tiers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 35, "done when": Slack's limits for a distributed app (conversations.history and .replies once a
 * minute each per workspace, 15 messages a page) on the fake Slack, two replicas on one Redis. The fake's
 * minute is 60 s ÷ SCALE and the bot's pacing is scaled alike (SLACK_TIER_RATE_PERCENT), so the test does
 * not wait real minutes.
 */

const SCALE = 30;
/** What a test started: its apps are stopped before the fakes they use are closed. */
const started: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const part of started.splice(0).reverse()) await part.close();
});

/** A Redis of its own (job ids restart with each fake docs platform), a fake Slack and docs, two replicas. */
async function twoReplicas() {
  const redis = await startRedisServer();
  started.push({ close: () => redis.stop() });
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  started.push(slack, docs);
  docs.jobsPerHour = 1_000_000;
  slack.rateTiers = new SlackRateTiers({ scale: SCALE, distributed: true, burst: 4 * SCALE });
  const env = {
    REDIS_URL: redis.url,
    SLACK_APP_TIER: 'distributed',
    SLACK_TIER_RATE_PERCENT: String(100 * SCALE),
    AGENT_JOBS_PER_HOUR: '1000000',
    DOCS_API_MAX_RPS: '1000',
  };
  const apps: TestApp[] = [];
  for (let i = 0; i < 2; i++) {
    const app = await startTestApp({ slack, docs, env });
    started.push({ close: () => app.stop() });
    apps.push(app);
  }
  return { slack, docs, apps };
}

const keyOf = (m: { metadata?: StoredMessage['metadata'] } | Record<string, unknown>) =>
  String((m.metadata as StoredMessage['metadata'] | undefined)?.event_payload?.key ?? '');
const historyReads = (slack: FakeSlack) =>
  slack.calls.filter((c) => (DISTRIBUTED_HISTORY_METHODS as readonly string[]).includes(c.method));
const limitedReads = (slack: FakeSlack) =>
  DISTRIBUTED_HISTORY_METHODS.reduce((sum, m) => sum + (slack.rateTiers?.limited.get(m) ?? 0), 0);

/** Starts `count` jobs in one channel, spread over the replicas; resolves them once every card tracks its job. */
async function startJobs(apps: TestApp[], docs: FakeDocs, slack: FakeSlack, count: number) {
  for (let i = 0; i < count; i++)
    await apps[i % apps.length]!.command({ text: `Distributed job ${i}`, channel_id: 'C0DIST' });
  const jobs = await waitFor(() => (docs.jobs.size >= count ? [...docs.jobs.values()] : undefined), {
    what: 'every job created',
  });
  await waitFor(
    () => jobs.every((job) => slack.messages.some((m) => JSON.stringify(m.blocks ?? '').includes(job.id))),
    { what: 'every card tracking its job', timeoutMs: 20_000 },
  );
  return jobs;
}

async function foundByLookUp(apps: TestApp[]): Promise<number> {
  let found = 0;
  for (const app of apps) {
    const text = await (await fetch(`${app.metricsUrl}/metrics`)).text();
    for (const match of text.matchAll(/^docs_agent_deliveries_total\{[^}]*outcome="found"[^}]*\} (\d+)/gm))
      found += Number(match[1]);
  }
  return found;
}

describe('a distributed app (history read once a minute per workspace), two replicas on one Redis', () => {
  it('two jobs that end normally get their PR replies with no history read at all: nothing waits on the budget', async () => {
    const { slack, docs, apps } = await twoReplicas();
    const jobs = await startJobs(apps, docs, slack, 2);
    for (const job of jobs) docs.complete(job.id);
    for (const job of jobs)
      await waitFor(() => slack.messages.find((m) => keyOf(m) === `terminal:${job.id}:1`), {
        what: `the PR reply of ${job.id}`,
        timeoutMs: 20_000,
      });
    expect(historyReads(slack)).toEqual([]);
    expect(slack.rateTiers?.limitedTotal).toBe(0);
  }, 60_000);

  it('three jobs in one channel whose PR replies Slack stored but answered 503: each ends with exactly one reply, found by batched look-ups', async () => {
    const { slack, docs, apps } = await twoReplicas();
    const jobs = await startJobs(apps, docs, slack, 3);
    slack.held.add(
      'chat.postMessage',
      (args) => keyOf(args).startsWith('terminal:'),
      { kind: 'late', ms: 0, status: 503 },
      3,
    );
    // Never two copies of a reply at once: counted at every store.
    let mostCopies = 0;
    const push = slack.messages.push.bind(slack.messages);
    slack.messages.push = (...messages: StoredMessage[]) => {
      const length = push(...messages);
      for (const m of messages)
        if (keyOf(m).startsWith('terminal:'))
          mostCopies = Math.max(mostCopies, slack.messages.filter((c) => keyOf(c) === keyOf(m)).length);
      return length;
    };
    for (const job of jobs) docs.complete(job.id);
    await waitFor(() => slack.held.hit.length === 3, {
      what: 'three replies stored, answered 503',
      timeoutMs: 20_000,
    });
    await waitFor(async () => ((await foundByLookUp(apps)) >= 3 ? true : undefined), {
      what: 'every reply found by a look-up',
      timeoutMs: 90_000,
    });
    // The cards end final too (their updates are not history reads).
    await waitFor(
      () =>
        jobs.every((job) =>
          slack.messages.some(
            (m) =>
              !m.thread_ts &&
              JSON.stringify(m.blocks ?? '').includes(job.id) &&
              JSON.stringify(m.blocks ?? '').includes('pull request opened'),
          ),
        ),
      { what: 'every card final', timeoutMs: 30_000 },
    );
    for (const job of jobs) {
      const key = `terminal:${job.id}:1`;
      expect(slack.messages.filter((m) => keyOf(m) === key)).toHaveLength(1);
      // Found, never posted blind a second time.
      expect(slack.callsOf('chat.postMessage').filter((c) => keyOf(c.args) === key)).toHaveLength(1);
    }
    expect(mostCopies).toBe(1);
    expect(limitedReads(slack)).toBeLessThanOrEqual(3);
    // Every page asked for at most 15 messages, in a window (oldest and latest, inclusive).
    for (const read of historyReads(slack)) {
      expect(Number(read.args.limit)).toBeLessThanOrEqual(15);
      if (read.args.include_all_metadata)
        expect([read.args.oldest, read.args.latest, String(read.args.inclusive)]).not.toContain(undefined);
    }
  }, 150_000);

  it('the shortcut used twice within 5 s on replies in a 40-reply thread opens both forms, prefilled', async () => {
    const { slack, docs, apps } = await twoReplicas();
    const rootTs = nextMessageTs();
    slack.messages.push({ channel: 'C0DIST', ts: rootTs, text: 'Release notes thread', user: 'U0BOB' });
    const replies: string[] = [];
    for (let i = 0; i < 40; i++) {
      const ts = nextMessageTs();
      replies.push(ts);
      slack.messages.push({
        channel: 'C0DIST',
        ts,
        thread_ts: rootTs,
        text: `Reply ${i}: the export flag changed`,
        user: 'U0BOB',
      });
    }
    const use = (app: TestApp, ts: string, text: string) =>
      app.interaction(
        messageActionPayload({
          triggerId: slack.surfaces.mintTriggerId('U0ALICE'),
          responseUrl: slack.responseUrl(),
          channelId: 'C0DIST',
          message: { text, ts, thread_ts: rootTs },
        }),
      );
    // Two people, a moment apart, each reaching another replica: one thread read a minute between them.
    await use(apps[0]!, replies[20]!, 'Document the new export flag');
    await use(apps[1]!, replies[39]!, 'Also cover the export limits');
    const modals = await waitFor(
      () => (slack.surfaces.modals.size === 2 ? [...slack.surfaces.modals.values()] : undefined),
      { what: 'both forms open' },
    );
    const forms = modals.map((m) => JSON.stringify(m.view));
    expect(forms.some((f) => f.includes('Document the new export flag'))).toBe(true);
    expect(forms.some((f) => f.includes('Also cover the export limits'))).toBe(true);
    // At most one read of the thread (its slot this minute); the other form says it could not read it.
    expect(slack.callsOf('conversations.replies').length).toBeLessThanOrEqual(1);
    expect(forms.filter((f) => f.includes("couldn't read this thread's earlier messages"))).toHaveLength(
      2 - slack.callsOf('conversations.replies').length,
    );
    expect(slack.responses).toEqual([]);

    // The job started from the form that read the thread takes that read as its context: no second read.
    const withContext = modals.find((m) => JSON.stringify(m.view).includes("Include the thread's earlier"));
    expect(withContext, 'the first form, which had the minute’s read').toBeDefined();
    await apps[0]!.interaction(
      viewSubmissionPayload({
        view: withContext!.view,
        values: {
          instruction: {
            instruction_input: { type: 'plain_text_input', value: 'Document the new export flag' },
          },
          thread_context: {
            include_context: {
              type: 'checkboxes',
              selected_options: [{ text: { type: 'plain_text', text: 'Include' }, value: 'include' }],
            },
          },
        },
      }),
    );
    const job = await waitFor(() => [...docs.jobs.values()][0], { what: 'the job from the form' });
    // One page of 15: the thread's root and first 14 replies, and the form said exactly that.
    expect(job.prompts[0]).toContain('Reply 13: the export flag changed');
    expect(job.prompts[0]).not.toContain('Reply 14:');
    expect(JSON.stringify(withContext!.view)).toContain(
      "the agent gets the thread's first 15 messages in full",
    );
    expect(slack.callsOf('conversations.replies')).toHaveLength(1);
    expect(limitedReads(slack)).toBe(0);
  }, 60_000);

  it('two reactions a moment apart both start their jobs: the second waits for the next read instead of failing', async () => {
    const { slack, docs, apps } = await twoReplicas();
    const messages = ['Document the audit log export', 'Document the audit log retention'].map((text) => {
      const ts = nextMessageTs();
      slack.messages.push({ channel: 'C0DIST', ts, text, user: 'U0BOB' });
      return ts;
    });
    await apps[0]!.event(reactionAddedEnvelope({ ts: messages[0]!, channelId: 'C0DIST', itemUser: 'U0BOB' }));
    await apps[1]!.event(reactionAddedEnvelope({ ts: messages[1]!, channelId: 'C0DIST', itemUser: 'U0BOB' }));
    const jobs = await waitFor(() => (docs.jobs.size === 2 ? [...docs.jobs.values()] : undefined), {
      what: 'both jobs started',
      timeoutMs: 20_000,
    });
    expect(jobs.map((job) => job.prompts[0]).sort()).toEqual([
      expect.stringContaining('Document the audit log export'),
      expect.stringContaining('Document the audit log retention'),
    ]);
    expect(slack.callsOf('chat.postEphemeral')).toEqual([]);
    expect(limitedReads(slack)).toBeLessThanOrEqual(1);
  }, 60_000);
});
