import { afterAll, describe, expect, it } from 'vitest';
import { type BotProcess, startBotProcess } from '../support/bot-process.js';
import { FakeDocs, type FakeJob } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import {
  BOT_USER_ID,
  eventEnvelope,
  messageEvent,
  nextMessageTs,
  retryHeaders,
} from '../support/slack-events.js';
import { recordDrill, SECRETS, sleep } from './drill-support.js';

/*
 * Restarts under load (Redis mode): the real bot as a child process is SIGKILLed again and again while jobs
 * run, polls are in flight and events arrive. Every message (a mention that starts a job, a reply that
 * steers one) is delivered several times, as Slack does: a retry with the same event_id, a redelivery with a
 * new event_id, and for a mention its `message`/`app_mention` twin; once to the process that is then killed
 * and again to its successor. Only the shared dedupe claim in Redis keeps each message to one job or one
 * follow-up: without it this drill fails (checked by disabling the claim).
 *
 * Scope: Slack does not retry what a process acknowledged and died on before reaching the docs API; the
 * drill kills after each accepted unit of work reached the platform, at a random moment among the polls.
 */

const CYCLES = 4;
const COMMAND_JOBS_PER_CYCLE = 2;
const SEED = 4242;

let state = SEED;
const random = () => {
  state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
  return state / 2 ** 31;
};

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

/** A job; `threadTs` is its thread: the card for a command, the mention itself for a mention. */
interface Started {
  prompt: string;
  channel: string;
  job?: FakeJob;
  threadTs?: string;
}

/** One Slack message (one identity: channel + ts) and the event deliveries made of it. */
interface Message {
  text: string;
  channel: string;
  ts: string;
  threadTs?: string;
  mention: boolean;
  /** The first delivery's event_id: Slack retries it under the same id. */
  eventId: string;
  retries: number;
}

function terminalReplies(job: FakeJob) {
  return slack.messages.filter((m) =>
    String(m.metadata?.event_payload?.key ?? '').startsWith(`terminal:${job.id}:`),
  );
}

function eventOf(message: Message, type: 'message' | 'app_mention') {
  return messageEvent({
    type,
    channel: message.channel,
    ts: message.ts,
    text: message.mention ? `<@${BOT_USER_ID}> ${message.text}` : message.text,
    ...(message.threadTs ? { thread_ts: message.threadTs } : {}),
  });
}

/**
 * Delivers a message to `target` the way Slack does, several times: the first time (or, to a successor,
 * a retry of the event the dead process never answered), a retry with the same event_id, a redelivery with
 * a new event_id and, for a mention, the twin event. Resolves once `target` handled every delivery.
 */
async function deliver(target: BotProcess, message: Message, first: boolean): Promise<number> {
  const primary = message.mention ? 'app_mention' : 'message';
  const handledBefore = handled(target, message.ts);
  const sends: Array<[Record<string, unknown>, Record<string, string>]> = [];
  if (first) sends.push([eventEnvelope(eventOf(message, primary), message.eventId), {}]);
  message.retries += 1;
  sends.push([eventEnvelope(eventOf(message, primary), message.eventId), retryHeaders(message.retries)]);
  sends.push([eventEnvelope(eventOf(message, primary)), {}]);
  if (message.mention) sends.push([eventEnvelope(eventOf(message, 'message')), {}]);
  for (const [payload, headers] of sends) {
    const ack = await target.event(payload, headers);
    expect(ack.status).toBe(200);
  }
  await waitFor(() => handled(target, message.ts) >= handledBefore + sends.length, {
    what: `${target.name} handled ${sends.length} deliveries of "${message.text}"`,
    timeoutMs: 20_000,
  });
  return sends.length;
}

/** Jobs and follow-ups on the platform that carry this text (each message must count exactly once). */
function upstreamCopies(text: string): number {
  return [...docs.jobs.values()].reduce(
    (n, job) => n + job.prompts.filter((p) => p.includes(text)).length,
    0,
  );
}

