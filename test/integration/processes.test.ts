import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotProcess, startBotProcess } from '../support/bot-process.js';
import { FakeDocs, type FakeJob, makeViewRows } from '../support/fake-docs.js';
import { FakeSlack, type StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { eventEnvelope, messageEvent } from '../support/slack-events.js';

/*
 * Issue 5's guarantees with real processes: the bot runs as child processes (`node --import tsx src/main.ts`)
 * against a real redis-server, the in-test fake Slack and the fake docs platform.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function fakes(): Promise<{ slack: FakeSlack; docs: FakeDocs }> {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  cleanups.push(
    () => slack.close(),
    () => docs.close(),
  );
  return { slack, docs };
}

async function redisServer(options: Parameters<typeof startRedisServer>[0] = {}): Promise<RedisServer> {
  const redis = await startRedisServer(options);
  cleanups.push(() => redis.stop());
  return redis;
}

async function bot(options: Parameters<typeof startBotProcess>[0]): Promise<BotProcess> {
  const process_ = await startBotProcess(options);
  cleanups.push(() => process_.kill());
  return process_;
}

/** The job whose first prompt is `prompt` (prompts are unique per test). */
function jobWithPrompt(docs: FakeDocs, prompt: string): FakeJob | undefined {
  return [...docs.jobs.values()].find((job) => job.prompts[0] === prompt);
}

function cardIn(slack: FakeSlack, channel: string): StoredMessage | undefined {
  return slack.messages.find((m) => m.channel === channel && !m.thread_ts);
}

/** The bot's replies in a job's thread that carry a pull request link (its terminal replies). */
function terminalReplies(slack: FakeSlack, card: StoredMessage): StoredMessage[] {
  return slack.threadReplies(card.channel, card.ts).filter((m) => m.bot_id && m.text.includes('/pull/'));
}

/** A person's reply in a job's thread, as a signed Events API delivery (one event id, reusable). */
function threadReply(card: StoredMessage, text: string, eventId?: string) {
  return eventEnvelope(messageEvent({ channel: card.channel, thread_ts: card.ts, text }), eventId);
}

async function startJob(
  via: BotProcess,
  slack: FakeSlack,
  docs: FakeDocs,
  channel: string,
  prompt: string,
): Promise<{ job: FakeJob; card: StoredMessage }> {
  const ack = await via.command({ text: prompt, channel_id: channel });
  expect(ack.status).toBe(200);
  const job = await waitFor(() => jobWithPrompt(docs, prompt), { what: `job for ${channel}` });
  const card = await waitFor(() => cardIn(slack, channel), { what: `card in ${channel}` });
  return { job, card };
}

describe('processes on one Redis', () => {
  it('SIGKILL with active jobs: after a restart every terminal reply is posted once, and follow-ups still reach their job', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    // Polls every 1-2 s, so the kill can land between polls (a poll killed mid-flight is recovered by
    // BullMQ's stalled-job check once its 8 s lock lapses: see replicas.test.ts).
    const env = { POLL_INTERVAL_MS: '1000', POLL_MAX_INTERVAL_MS: '2000' };
    const first = await bot({ name: 'first', slack, docs, redisUrl: redis.url, env });

    const channels = ['C0KILL1', 'C0KILL2', 'C0KILL3'];
    const started = [];
    for (const [i, channel] of channels.entries()) {
      started.push(await startJob(first, slack, docs, channel, `Document crash recovery, part ${i + 1}`));
    }
    for (const { job } of started) {
      await waitFor(
        () => docs.requests.some((r) => r.method === 'GET' && r.path.endsWith(`/job/${job.id}`)),
        {
          what: `first poll of ${job.id}`,
        },
      );
    }
    // Kill in a quiet moment between polls: no poll request in the last 150 ms.
    let seen = -1;
    let changedAt = Date.now();
    await waitFor(
      () => {
        const count = docs.requestsTo('GET', /\/job\//).length;
        if (count !== seen) {
          seen = count;
          changedAt = Date.now();
        }
        return Date.now() - changedAt > 150;
      },
      { what: 'a gap between polls', timeoutMs: 10_000 },
    );
    await first.kill();
    expect((await first.exited).signal).toBe('SIGKILL');

    for (const { job } of started) docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
    expect(started.every(({ card }) => terminalReplies(slack, card).length === 0)).toBe(true);

    const second = await bot({ name: 'second', slack, docs, redisUrl: redis.url, env });
    for (const { card } of started) {
      await waitFor(() => terminalReplies(slack, card).length > 0, {
        what: `terminal reply in ${card.channel}`,
        timeoutMs: 15_000,
      });
    }
    await sleep(2_500); // more polls' worth of time: nothing is posted twice
    for (const { job, card } of started) {
      const replies = terminalReplies(slack, card);
      expect(replies).toHaveLength(1);
      expect(replies[0]!.text).toContain(`/pull/${job.id}`);
    }

    // The thread mapping survived the crash: a reply in the first job's thread is a follow-up to that job.
    const [{ job, card }] = started as [(typeof started)[number]];
    const ack = await second.event(threadReply(card, 'Also cover what happens to queued polls'));
    expect(ack.status).toBe(200);
    await waitFor(() => job.prompts.length === 2, { what: 'follow-up reached the docs API' });
    expect(job.prompts[1]).toContain('Also cover what happens to queued polls');
    await sleep(500);
    expect(docs.requestsTo('POST', /\/message$/)).toHaveLength(1);
    expect(docs.jobs.size).toBe(3);
  }, 45_000);

  it('two replicas: commands on both, one poller per job at a time, no duplicated job, follow-up, terminal reply or weekly post', async () => {
    const { slack, docs } = await fakes();
    docs.defaultViews = makeViewRows(30);
    const redis = await redisServer();
    const env = {
      POLL_INTERVAL_MS: '100',
      POLL_MAX_INTERVAL_MS: '200',
      // A "weekly" post every 2 seconds, so occurrences happen during the test.
      WEEKLY_REPORT_CHANNEL: 'C0WEEKLY',
      WEEKLY_REPORT_CRON: '*/2 * * * * *',
      WEEKLY_REPORT_TZ: 'Europe/Berlin',
    };
    const [a, b] = await Promise.all([
      bot({ name: 'a', slack, docs, redisUrl: redis.url, env }),
      bot({ name: 'b', slack, docs, redisUrl: redis.url, env }),
    ]);

    const started: Array<{ job: FakeJob; card: StoredMessage }> = [];
    for (let i = 0; i < 6; i++) {
      const via = i % 2 === 0 ? a : b;
      started.push(await startJob(via, slack, docs, `C0TWO${i}`, `Replica job ${i} via ${via.name}`));
    }
    expect(docs.jobs.size).toBe(6);

    // The same follow-up delivered to both replicas (same event id, as a Slack retry landing elsewhere).
    const target = started[0]!;
    const followUp = threadReply(target.card, 'Please also mention the retry budget', 'EvSAMEFOLLOWUP');
    const [ackA, ackB] = await Promise.all([a.event(followUp), b.event(followUp)]);
    expect([ackA.status, ackB.status]).toEqual([200, 200]);
    // The same @mention (a new job request) delivered to both replicas.
    const mention = eventEnvelope(
      messageEvent({
        type: 'app_mention',
        channel: 'C0MENTION',
        text: '<@U0DOCSBOT> Document the replica setup',
      }),
      'EvSAMEMENTION',
    );
    const [mA, mB] = await Promise.all([a.event(mention), b.event(mention)]);
    expect([mA.status, mB.status]).toEqual([200, 200]);
    await waitFor(() => target.job.prompts.length === 2 && docs.jobs.size === 7, {
      what: 'follow-up and mention job',
    });

    // Let both replicas poll for a while, then finish every job upstream.
    await sleep(1_500);
    const all = [...docs.jobs.values()];
    for (const job of all) docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
    const cards = started.map((s) => s.card);
    const mentionReplies = () =>
      slack.messages.filter((m) => m.channel === 'C0MENTION' && m.bot_id && m.text.includes('/pull/'));
    await waitFor(() => mentionReplies().length > 0, {
      what: 'terminal reply of the mention job',
      timeoutMs: 10_000,
    });
    for (const card of cards) {
      await waitFor(() => terminalReplies(slack, card).length > 0, {
        what: `terminal reply in ${card.channel}`,
        timeoutMs: 10_000,
      });
    }
    // Weekly posts: wait for at least two occurrences, then a little longer for any duplicate.
    await waitFor(() => slack.messages.filter((m) => m.channel === 'C0WEEKLY').length >= 2, {
      what: 'two weekly posts',
      timeoutMs: 10_000,
    });
    await sleep(1_000);

    // No duplicates anywhere.
    expect(docs.jobs.size).toBe(7);
    expect(target.job.prompts).toHaveLength(2);
    expect(docs.requestsTo('POST', /\/message$/)).toHaveLength(1);
    for (const card of cards) expect(terminalReplies(slack, card)).toHaveLength(1);
    expect(mentionReplies()).toHaveLength(1);

    const weeklyLogs = [...a.logs, ...b.logs].filter((l) => l.msg === 'posted weekly page-view report');
    const occurrences = weeklyLogs.map((l) => String(l.occurrence));
    expect(new Set(occurrences).size).toBe(occurrences.length);
    const weeklyPosts = slack.messages.filter((m) => m.channel === 'C0WEEKLY');
    // Posts made after the logs were read may add one more; each occurrence is still posted once.
    expect(weeklyPosts.length).toBeGreaterThanOrEqual(occurrences.length);
    expect(weeklyPosts.length).toBeLessThanOrEqual(occurrences.length + 1);
    expect(occurrences.length).toBeGreaterThanOrEqual(2);

    // Each job was polled by one replica at a time: per job, the poll requests of the two replicas
    // (from their "docs API call" logs: end time and duration) never overlap.
    const polls = (p: BotProcess) =>
      p.logs
        .filter((l) => l.msg === 'docs API call' && l.method === 'GET' && String(l.path).includes('/job/'))
        .map((l) => ({
          by: p.name,
          path: String(l.path),
          end: Number(l.time),
          start: Number(l.time) - Number(l.ms),
        }));
    const allPolls = [...polls(a), ...polls(b)];
    expect(allPolls.length).toBeGreaterThan(7);
    for (const job of all) {
      const ofJob = allPolls.filter((p) => p.path.endsWith(`/job/${job.id}`));
      for (const x of ofJob.filter((p) => p.by === 'a')) {
        for (const y of ofJob.filter((p) => p.by === 'b')) {
          expect(x.end < y.start || y.end < x.start, `${job.id} polled by both at once`).toBe(true);
        }
      }
    }
    // Commands were served by both replicas.
    expect(a.logs.some((l) => JSON.stringify(l).includes('C0TWO0'))).toBe(true);
    expect(b.logs.some((l) => JSON.stringify(l).includes('C0TWO1'))).toBe(true);
  }, 50_000);

  it('Redis stopped and restarted under the bot: Slack is acknowledged, users are told, no duplicate job, recovery without a restart', async () => {
    const { slack, docs } = await fakes();
    const dataDir = mkdtempSync(join(tmpdir(), 'docs-agent-redis-aof-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    let redis = await startRedisServer({ dataDir });
    const port = redis.port;
    cleanups.push(() => redis.stop());
    const env = { POLL_INTERVAL_MS: '200', POLL_MAX_INTERVAL_MS: '400' };
    const agent = await bot({ name: 'bot', slack, docs, redisUrl: redis.url, env });

    const { job, card } = await startJob(agent, slack, docs, 'C0OUTAGE', 'Document the outage runbook');
    await waitFor(() => docs.requestsTo('GET', /\/job\//).length > 0, { what: 'first poll' });

    await redis.stop();
    await sleep(300);
    const responsesBefore = slack.responses.length;
    const callsBefore = slack.calls.length;

    // A new job, a follow-up and a mention in the thread while Redis is down: all acknowledged.
    const command = await agent.command({
      text: 'Document something while Redis is down',
      channel_id: 'C0DOWN',
    });
    const reply = await agent.event(threadReply(card, 'A follow-up while Redis is down'));
    const mention = await agent.event(
      eventEnvelope(
        messageEvent({
          type: 'app_mention',
          channel: card.channel,
          thread_ts: card.ts,
          text: '<@U0DOCSBOT> start another one while Redis is down',
        }),
      ),
    );
    expect([command.status, reply.status, mention.status]).toEqual([200, 200, 200]);

    // Users hear that the bot cannot reach its state (the command's response_url, posts in the thread).
    const told = await waitFor(
      () => {
        const sent = JSON.stringify({
          responses: slack.responses.slice(responsesBefore),
          calls: slack.calls.slice(callsBefore).map((c) => c.args),
        });
        return /can.t reach my state/i.test(sent) ? sent : undefined;
      },
      { what: 'a "cannot reach its state" message', timeoutMs: 5_000 },
    );
    expect(told).toMatch(/try again/i);
    await sleep(500);
    // Nothing was created or sent upstream for them.
    expect(docs.jobs.size).toBe(1);
    expect(job.prompts).toHaveLength(1);

    // Redis comes back (with its data) on the same port; the bot reconnects by itself.
    redis = await startRedisServer({ port, dataDir });
    await sleep(2_500);
    const after = await startJob(agent, slack, docs, 'C0AFTER', 'Document the recovery');
    expect(docs.jobs.size).toBe(2);
    const ack = await agent.event(threadReply(card, 'A follow-up after Redis is back'));
    expect(ack.status).toBe(200);
    await waitFor(() => job.prompts.length === 2, { what: 'follow-up after recovery' });
    // Polls see the job running again before it completes (a terminal status right after a follow-up is
    // only trusted once the new run was seen).
    const pollsOf = () => docs.requestsTo('GET', new RegExp(`/job/${job.id}$`)).length;
    const polledBefore = pollsOf();
    await waitFor(() => pollsOf() >= polledBefore + 2, {
      what: 'polls after the follow-up',
      timeoutMs: 10_000,
    });

    // Polling resumed: both jobs reach their terminal reply, once.
    docs.complete(job.id, 'https://github.com/acme/docs/pull/501');
    docs.complete(after.job.id, 'https://github.com/acme/docs/pull/502');
    for (const c of [card, after.card]) {
      await waitFor(() => terminalReplies(slack, c).length > 0, {
        what: `terminal reply in ${c.channel}`,
        timeoutMs: 10_000,
      });
    }
    await sleep(800);
    expect(terminalReplies(slack, card)).toHaveLength(1);
    expect(terminalReplies(slack, after.card)).toHaveLength(1);
    expect(docs.jobs.size).toBe(2);
  }, 40_000);
});
