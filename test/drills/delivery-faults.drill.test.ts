import { afterEach, describe, expect, it } from 'vitest';
import type { FakeJob } from '../support/fake-docs.js';
import type { Fault, StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { outboxAtRest } from '../support/outbox-at-rest.js';
import { fakes, redisServer, startJob, stopProcesses, terminalReplies } from '../support/process-helpers.js';
import { cardText, replica, replyPost } from './delivery-drill-support.js';
import { recordDrill } from './drill-support.js';

/*
 * Issue 35 (beside delivery-races.drill.test.ts, in a file of its own so the two run side by side): two
 * real replicas on one redis-server, faults at the fake Slack. What people see is checked: at every moment
 * at most one copy of each reply, exactly one at the end, every card final.
 * SLACK_API_TIMEOUT_MS is 2 s (test env): a lease is 11 s, the settle time 4 s (deliveryTimingsFor).
 */

afterEach(stopProcesses);

describe('drill: delivery under mixed Slack faults, two replicas', () => {
  it('mixed Slack faults on chat.update and chat.postMessage (500, 503, hangs, late stores, 429s): 10 of 10 cards end final (issue 35)', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    const [a, b] = await Promise.all([
      replica('a', slack, docs, redis.url),
      replica('b', slack, docs, redis.url),
    ]);
    // Three cards' first "Working" update is applied 15 s late, after their final state went out.
    for (let i = 0; i < 3; i++) {
      const working = (args: Record<string, unknown>) =>
        args.channel === `C0MIX${i}` && JSON.stringify(args).includes('Working');
      slack.held.add('chat.update', working, { kind: 'late', ms: 15_500, storeAfterMs: 15_000 });
    }
    const started: Array<{ job: FakeJob; card: StoredMessage }> = [];
    for (let i = 0; i < 10; i++)
      started.push(await startJob(i % 2 ? b! : a, slack, docs, `C0MIX${i}`, `Document mixed faults ${i}`));
    await waitFor(() => slack.held.hit.length === 3, { what: 'the late updates on the wire' });
    // A seeded 35% of the writes fail: answered 500 or 503 (not stored), 429 with Retry-After, hung past the
    // 2 s timeout and never stored, or stored 2.5 s or 6 s late (after the timeout, and after the settle
    // time's look-up).
    const faults: Fault[] = [
      { kind: 'status', status: 500 },
      { kind: 'status', status: 503 },
      { kind: 'status', status: 429, retryAfter: 1 },
      { kind: 'delay', ms: 2_500, thenSucceed: false },
      { kind: 'delay', ms: 2_500, thenSucceed: true },
      { kind: 'delay', ms: 6_000, thenSucceed: true },
    ];
    slack.randomFaults({
      seed: 35,
      rate: 0.35,
      faults: { 'chat.update': faults, 'chat.postMessage': faults },
    });
    for (const { job } of started) docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
    // Faults until every card's final state and every reply went through them at least once, then Slack
    // recovers; once nothing is due in the outbox and every late write landed, the cards must show their
    // final state (nothing can change them any more).
    const triedUnderFaults = ({ card }: { card: StoredMessage }) =>
      slack
        .callsOf('chat.update')
        .some((c) => c.args.ts === card.ts && JSON.stringify(c.args).includes('Done: pull request opened')) &&
      slack.callsOf('chat.postMessage').some((c) => replyPost(card)(c.args));
    await waitFor(() => started.every(triedUnderFaults), {
      what: 'every final card and reply tried under faults',
      timeoutMs: 60_000,
    });
    slack.randomFaults(undefined);
    const atRest = await outboxAtRest(slack, redis.url);
    await waitFor(atRest, { what: 'every retry, look-up and re-check settled', timeoutMs: 90_000 });
    const states = started.map(({ card }) => [cardText(slack, card)]);
    const final = states.filter((seen) => seen.every((text) => text.includes('Done: pull request opened')));
    const replies = started.map(({ card }) => terminalReplies(slack, card).length);
    recordDrill('delivery-mixed-faults', {
      cards: started.length,
      cardsFinal: final.length,
      repliesPerThread: replies,
      lateUpdates: slack.held.hit.length,
      faults: slack.randomInjected.length,
      updates: slack.callsOf('chat.update').length,
      posts: slack.callsOf('chat.postMessage').length,
    });
    expect(slack.randomInjected.length, 'faults injected').toBeGreaterThan(0);
    expect(final.length, 'cards on their final state').toBe(10);
    expect(replies, 'one terminal reply per thread').toEqual(started.map(() => 1));
  }, 150_000);
});
