import { afterAll, describe, expect, it } from 'vitest';
import { type BotProcess, startBotProcess } from '../support/bot-process.js';
import { FakeDocs, type FakeJob } from '../support/fake-docs.js';
import { FakeSlack, type StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { eventEnvelope, messageEvent, retryHeaders } from '../support/slack-events.js';
import { recordDrill } from './drill-support.js';

/*
 * Restarts under load (Redis mode): the real bot as a child process is SIGKILLed again and again while jobs
 * run, polls are in flight and events arrive; Slack's retries of the events the dead process never answered
 * are delivered to its successor. At the end every job is completed upstream and the drill counts jobs,
 * follow-ups and terminal replies: nothing lost, nothing twice.
 *
 * Scope: a slash command or event that a process acknowledged and then died on before reaching the docs
 * API is not retried by Slack; the drill kills after each accepted unit of work has reached the platform
 * (what a crash can never undo), but at a random moment relative to the polls.
 */

const CYCLES = 4;
const JOBS_PER_CYCLE = 2;
const SEED = 4242;

let state = SEED;
const random = () => {
  state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
  return state / 2 ** 31;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let slack: FakeSlack;
let docs: FakeDocs;
let redis: RedisServer;
let bot: BotProcess | undefined;

afterAll(async () => {
  await bot?.kill().catch(() => undefined);
  await redis?.stop();
  await slack?.close();
  await docs?.close();
});

/** Polls every 0.3-0.8 s, so kills land among polls in flight. */
const ENV = { POLL_INTERVAL_MS: '300', POLL_MAX_INTERVAL_MS: '800' };

function terminalReplies(card: StoredMessage): StoredMessage[] {
  return slack.threadReplies(card.channel, card.ts).filter((m) => m.bot_id && m.text.includes('/pull/'));
}

describe('restarts under load (Redis mode, SIGKILL)', () => {
  it('loses and duplicates nothing across repeated kills', { timeout: 180_000 }, async () => {
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    redis = await startRedisServer();
    const started: Array<{ prompt: string; channel: string; job?: FakeJob; card?: StoredMessage }> = [];
    const followUps: Array<{ jobPrompt: string; text: string }> = [];
    let retriedEvents = 0;
    let kills = 0;
    // Jobs that get follow-ups stay running until the end, so each job's expected count of terminal
    // replies is exactly one (a follow-up to a finished job would rightly earn a second).
    const steered = new Set<string>();
    const runningTarget = () => {
      const candidates = started.filter((s) => s.job?.status === 'active');
      const target = candidates[Math.floor(random() * candidates.length)];
      if (target) steered.add(target.prompt);
      return target;
    };
    const completeSome = () => {
      for (const entry of started) {
        if (entry.job?.status === 'active' && !steered.has(entry.prompt) && random() < 0.25)
          docs.complete(entry.job.id);
      }
    };

    for (let cycle = 0; cycle < CYCLES; cycle++) {
      bot = await startBotProcess({ name: `bot-${cycle}`, slack, docs, redisUrl: redis.url, env: ENV });
      // Slack retries what the killed process never answered: the last cycle's unanswered follow-up.
      const pending = followUps.filter((f) => f.text.endsWith('(in flight at kill)'));
      for (const followUp of pending) {
        const target = started.find((s) => s.prompt === followUp.jobPrompt)!;
        const ack = await bot.event(
          eventEnvelope(
            messageEvent({ channel: target.channel, thread_ts: target.card!.ts, text: followUp.text }),
          ),
          retryHeaders(1),
        );
        expect(ack.status).toBe(200);
        retriedEvents += 1;
        followUp.text = followUp.text.replace(' (in flight at kill)', ' (retried)');
      }

      for (let i = 0; i < JOBS_PER_CYCLE; i++) {
        const channel = `C0CYCLE${cycle}${i}`;
        const prompt = `Restart drill: cycle ${cycle}, job ${i}`;
        const ack = await bot.command({ text: prompt, channel_id: channel });
        expect(ack.status).toBe(200);
        started.push({ prompt, channel });
      }
      for (const entry of started.filter((s) => !s.job)) {
        entry.job = await waitFor(() => [...docs.jobs.values()].find((j) => j.prompts[0] === entry.prompt), {
          what: `job for ${entry.prompt}`,
          timeoutMs: 15_000,
        });
        entry.card = await waitFor(
          () =>
            slack.messages.find(
              (m) =>
                m.channel === entry.channel &&
                !m.thread_ts &&
                JSON.stringify(m.blocks).includes(entry.job!.id),
            ),
          { what: `tracked card for ${entry.prompt}`, timeoutMs: 15_000 },
        );
      }

      // A follow-up to an earlier job that is still running: delivered and seen through to the docs API.
      const target = cycle > 0 ? runningTarget() : undefined;
      if (target) {
        const text = `Restart drill follow-up ${cycle}`;
        await bot.event(
          eventEnvelope(messageEvent({ channel: target.channel, thread_ts: target.card!.ts, text })),
        );
        await waitFor(() => target.job!.prompts.some((p) => p.includes(text)), {
          what: 'follow-up reached the API',
        });
        followUps.push({ jobPrompt: target.prompt, text });
      }

      // Some jobs finish while this process runs, some while no process runs at all.
      completeSome();
      await sleep(200 + Math.floor(random() * 1000));
      await bot.kill();
      kills += 1;
      bot = undefined;
      completeSome();
      // An event Slack sent to the dead process: it will be retried to the next one.
      const late = cycle > 0 ? runningTarget() : undefined;
      if (late)
        followUps.push({
          jobPrompt: late.prompt,
          text: `Restart drill late note ${cycle} (in flight at kill)`,
        });
    }

    // The last process: everything finishes upstream; every job gets its terminal reply, once.
    bot = await startBotProcess({ name: 'bot-final', slack, docs, redisUrl: redis.url, env: ENV });
    for (const followUp of followUps.filter((f) => f.text.endsWith('(in flight at kill)'))) {
      const target = started.find((s) => s.prompt === followUp.jobPrompt)!;
      await bot.event(
        eventEnvelope(
          messageEvent({ channel: target.channel, thread_ts: target.card!.ts, text: followUp.text }),
        ),
        retryHeaders(1),
      );
      retriedEvents += 1;
      followUp.text = followUp.text.replace(' (in flight at kill)', ' (retried)');
    }
    for (const followUp of followUps) {
      const target = started.find((s) => s.prompt === followUp.jobPrompt)!;
      const base = followUp.text.replace(' (retried)', '');
      await waitFor(() => target.job!.prompts.some((p) => p.includes(base)), {
        what: `follow-up "${base}"`,
        timeoutMs: 15_000,
      });
    }
    for (const entry of started) if (entry.job!.status === 'active') docs.complete(entry.job!.id);
    // A poll killed mid-flight is handed to the next process by BullMQ's stalled-job check (30 s lock).
    for (const entry of started) {
      await waitFor(() => terminalReplies(entry.card!).length > 0, {
        what: `terminal reply for ${entry.prompt}`,
        timeoutMs: 60_000,
      });
    }
    await sleep(2_000);

    const replies = started.map((entry) => terminalReplies(entry.card!).length);
    const followUpsUpstream = followUps.map((f) => {
      const target = started.find((s) => s.prompt === f.jobPrompt)!;
      const base = f.text.replace(' (retried)', '');
      return target.job!.prompts.filter((p) => p.includes(base)).length;
    });
    const figures = {
      seed: SEED,
      kills,
      jobsStarted: started.length,
      jobsOnPlatform: docs.jobs.size,
      followUpsSent: followUps.length,
      eventsRetriedAfterKill: retriedEvents,
      terminalRepliesPosted: replies.reduce((a, b) => a + b, 0),
      jobsLost: replies.filter((n) => n === 0).length + followUpsUpstream.filter((n) => n === 0).length,
      duplicates:
        replies.filter((n) => n > 1).length +
        followUpsUpstream.filter((n) => n > 1).length +
        (docs.jobs.size - started.length),
    };
    recordDrill('restarts', figures);

    expect(docs.jobs.size).toBe(started.length);
    expect(replies.every((n) => n === 1)).toBe(true);
    expect(followUpsUpstream.every((n) => n === 1)).toBe(true);
    expect(figures.jobsLost).toBe(0);
    expect(figures.duplicates).toBe(0);
  });
});
