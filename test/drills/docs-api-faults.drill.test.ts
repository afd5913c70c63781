import { afterAll, describe, expect, it } from 'vitest';
import { type FakeJob, seededRandom } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { BOT_USER_ID, eventEnvelope, messageEvent } from '../support/slack-events.js';
import { startTestApp, type TestApp } from '../support/test-app.js';
import {
  cards,
  expectNoSecretsLeaked,
  messagesWithKey,
  recordDrill,
  sleep,
  watchUnhandledRejections,
} from './drill-support.js';

/**
 * Drill: 40 jobs started by signed /docs-agent commands and @mentions while a seeded 30% of docs API calls
 * fail (5xx, resets, timeouts, 429 with and without Retry-After, truncated and wrong-shaped JSON, an HTML
 * error page). Jobs finish upstream at random times. Once the faults stop, every tracked job must have
 * exactly one correct terminal reply, and every job that could not be created a card that says so.
 */
const SEED = 20_240_607;
const JOBS = 40;
const MENTIONS = 12;
const FAULT_RATE = 0.3;

let app: TestApp | undefined;
const rejections = watchUnhandledRejections();
afterAll(async () => {
  rejections.stop();
  await app?.stop();
});

type Outcome = 'pull_request' | 'no_changes' | 'failed' | 'archived';

function expectedText(outcome: Outcome): string {
  switch (outcome) {
    case 'pull_request':
      return 'opened pull request';
    case 'no_changes':
      return 'without changing any files';
    case 'failed':
      return 'stopped with an error';
    case 'archived':
      return 'archived on the docs platform';
  }
}

