import { afterEach, describe, expect, it } from 'vitest';
import type { BotProcess } from '../support/bot-process.js';
import type { FakeSlack, StoredMessage } from '../support/fake-slack.js';
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
} from '../support/process-helpers.js';

/*
 * Issue 20, the delivery outbox under process faults: real bot processes on one redis-server, faults at
 * the fake Slack (a post held forever = it never reached Slack; a post stored at once but answered after
 * the client's timeout = it landed late) and at the processes (SIGKILL, SIGSTOP/SIGCONT). Each test asserts
 * what users see: exactly one terminal reply in the job's thread, and a final card.
 *
 * SLACK_API_TIMEOUT_MS is 2 s (test env), so a delivery lease is 2 + 4 + 5 = 11 s (a call's timeout plus the
 * settle time plus 5 s: deliveryTimingsFor) and an unanswered attempt is looked up 4 s after it timed out.
 */

afterEach(stopProcesses);

const ENV = { POLL_INTERVAL_MS: '100', POLL_MAX_INTERVAL_MS: '200', LOG_LEVEL: 'info' };
const LEASE_MS = 11_000;

/** The terminal reply's post into this card's thread (the one carrying the pull request link). */
const replyPost = (card: StoredMessage) => (args: Record<string, unknown>) =>
  args.thread_ts === card.ts && String(args.text ?? '').includes('/pull/');

const cardIsFinal = (slack: FakeSlack, card: StoredMessage) =>
  slack.message(card.channel, card.ts)?.text.includes('Done: pull request opened') === true;

async function replica(name: string, slack: FakeSlack, docs: Parameters<typeof bot>[0]['docs'], url: string) {
  return bot({ name, slack, docs, redisUrl: url, env: ENV });
}

/**
 * The most copies of a card's terminal reply visible at any moment: a duplicate deleted later by the sweep
 * was still seen by people in the thread, so "never two" is checked all along, not only at the end.
 */
function peakReplies(slack: FakeSlack, card: StoredMessage): { peak: number } {
  const seen = { peak: 0 };
  const timer = setInterval(() => {
    seen.peak = Math.max(seen.peak, terminalReplies(slack, card).length);
  }, 20);
  onCleanup(async () => clearInterval(timer));
  return seen;
}

/** Resumes a stopped process even when the test fails half-way (a stopped child would hang cleanup). */
function freezeUntilCleanup(p: BotProcess): void {
  process.kill(p.pid, 'SIGSTOP');
  onCleanup(async () => {
    try {
      process.kill(p.pid, 'SIGCONT');
    } catch {
      // already gone
    }
  });
}

