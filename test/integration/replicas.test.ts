import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BotProcess, startBotProcess } from '../support/bot-process.js';
import { FakeDocs, type FakeJob } from '../support/fake-docs.js';
import { FakeSlack, type StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { eventEnvelope, messageEvent } from '../support/slack-events.js';

/*
 * Issue 11: several replicas, one job, one truth. Two real bot processes on one real redis-server, the
 * in-test fake Slack and fake docs platform.
 */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function setup(env: Record<string, string> = {}, replicas = 2, dataDir?: string) {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  const redis: { current: RedisServer } = { current: await startRedisServer(dataDir ? { dataDir } : {}) };
  cleanups.push(
    () => slack.close(),
    () => docs.close(),
    () => redis.current.stop(),
  );
  const bot = async (name: string): Promise<BotProcess> => {
    const started = await startBotProcess({ name, slack, docs, redisUrl: redis.current.url, env });
    cleanups.push(() => started.kill());
    return started;
  };
  const [a, b] = await Promise.all(['a', 'b'].slice(0, replicas).map(bot));
  return { slack, docs, redis, a: a!, b: b! };
}

/** Holds the next poll of `job` at the docs platform and resolves the replica that sent it. */
async function pollHeldUpstream(docs: FakeDocs, job: FakeJob, replicas: BotProcess[], ms: number) {
  const path = new RegExp(`/job/${job.id}$`);
  const before = docs.requestsTo('GET', path).length;
  const logsBefore = replicas.map((p) => p.logs.length);
  docs.inject({ method: 'GET', path }, { kind: 'delay', ms });
  await waitFor(() => docs.requestsTo('GET', path).length > before, {
    what: 'a held poll',
    timeoutMs: 10_000,
  });
  // The replica whose latest "polling job" line came after the hold was set up (one poll at a time per job).
  await sleep(200);
  const poller = replicas.find((p, i) =>
    p.logs.slice(logsBefore[i]).some((l) => l.msg === 'polling job' && l.jobId === job.id),
  );
  if (!poller) throw new Error('no replica logged the held poll');
  return poller;
}

async function startJob(via: BotProcess, slack: FakeSlack, docs: FakeDocs, channel: string, prompt: string) {
  expect((await via.command({ text: prompt, channel_id: channel })).status).toBe(200);
  const job: FakeJob = await waitFor(() => [...docs.jobs.values()].find((j) => j.prompts[0] === prompt), {
    what: `job for ${channel}`,
  });
  const card: StoredMessage = await waitFor(
    () => slack.messages.find((m) => m.channel === channel && !m.thread_ts),
    { what: `card in ${channel}` },
  );
  return { job, card };
}

function repliesWith(slack: FakeSlack, card: StoredMessage, text: string): StoredMessage[] {
  return slack.threadReplies(card.channel, card.ts).filter((m) => m.bot_id && m.text.includes(text));
}

const logged = (p: BotProcess, msg: string, jobId: string) =>
  p.logs.some((l) => l.msg === msg && l.jobId === jobId);

describe('replicas on one Redis', () => {
  it('a follow-up handled by one replica while the other is polling the same job is not lost', async () => {
    // The terminal reply is held by Slack for 4 s (within the client timeout), so the follow-up lands on
    // the other replica while the poller still holds the record it read before the follow-up.
    const { slack, docs, a, b } = await setup({ SLACK_API_TIMEOUT_MS: '10000' });
    const { job, card } = await startJob(a, slack, docs, 'C0RACE', 'Document the race');
    await waitFor(() => docs.requestsTo('GET', new RegExp(`/job/${job.id}$`)).length > 0, {
      what: 'first poll',
    });

    slack.inject('chat.postMessage', { kind: 'delay', ms: 4_000, thenSucceed: true });
    docs.complete(job.id, 'https://github.com/acme/docs/pull/1');
    const poller = await waitFor(() => [a, b].find((p) => logged(p, 'owing terminal reply', job.id)), {
      what: 'the poller to start its terminal reply',
      timeoutMs: 10_000,
    });
    const other = poller === a ? b : a;
    const followUp = eventEnvelope(
      messageEvent({ channel: card.channel, thread_ts: card.ts, text: 'Please also cover retries' }),
    );
    expect((await other.event(followUp)).status).toBe(200);
    await waitFor(() => logged(other, 'follow-up sent to agent job', job.id), {
      what: 'follow-up handled by the other replica',
      timeoutMs: 10_000,
    });
    expect(job.prompts).toHaveLength(2);
    // The first generation's reply arrives once Slack lets it through.
    await waitFor(() => repliesWith(slack, card, '/pull/1').length === 1, {
      what: 'first terminal reply',
      timeoutMs: 15_000,
    });

    // The second run is polled (seen running), then ends: its own reply must come.
    await sleep(1_500);
    docs.complete(job.id, 'https://github.com/acme/docs/pull/2');
    await waitFor(() => repliesWith(slack, card, '/pull/2').length === 1, {
      what: 'terminal reply of the follow-up run',
      timeoutMs: 15_000,
    });
    expect(repliesWith(slack, card, '/pull/1')).toHaveLength(1);
  }, 60_000);

  it('a replica killed mid-poll: the reply reaches Slack within 20 s of the job ending', async () => {
    const { slack, docs, a, b } = await setup({ POLL_INTERVAL_MS: '500', POLL_MAX_INTERVAL_MS: '1000' });
    const { job, card } = await startJob(a, slack, docs, 'C0KILLED', 'Document the killed poll');
    const poller = await pollHeldUpstream(docs, job, [a, b], 5_000);
    await poller.kill();
    docs.complete(job.id, 'https://github.com/acme/docs/pull/7');
    const endedAt = Date.now();
    await waitFor(() => repliesWith(slack, card, '/pull/7').length === 1, {
      what: 'terminal reply from the surviving replica',
      timeoutMs: 30_000,
    });
    expect(Date.now() - endedAt).toBeLessThan(20_000);
  }, 60_000);

  it('a poll failing during a 5 s Redis outage retries within 10 s of Redis returning', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'docs-agent-redis-aof-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env = { POLL_INTERVAL_MS: '500', POLL_MAX_INTERVAL_MS: '1000' };
    const { slack, docs, redis, a } = await setup(env, 1, dataDir);
    const { job, card } = await startJob(a, slack, docs, 'C0OUTAGE2', 'Document the outage retry');
    // The poll is in flight when Redis stops; it learns the job ended but cannot record it.
    await pollHeldUpstream(docs, job, [a], 1_500);
    const port = redis.current.port;
    await redis.current.stop();
    docs.complete(job.id, 'https://github.com/acme/docs/pull/8');
    await sleep(5_000);
    redis.current = await startRedisServer({ port, dataDir });
    const returnedAt = Date.now();
    await waitFor(() => repliesWith(slack, card, '/pull/8').length === 1, {
      what: 'terminal reply after Redis returned',
      timeoutMs: 40_000,
    });
    expect(Date.now() - returnedAt).toBeLessThan(10_000);
  }, 80_000);
});
