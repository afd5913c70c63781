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

async function setup(env: Record<string, string> = {}) {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  const redis: RedisServer = await startRedisServer();
  cleanups.push(
    () => slack.close(),
    () => docs.close(),
    () => redis.stop(),
  );
  const bot = async (name: string): Promise<BotProcess> => {
    const started = await startBotProcess({ name, slack, docs, redisUrl: redis.url, env });
    cleanups.push(() => started.kill());
    return started;
  };
  const [a, b] = await Promise.all([bot('a'), bot('b')]);
  return { slack, docs, redis, a, b };
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
    const poller = await waitFor(() => [a, b].find((p) => logged(p, 'posting terminal reply', job.id)), {
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
});
