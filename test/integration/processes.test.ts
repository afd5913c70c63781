import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import {
  bot,
  fakes,
  onCleanup,
  redisServer,
  sleep,
  startJob,
  stopProcesses,
  terminalReplies,
  threadReply,
} from '../support/process-helpers.js';
import { startRedisServer } from '../support/redis-server.js';
import { eventEnvelope, messageEvent } from '../support/slack-events.js';

/*
 * Issue 5's guarantees with real processes: the bot runs as child processes (`node --import tsx src/main.ts`)
 * against a real redis-server, the in-test fake Slack and the fake docs platform.
 */

afterEach(stopProcesses);
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

  it('Redis stopped and restarted under the bot: Slack is acknowledged, users are told, no duplicate job, recovery without a restart', async () => {
    const { slack, docs } = await fakes();
    const dataDir = mkdtempSync(join(tmpdir(), 'docs-agent-redis-aof-'));
    onCleanup(async () => rmSync(dataDir, { recursive: true, force: true }));
    let redis = await startRedisServer({ dataDir });
    const port = redis.port;
    onCleanup(() => redis.stop());
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
        return /can.t reach my storage/i.test(sent) ? sent : undefined;
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
