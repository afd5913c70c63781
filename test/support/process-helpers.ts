import { expect } from 'vitest';
import { type BotProcess, startBotProcess } from './bot-process.js';
import { FakeDocs, type FakeJob } from './fake-docs.js';
import { FakeSlack, type StoredMessage } from './fake-slack.js';
import { waitFor } from './http.js';
import { type RedisServer, startRedisServer } from './redis-server.js';
import { eventEnvelope, messageEvent } from './slack-events.js';

/** Real bot processes on a real redis-server with the in-test fakes; everything started is stopped after. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const cleanups: Array<() => Promise<void>> = [];

/** Registers something to stop after the test. */
export function onCleanup(cleanup: () => Promise<void>): void {
  cleanups.push(cleanup);
}

/** Stops what the helpers below started, newest first (register with `afterEach(stopProcesses)`). */
export async function stopProcesses(): Promise<void> {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
}

export async function fakes(): Promise<{ slack: FakeSlack; docs: FakeDocs }> {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  cleanups.push(
    () => slack.close(),
    () => docs.close(),
  );
  return { slack, docs };
}

export async function redisServer(
  options: Parameters<typeof startRedisServer>[0] = {},
): Promise<RedisServer> {
  const redis = await startRedisServer(options);
  cleanups.push(() => redis.stop());
  return redis;
}

export async function bot(options: Parameters<typeof startBotProcess>[0]): Promise<BotProcess> {
  const process_ = await startBotProcess(options);
  cleanups.push(() => process_.kill());
  return process_;
}

/** The job whose first prompt is `prompt` (prompts are unique per test). */
export function jobWithPrompt(docs: FakeDocs, prompt: string): FakeJob | undefined {
  return [...docs.jobs.values()].find((job) => job.prompts[0] === prompt);
}

export function cardIn(slack: FakeSlack, channel: string): StoredMessage | undefined {
  return slack.messages.find((m) => m.channel === channel && !m.thread_ts);
}

/** The bot's replies in a job's thread that carry a pull request link (its terminal replies). */
export function terminalReplies(slack: FakeSlack, card: StoredMessage): StoredMessage[] {
  return slack.threadReplies(card.channel, card.ts).filter((m) => m.bot_id && m.text.includes('/pull/'));
}

/** A person's reply in a job's thread, as a signed Events API delivery (one event id, reusable). */
export function threadReply(card: StoredMessage, text: string, eventId?: string) {
  return eventEnvelope(messageEvent({ channel: card.channel, thread_ts: card.ts, text }), eventId);
}

export async function startJob(
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