describe('drill: docs API faults', () => {
  it(`${JOBS} jobs under ${FAULT_RATE * 100}% random docs API faults: none lost, none duplicated`, async () => {
    app = await startTestApp({
      env: {
        DOCS_API_TIMEOUT_MS: '250',
        DOCS_API_MAX_CONCURRENCY: '8',
        // Polls of 40 jobs at test speed; the production pacing (DOCS_API_MAX_RPS) is not what this drill tests.
        DOCS_API_MAX_RPS: '500',
        AGENT_JOBS_PER_HOUR: '10000',
        LOG_LEVEL: 'debug',
      },
    });
    const t = app;
    t.docs.jobsPerHour = 10_000;
    const random = seededRandom(SEED);
    t.docs.randomFaults({ seed: SEED, rate: FAULT_RATE, match: { path: '/v2/agent/' }, timeoutMs: 600 });

    // Upstream: each job finishes 0.3–3 s after it appears, with a seeded outcome.
    const outcomes = new Map<string, Outcome>();
    let finishing = true;
    const finisher = (async () => {
      while (finishing) {
        for (const job of t.docs.jobs.values()) {
          if (outcomes.has(job.id)) continue;
          const roll = random();
          const outcome: Outcome =
            roll < 0.55 ? 'pull_request' : roll < 0.75 ? 'no_changes' : roll < 0.9 ? 'failed' : 'archived';
          outcomes.set(job.id, outcome);
          setTimeout(() => finish(job, outcome), 300 + Math.floor(random() * 2700));
        }
        await sleep(20);
      }
    })();
    const finish = (job: FakeJob, outcome: Outcome) => {
      if (outcome === 'pull_request') t.docs.complete(job.id);
      else if (outcome === 'no_changes') t.docs.complete(job.id, null);
      else if (outcome === 'failed') t.docs.fail(job.id);
      else t.docs.archive(job.id);
    };

    // 40 requests, a burst from the same user in the same channel: commands and @mentions interleaved.
    const prompts = Array.from(
      { length: JOBS },
      (_, i) => `Drill job ${String(i).padStart(2, '0')}: fix page ${i}`,
    );
    const acks = await Promise.all(
      prompts.map(async (prompt, i) => {
        await sleep(i * 15);
        if (i % Math.round(JOBS / MENTIONS) === 1) {
          return t.event(
            eventEnvelope(messageEvent({ type: 'app_mention', text: `<@${BOT_USER_ID}> ${prompt}` })),
          );
        }
        return t.command({ text: prompt });
      }),
    );
    for (const ack of acks) expect(ack.status).toBe(200);

    // Every request ends with a card that is either tracked (names its job) or says it did not start.
    const cardFor = (prompt: string) => cards(t).find((m) => JSON.stringify(m.blocks).includes(prompt));
    await waitFor(
      () =>
        prompts.every((prompt) => {
          const json = JSON.stringify(cardFor(prompt)?.blocks ?? '');
          return json.includes('Not started') || /job_\d{4}/.test(json);
        }),
      { timeoutMs: 20_000, what: 'every card settled' },
    );
    // Let every upstream job finish, keep the faults on a little longer, then stop them.
    await waitFor(() => [...t.docs.jobs.values()].every((j) => j.status !== 'active'), {
      timeoutMs: 10_000,
      what: 'all jobs finished upstream',
    });
    await sleep(500);
    t.docs.randomFaults(undefined);
    finishing = false;
    await finisher;
    const faultsInjected = t.docs.randomInjected.length;

    const upstream = [...t.docs.jobs.values()];
    const tracked = upstream.filter((job) => cards(t).some((c) => JSON.stringify(c.blocks).includes(job.id)));
    await waitFor(() => tracked.every((job) => messagesWithKey(t, `terminal:${job.id}:1`).length >= 1), {
      timeoutMs: 30_000,
      what: 'a terminal reply for every tracked job',
    });
    await sleep(600);

    // Count.
    let endedCorrectly = 0;
    let duplicates = 0;
    let lost = 0;
    let wrong = 0;
    for (const job of tracked) {
      const replies = messagesWithKey(t, `terminal:${job.id}:1`);
      if (replies.length === 0) lost += 1;
      if (replies.length > 1) duplicates += replies.length - 1;
      const outcome = outcomes.get(job.id)!;
      const text = replies.map((r) => JSON.stringify(r.blocks)).join('');
      if (replies.length === 1 && text.includes(expectedText(outcome))) endedCorrectly += 1;
      else if (replies.length === 1) wrong += 1;
      if (replies.length === 1) {
        // In the job's own thread, and the card shows the final state.
        const card = cards(t).find((c) => JSON.stringify(c.blocks).includes(job.id))!;
        expect(replies[0]!.thread_ts).toBe(card.thread_ts ?? card.ts);
      }
    }
    const notStarted = prompts
      .map((prompt) => ({ prompt, card: cardFor(prompt)! }))
      .filter(({ card }) => JSON.stringify(card.blocks).includes('Not started'));
    for (const { card } of notStarted) {
      const json = JSON.stringify(card.blocks);
      expect(json).not.toContain('Starting the agent');
      // A reason in words, not a bare error code.
      expect(json).toMatch(/could not|couldn't|may have|limit/i);
    }
    // Jobs that exist upstream but have no tracked card: only a create whose answer never came back (the
    // platform may have started it). Their card must say the job may have started.
    const orphans = upstream.filter((job) => !tracked.includes(job));
    for (const job of orphans) {
      const card = cardFor(job.prompts[0]!);
      expect(card, `card of orphan ${job.id}`).toBeDefined();
      expect(JSON.stringify(card!.blocks)).toContain('may have started');
    }
    const stuck = prompts.filter((p) =>
      JSON.stringify(cardFor(p)?.blocks ?? '').includes('Starting the agent'),
    );

    const byKind: Record<string, number> = {};
    for (const fault of t.docs.randomInjected) byKind[fault.kind] = (byKind[fault.kind] ?? 0) + 1;
    const scanned = expectNoSecretsLeaked(t);
    recordDrill('docs-api-faults', {
      seed: SEED,
      faultRate: FAULT_RATE,
      jobsRequested: JOBS,
      viaCommand: JOBS - acks.filter((_, i) => i % Math.round(JOBS / MENTIONS) === 1).length,
      viaMention: acks.filter((_, i) => i % Math.round(JOBS / MENTIONS) === 1).length,
      docsApiCalls: t.docs.requests.length,
      faultsInjected,
      faultsByKind: byKind,
      faultsOnCreate: t.docs.randomInjected.filter((f) => f.method === 'POST').length,
      faultsOnPoll: t.docs.randomInjected.filter((f) => f.method === 'GET').length,
      jobsCreatedUpstream: upstream.length,
      jobsTracked: tracked.length,
      jobsEndedCorrectly: endedCorrectly,
      wrongReplies: wrong,
      createFailedShownOnCard: notStarted.length,
      createOutcomeUnknownShownOnCard: orphans.length,
      cardsStuckStarting: stuck.length,
      lost,
      duplicates,
      unhandledRejections: rejections.seen.length,
      secretScanTexts: scanned,
    });

    expect(faultsInjected).toBeGreaterThan(20);
    expect(stuck).toEqual([]);
    expect(lost).toBe(0);
    expect(duplicates).toBe(0);
    expect(wrong).toBe(0);
    expect(endedCorrectly).toBe(tracked.length);
    expect(tracked.length + notStarted.length).toBe(JOBS);
    expect(rejections.seen).toEqual([]);
  }, 150_000);
});