/** How many deliveries of the message with this ts the process finished handling (its debug log). */
function handled(target: BotProcess, ts: string): number {
  return target.logs.filter((l) => l.msg === 'message event handled' && l.ts === ts).length;
}

describe('restarts under load (Redis mode, SIGKILL)', () => {
  it('loses and duplicates nothing across repeated kills and redeliveries', {
    timeout: 240_000,
  }, async () => {
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    redis = await startRedisServer();
    const started: Started[] = [];
    const followUps: Array<{ message: Message; target: Started }> = [];
    const mentions: Array<{ message: Message; entry: Started }> = [];
    let delivered: Message[] = [];
    let deliveries = 0;
    let kills = 0;
    const processes: BotProcess[] = [];
    // Jobs that get follow-ups stay running until the end, so each job's expected count of terminal
    // replies is exactly one (a follow-up to a finished job would rightly earn a second).
    const steered = new Set<Started>();
    const runningTarget = () => {
      const candidates = started.filter((s) => s.job?.status === 'active');
      const target = candidates[Math.floor(random() * candidates.length)];
      if (target) steered.add(target);
      return target;
    };
    const completeSome = () => {
      for (const entry of started) {
        if (entry.job?.status === 'active' && !steered.has(entry) && random() < 0.25)
          docs.complete(entry.job.id);
      }
    };
    const newMessage = (text: string, channel: string, mention: boolean, threadTs?: string): Message => ({
      text,
      channel,
      ts: nextMessageTs(),
      mention,
      eventId: `EvDRILL${followUps.length + mentions.length}T${Date.now()}`,
      retries: 0,
      ...(threadTs ? { threadTs } : {}),
    });

    for (let cycle = 0; cycle <= CYCLES; cycle++) {
      bot = await startBotProcess({ name: `bot-${cycle}`, slack, docs, redisUrl: redis.url, env: ENV });
      processes.push(bot);
      // Slack redelivers to the successor every message the dead process saw, and the ones it never answered.
      for (const message of delivered) {
        deliveries += await deliver(bot, message, false);
        expect(upstreamCopies(message.text), `upstream copies of "${message.text}"`).toBe(1);
      }
      delivered = [];
      if (cycle === CYCLES) break;
      for (let i = 0; i < COMMAND_JOBS_PER_CYCLE; i++) {
        const channel = `C0CYCLE${cycle}${i}`;
        const prompt = `Restart drill: cycle ${cycle}, job ${i}`;
        const ack = await bot.command({ text: prompt, channel_id: channel });
        expect(ack.status).toBe(200);
        started.push({ prompt, channel });
      }
      // A job started by an @mention: the mention's thread is the job thread.
      const mention = newMessage(`Restart drill mention ${cycle}`, `C0MENTION${cycle}`, true);
      const mentionEntry: Started = { prompt: mention.text, channel: mention.channel, threadTs: mention.ts };
      started.push(mentionEntry);
      mentions.push({ message: mention, entry: mentionEntry });
      deliveries += await deliver(bot, mention, true);
      expect(upstreamCopies(mention.text), `jobs for "${mention.text}"`).toBe(1);
      delivered.push(mention);
      for (const entry of started.filter((s) => !s.job)) {
        entry.job = await waitFor(
          () => [...docs.jobs.values()].find((j) => j.prompts[0]?.includes(entry.prompt)),
          {
            what: `job for ${entry.prompt}`,
            timeoutMs: 15_000,
          },
        );
        entry.threadTs ??= (
          await waitFor(
            () =>
              slack.messages.find(
                (m) =>
                  m.channel === entry.channel &&
                  !m.thread_ts &&
                  JSON.stringify(m.blocks).includes(entry.job!.id),
              ),
            { what: `tracked card for ${entry.prompt}`, timeoutMs: 15_000 },
          )
        ).ts;
      }
      // A follow-up to an earlier job that is still running (every other one mentions the bot: two events).
      const target = cycle > 0 ? runningTarget() : undefined;
      if (target) {
        const message = newMessage(
          `Restart drill follow-up ${cycle}`,
          target.channel,
          cycle % 2 === 1,
          target.threadTs,
        );
        followUps.push({ message, target });
        deliveries += await deliver(bot, message, true);
        expect(upstreamCopies(message.text), `upstream copies of "${message.text}"`).toBe(1);
        delivered.push(message);
      }
      // Some jobs finish while this process runs, some while no process runs at all.
      completeSome();
      await sleep(200 + Math.floor(random() * 1000));
      await bot.kill();
      kills += 1;
      bot = undefined;
      completeSome();
      // A message Slack sent to the dead process (never answered): its successor gets the retries.
      const late = cycle > 0 ? runningTarget() : undefined;
      if (late) {
        const message = newMessage(
          `Restart drill late note ${cycle}`,
          late.channel,
          cycle % 2 === 0,
          late.threadTs,
        );
        followUps.push({ message, target: late });
        delivered.push(message);
      }
    }
    // The last process: everything finishes upstream; every job gets its terminal reply, once.
    for (const { message, target } of followUps) {
      await waitFor(() => target.job!.prompts.some((p) => p.includes(message.text)), {
        what: `follow-up "${message.text}"`,
        timeoutMs: 15_000,
      });
    }
    for (const entry of started) if (entry.job!.status === 'active') docs.complete(entry.job!.id);
    // A poll killed mid-flight is handed to the next process by BullMQ's stalled-job check (30 s lock).
    for (const entry of started) {
      await waitFor(() => terminalReplies(entry.job!).length > 0, {
        what: `terminal reply for ${entry.prompt}`,
        timeoutMs: 90_000,
      });
    }
    await sleep(2_000);
    const replies = started.map((entry) => terminalReplies(entry.job!).length);
    const followUpsUpstream = followUps.map(
      ({ message, target }) => target.job!.prompts.filter((p) => p.includes(message.text)).length,
    );
    const jobsPerMention = mentions.map(
      ({ message }) => [...docs.jobs.values()].filter((j) => j.prompts[0]?.includes(message.text)).length,
    );
    const figures = {
      kills,
      jobsStarted: started.length,
      jobsStartedByMention: mentions.length,
      jobsOnPlatform: docs.jobs.size,
      followUpsSent: followUps.length,
      followUpsFirstDeliveredAfterKill: followUps.filter((f) => f.message.text.includes('late note')).length,
      eventDeliveries: deliveries,
      messageIdentities: mentions.length + followUps.length,
      terminalRepliesPosted: replies.reduce((a, b) => a + b, 0),
      jobsLost: replies.filter((n) => n === 0).length + followUpsUpstream.filter((n) => n === 0).length,
      duplicates:
        replies.filter((n) => n > 1).length +
        followUpsUpstream.filter((n) => n > 1).length +
        jobsPerMention.filter((n) => n > 1).length +
        (docs.jobs.size - started.length),
    };
    // Secrets: the raw stdout/stderr of every process, killed ones included (not a scrubbed copy).
    const output = processes.map((p) => `${p.stdout()}\n${p.stderr()}`).join('\n');
    recordDrill('restarts', { seed: SEED, ...figures, rawOutputBytesScanned: output.length });
    for (const secret of SECRETS) expect(output).not.toContain(secret);
    // Each message identity was delivered at least 4 times (twice to a process that was then killed).
    expect(deliveries).toBeGreaterThanOrEqual(4 * figures.messageIdentities);
    expect(jobsPerMention).toEqual(mentions.map(() => 1));
    expect(followUpsUpstream).toEqual(followUps.map(() => 1));
    expect(replies).toEqual(started.map(() => 1));
    expect(docs.jobs.size).toBe(started.length);
    expect(figures.jobsLost).toBe(0);
    expect(figures.duplicates).toBe(0);
  });
});
