import { afterEach, describe, expect, it } from 'vitest';
import type { BotProcess } from '../support/bot-process.js';
import { type FakeJob, makeViewRows } from '../support/fake-docs.js';
import type { StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import {
  bot,
  fakes,
  redisServer,
  sleep,
  startJob,
  stopProcesses,
  terminalReplies,
  threadReply,
} from '../support/process-helpers.js';
import { eventEnvelope, messageEvent } from '../support/slack-events.js';

/*
 * Issue 5's guarantees with real processes: the bot runs as child processes (`node --import tsx src/main.ts`)
 * against a real redis-server, the in-test fake Slack and the fake docs platform.
 */

afterEach(stopProcesses);

describe('replicas on one Redis', () => {
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

    const weeklyLogs = [...a.logs, ...b.logs].filter((l) =>
      String(l.msg).startsWith('weekly page-view report owed'),
    );
    const occurrences = weeklyLogs.map((l) => String(l.occurrence));
    expect(new Set(occurrences).size).toBe(occurrences.length);
    // Each occurrence's post carries its key (weekly:<channel>:<occurrence>): every key once in Slack.
    const weeklyKeys = slack.messages
      .filter((m) => m.channel === 'C0WEEKLY')
      .map((m) => String(m.metadata?.event_payload.key));
    expect(weeklyKeys.every((key) => key.startsWith('weekly:C0WEEKLY:'))).toBe(true);
    expect(new Set(weeklyKeys).size).toBe(weeklyKeys.length);
    expect(weeklyKeys.length).toBeGreaterThanOrEqual(2);

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
});