describe('one delivery path under process faults (real processes, one Redis)', () => {
  it('kill -9 of the replica whose terminal reply is on the wire and never reached Slack: the other replica posts it exactly once', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    const a = await replica('a', slack, docs, redis.url);
    const { job, card } = await startJob(a, slack, docs, 'C0LOSTREPLY', 'Document the lost reply');
    await waitFor(() => docs.requestsTo('GET', /\/job\//).length > 0, { what: 'first poll' });

    // Only `a` runs, so `a` takes the reply's lease; its post is held by "Slack" and never stored.
    slack.held.add('chat.postMessage', replyPost(card), { kind: 'hold' });
    const copies = peakReplies(slack, card);
    docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
    await waitFor(() => slack.held.hit.length === 1, { what: 'the reply on the wire', timeoutMs: 10_000 });
    const heldAt = slack.held.hit[0]!.at;
    // `a` dies with the post on the wire (before its 2 s timeout could tell it anything); `b` starts while
    // the dead holder's lease is still live: it must read "later", never "done".
    await a.kill();
    await replica('b', slack, docs, redis.url);
    expect(terminalReplies(slack, card)).toHaveLength(0);

    await waitFor(() => terminalReplies(slack, card).length > 0, {
      what: 'the reply from the surviving replica',
      timeoutMs: LEASE_MS + 15_000,
    });
    const postedAfterMs = Date.now() - heldAt;
    // Another look-up and retry period of `b`: still exactly one.
    await sleep(3_000);
    const replies = terminalReplies(slack, card);
    expect(replies).toHaveLength(1);
    expect(replies[0]!.text).toContain(`/pull/${job.id}`);
    expect(copies.peak, 'copies ever visible at once').toBe(1);
    await waitFor(() => cardIsFinal(slack, card), { what: 'final card', timeoutMs: 10_000 });
    console.info(
      `[figure] kill -9 with the reply on the wire: posted ${postedAfterMs} ms after the lost attempt`,
    );
  }, 60_000);

  it('a replica frozen with SIGSTOP past its lease and the poll lock while its reply lands: after SIGCONT still one reply, never two', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    const a = await replica('a', slack, docs, redis.url);
    const first = await startJob(a, slack, docs, 'C0FROZEN1', 'Document the frozen replica');
    const second = await startJob(a, slack, docs, 'C0FROZEN2', 'Document the job polled meanwhile');
    await waitFor(() => docs.requestsTo('GET', /\/job\//).length > 1, { what: 'first polls' });

    // The reply reaches Slack (stored) but its answer only comes after `a` is frozen, long past its lease.
    slack.held.add('chat.postMessage', replyPost(first.card), { kind: 'late', ms: 60_000 });
    const copies = peakReplies(slack, first.card);
    docs.complete(first.job.id, `https://github.com/acme/docs/pull/${first.job.id}`);
    await waitFor(() => slack.held.hit.length === 1, { what: 'the reply on the wire', timeoutMs: 10_000 });
    freezeUntilCleanup(a);
    const frozenAt = Date.now();

    const b = await replica('b', slack, docs, redis.url);
    // Frozen past the lease (11 s) and BullMQ's poll lock (8 s): `b` takes over both jobs meanwhile.
    await sleep(Math.max(0, frozenAt + LEASE_MS + 3_000 - Date.now()));
    docs.complete(second.job.id, `https://github.com/acme/docs/pull/${second.job.id}`);
    await waitFor(() => terminalReplies(slack, second.card).length > 0, {
      what: 'the second job polled by b',
      timeoutMs: 15_000,
    });
    process.kill(a.pid, 'SIGCONT');

    // `a` wakes with its post unanswered and its timers overdue: it must find the reply done, not post it.
    await sleep(8_000);
    for (const { job, card } of [first, second]) {
      const replies = terminalReplies(slack, card);
      expect(replies, `replies in ${card.channel}`).toHaveLength(1);
      expect(replies[0]!.text).toContain(`/pull/${job.id}`);
      await waitFor(() => cardIsFinal(slack, card), {
        what: `final card ${card.channel}`,
        timeoutMs: 10_000,
      });
    }
    expect(copies.peak, 'copies of the first reply ever visible at once').toBe(1);
    // Both replicas are alive and serving.
    expect((await a.command({ text: 'status', channel_id: 'C0FROZEN1' })).status).toBe(200);
    expect((await b.command({ text: 'status', channel_id: 'C0FROZEN1' })).status).toBe(200);
  }, 80_000);

  it('every attempt of the reply times out but lands: exactly one copy stays in the thread', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    const [a] = await Promise.all([
      replica('a', slack, docs, redis.url),
      replica('b', slack, docs, redis.url),
    ]);
    const { job, card } = await startJob(a, slack, docs, 'C0LATE', 'Document the slow Slack');
    await waitFor(() => docs.requestsTo('GET', /\/job\//).length > 0, { what: 'first poll' });

    // Every post of this reply, whichever replica makes it, lands 3 s after the call (1 s after the client's
    // 2 s timeout) and is answered later still: a look-up right after the timeout would miss it.
    const late = { kind: 'late', ms: 3_500, storeAfterMs: 3_000 } as const;
    slack.held.add('chat.postMessage', replyPost(card), late, 1_000);
    const copies = peakReplies(slack, card);
    docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
    await waitFor(() => terminalReplies(slack, card).length > 0, { what: 'first copy', timeoutMs: 10_000 });
    // Long enough for two more rounds of timeout (2 s) + settle (4 s) by either replica.
    await sleep(14_000);
    const replies = terminalReplies(slack, card);
    expect(replies, 'copies left in the thread').toHaveLength(1);
    expect(replies[0]!.text).toContain(`/pull/${job.id}`);
    expect(copies.peak, 'copies ever visible at once').toBe(1);
    await waitFor(() => cardIsFinal(slack, card), { what: 'final card', timeoutMs: 10_000 });
    console.info(`[figure] every attempt late: ${slack.held.hit.length} post attempt(s), 1 copy kept`);
  }, 60_000);

  it('attempts that land after the look-up already missed them: the duplicate is swept, one copy stays', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    const a = await replica('a', slack, docs, redis.url);
    const { job, card } = await startJob(a, slack, docs, 'C0SWEEP', 'Document the very slow Slack');
    await waitFor(() => docs.requestsTo('GET', /\/job\//).length > 0, { what: 'first poll' });

    // Stored 7 s after the call: later than the look-up (2 s timeout + 4 s settle), so the next attempt
    // posts again and both copies land; the one found first is kept and the other must be deleted.
    slack.held.add('chat.postMessage', replyPost(card), { kind: 'late', ms: 8_000, storeAfterMs: 7_000 }, 2);
    docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
    await waitFor(() => terminalReplies(slack, card).length > 1, { what: 'two copies', timeoutMs: 25_000 });
    await waitFor(() => terminalReplies(slack, card).length === 1, { what: 'the sweep', timeoutMs: 20_000 });
    await sleep(3_000);
    const replies = terminalReplies(slack, card);
    expect(replies, 'copies left in the thread').toHaveLength(1);
    expect(replies[0]!.text).toContain(`/pull/${job.id}`);
    await waitFor(() => cardIsFinal(slack, card), { what: 'final card', timeoutMs: 10_000 });
  }, 70_000);
});
