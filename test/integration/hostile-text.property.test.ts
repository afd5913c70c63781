import { monitorEventLoopDelay } from 'node:perf_hooks';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anyHostileText, liveMarkup, pathologicalText } from '../support/hostile-text.js';
import { waitFor } from '../support/http.js';
import { eventEnvelope, messageEvent, nextMessageTs } from '../support/slack-events.js';
import { messageActionPayload, reactionAddedEnvelope } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/**
 * Hostile strings through every way text enters the bot, on the real app: no listener throws, Slack (the
 * fake, which validates Block Kit) accepts every answer, and nothing the bot posts carries a live mention
 * or link it did not mean. The event loop is watched over the whole run (its worst delay, less the worst
 * delay of an idle second just before: on a loaded CI machine the scheduler alone stalls timers ~30 ms).
 */
let t: TestApp;
let jobThread: string;
const NUM_RUNS = 20;

beforeAll(async () => {
  t = await startTestApp({ env: { AGENT_JOBS_PER_HOUR: '1000000', LOG_LEVEL: 'info' } });
  t.slack.users.set('U0ALICE', { name: 'alice' });
  await t.command({ text: 'Document the export API', user_id: 'U0ALICE' });
  const card = await waitFor(() => t.slack.messages.find((m) => m.bot_id && !m.thread_ts), { what: 'card' });
  jobThread = card.ts;
});
afterAll(async () => {
  await t.stop();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The mrkdwn the bot sent (message text, mrkdwn objects), from Web API calls and response_url answers. */
function mrkdwnSent(from: { calls: number; responses: number }): string[] {
  const texts: string[] = [];
  const walk = (value: unknown, top: boolean): void => {
    if (Array.isArray(value)) {
      for (const v of value) walk(v, false);
      return;
    }
    if (typeof value !== 'object' || value === null) return;
    const node = value as Record<string, unknown>;
    if (typeof node.text === 'string' && (top || node.type === 'mrkdwn')) texts.push(node.text);
    for (const [key, child] of Object.entries(node))
      if (key !== 'text' || typeof child !== 'string') walk(child, false);
  };
  for (const call of t.slack.calls.slice(from.calls)) {
    const args = { ...call.args };
    if (typeof args.view === 'string') args.view = JSON.parse(args.view);
    if (typeof args.blocks === 'string') args.blocks = JSON.parse(args.blocks);
    walk(args, true);
  }
  for (const response of t.slack.responses.slice(from.responses)) walk(response.body, true);
  return texts;
}

/** What the bot means to make live: its requester mentions, the docs channel, thread and PR links. */
const MEANT =
  /^(?:<@U0(?:ALICE|BOB|DOCSBOT)>|<#C0DOCS>|<?https:\/\/(?:slack\.com\/archives|github\.com\/acme)\/\S*)$/;

async function expectCleanRun(send: (text: string) => Promise<unknown>) {
  // Warm-up outside the measurement: the first pass through each path compiles it (JIT), which is not
  // the input blocking the loop.
  for (const text of fc.sample(pathologicalText(), { numRuns: 4, seed: 1 })) await send(text);
  await sleep(300);
  // The machine's own scheduling noise (2 cores shared by many test runs): an idle second's worst delay.
  const idle = monitorEventLoopDelay({ resolution: 10 });
  idle.enable();
  await sleep(1000);
  idle.disable();
  const delay = monitorEventLoopDelay({ resolution: 10 });
  const from = { calls: t.slack.calls.length, responses: t.slack.responses.length };
  const logsFrom = t.logs.length;
  delay.enable();
  await fc.assert(
    fc.asyncProperty(anyHostileText(), async (text) => {
      await send(text);
      await sleep(40);
    }),
    { numRuns: NUM_RUNS },
  );
  await sleep(800);
  delay.disable();
  const problems = t.logs
    .slice(logsFrom)
    .filter((line) => /unhandled error|could not handle a message event|"level":(?:50|60)/.test(line));
  expect(problems).toEqual([]);
  expect(t.slack.blockKit.refusals).toEqual([]);
  expect(t.slack.surfaces.refusals).toEqual([]);
  const unmeant = mrkdwnSent(from).flatMap((text) =>
    liveMarkup(text)
      .filter((live) => !MEANT.test(live))
      .map((live) => `${live} in: ${text.slice(0, 300)}`),
  );
  expect(unmeant).toEqual([]);
  // Blocked by the run itself: the worst delay beyond what the idle machine showed. A backtracking
  // pattern on 40,000 hostile characters holds the loop for seconds; the 50 ms goal is the benchmark's.
  const blockedMs = (delay.max - idle.max) / 1e6;
  console.info(`[figure] event loop held by hostile text: ${blockedMs.toFixed(1)} ms beyond idle`);
  expect(blockedMs, `max ${delay.max / 1e6} ms, idle ${idle.max / 1e6} ms`).toBeLessThan(1_000);
}

/**
 * No retry: a regression failing one try in three must fail the run. The event-loop bound (1 s beyond idle,
 * 20 times the 50 ms goal) leaves room for a stall of the machine; a backtracking pattern holds it for seconds.
 */
const TIMING = { timeout: 60_000 };

describe('hostile text on every way in (fast-check, real app)', () => {
  it('/docs-agent', TIMING, async () => {
    await expectCleanRun((text) => t.command({ text, user_id: 'U0ALICE' }));
  });

  it('@mentions', TIMING, async () => {
    await expectCleanRun((text) =>
      t.event(eventEnvelope(messageEvent({ type: 'app_mention', text: `<@U0DOCSBOT> ${text}` }))),
    );
  });

  it('DMs', TIMING, async () => {
    await expectCleanRun((text) =>
      t.event(eventEnvelope(messageEvent({ channel: 'D0ALICE', channel_type: 'im', text }))),
    );
  });

  it('follow-ups in a job thread', TIMING, async () => {
    await expectCleanRun((text) =>
      t.event(eventEnvelope(messageEvent({ user: 'U0BOB', thread_ts: jobThread, text }))),
    );
  });

  it('reactions', TIMING, async () => {
    await expectCleanRun(async (text) => {
      const ts = nextMessageTs();
      t.slack.messages.push({ channel: 'C0DOCS', ts, text, user: 'U0BOB' });
      await t.event(reactionAddedEnvelope({ ts, userId: 'U0ALICE' }));
    });
  });

  it('the message shortcut', TIMING, async () => {
    await expectCleanRun((text) =>
      t.interaction(
        messageActionPayload({
          triggerId: t.slack.surfaces.mintTriggerId('U0ALICE'),
          responseUrl: t.slack.responseUrl(),
          message: { text, ts: nextMessageTs() },
        }),
      ),
    );
  });
});
