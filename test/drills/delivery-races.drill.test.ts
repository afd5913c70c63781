import { afterEach, describe, expect, it } from 'vitest';
import type { FakeJob } from '../support/fake-docs.js';
import type { StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { outboxAtRest } from '../support/outbox-at-rest.js';
import {
  fakes,
  jobWithPrompt,
  redisServer,
  startJob,
  stopProcesses,
  terminalReplies,
} from '../support/process-helpers.js';
import { cardIsFinal, cardText, peakReplies, replica, replyPost } from './delivery-drill-support.js';
import { recordDrill } from './drill-support.js';

/*
 * Issue 26, items 1 and 3: two real replicas on one redis-server, faults at the fake Slack. What people see
 * is checked: at every moment at most one copy of each reply, exactly one at the end, every card final.
 * SLACK_API_TIMEOUT_MS is 2 s (test env): a lease is 11 s, the settle time 4 s (deliveryTimingsFor).
 */

afterEach(stopProcesses);

describe('drill: delivery races between replicas', () => {
  it('item 1: a 503 on replies whose posts had landed, two replicas reconciling: one copy each, none lost', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    // Slack's real pace (posts 1 s per channel with bursts of 2, every other method at its tier, shared by
    // the replicas) and all eight threads in one channel: replies and look-ups queue for their turn, as in
    // a busy workspace, while the other replica's reconciler runs.
    const env = { SLACK_CHANNEL_POST_INTERVAL_MS: '1000', SLACK_TIER_RATE_PERCENT: '100' };
    const [a] = await Promise.all([
      replica('a', slack, docs, redis.url, env),
      replica('b', slack, docs, redis.url, env),
    ]);
    const started: Array<{ job: FakeJob; card: StoredMessage }> = [];
    for (let i = 0; i < 8; i++) {
      const prompt = `Document the 503 case ${i}`;
      expect((await a.command({ text: prompt, channel_id: 'C0R503' })).status).toBe(200);
      const job = await waitFor(() => jobWithPrompt(docs, prompt), { what: `job ${i}` });
      const card = await waitFor(
        () => slack.messages.find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(prompt)),
        { what: `card ${i}` },
      );
      started.push({ job, card });
    }
    await waitFor(() => docs.requestsTo('GET', /\/job\//).length >= 8, { what: 'first polls' });
    // Each reply's first post is stored by "Slack", which then answers 503: landed, but the caller is told
    // it failed. The retry must find it (whichever replica makes it), never post blind nor sweep it.
    for (const { card } of started)
      slack.held.add('chat.postMessage', replyPost(card), { kind: 'late', ms: 50, status: 503 });
    const copies = peakReplies(
      slack,
      started.map((s) => s.card),
    );
    for (const { job } of started) docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
    await waitFor(() => slack.held.hit.length === 8, { what: 'every reply on the wire', timeoutMs: 20_000 });
    await waitFor(() => started.every(({ card }) => terminalReplies(slack, card).length > 0), {
      what: 'a reply in every thread',
      timeoutMs: 20_000,
    });
    // Past the look-ups, retries and sweep passes of both replicas: until nothing is due in the outbox.
    const atRest = await outboxAtRest(slack, redis.url);
    await waitFor(atRest, { what: 'every look-up, retry and sweep settled', timeoutMs: 40_000 });
    const counts = started.map(({ card }) => terminalReplies(slack, card).length);
    recordDrill('delivery-races-503', {
      replies: started.length,
      copiesAtEnd: counts,
      lost: counts.filter((n) => n === 0).length,
      peakCopiesVisible: copies.peak,
      posts: slack.callsOf('chat.postMessage').filter((c) => String(c.args.text ?? '').includes('/pull/'))
        .length,
      deletes: slack.callsOf('chat.delete').length,
    });
    expect(counts, 'replies left per thread').toEqual(started.map(() => 1));
    expect(copies.peak, 'copies ever visible at once').toBe(1);
    for (const { card } of started)
      await waitFor(() => cardIsFinal(slack, card), {
        what: `final card ${card.channel}`,
        timeoutMs: 10_000,
      });
  }, 85_000);

  it('item 3: an intermediate card update Slack applies after the final one: the card still ends final', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    const [a] = await Promise.all([
      replica('a', slack, docs, redis.url),
      replica('b', slack, docs, redis.url),
    ]);
    // The card's first "Working" update reaches Slack but is applied 8 s later (answered later still):
    // its retry waits the settle time (2 s timeout + 4 s), the final state goes out meanwhile, and then the
    // stale "Working" lands over it.
    const working = (args: Record<string, unknown>) =>
      args.channel === 'C0LATECARD' && JSON.stringify(args).includes('Working');
    slack.held.add('chat.update', working, { kind: 'late', ms: 8_500, storeAfterMs: 8_000 });
    const { job, card } = await startJob(a, slack, docs, 'C0LATECARD', 'Document the late card update');
    await waitFor(() => slack.held.hit.length === 1, {
      what: 'the late update on the wire',
      timeoutMs: 15_000,
    });
    const heldAt = slack.held.hit[0]!.at;
    docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
    await waitFor(() => cardIsFinal(slack, card), { what: 'the final card', timeoutMs: 20_000 });
    // Seen all along, and at the end: the stale update lands 8 s after it was sent, the final state is sent
    // again after the settle time; once that is over (nothing due, the late write landed) nothing can change.
    const states: string[] = [];
    const timer = setInterval(() => states.push(cardText(slack, card)), 50);
    const atRest = await outboxAtRest(slack, redis.url);
    await waitFor(atRest, { what: 'the late update landed and the card re-sent', timeoutMs: 30_000 });
    clearInterval(timer);
    states.push(cardText(slack, card));
    recordDrill('delivery-races-late-update', {
      staleSeen: states.some((text) => !text.includes('Done: pull request opened')),
      finalAfterMs: Date.now() - heldAt,
      cardAtEnd: cardText(slack, card).slice(0, 80),
      updates: slack.callsOf('chat.update').filter((c) => c.args.channel === 'C0LATECARD').length,
    });
    expect(states.at(-1), 'the card once nothing more can change it').toContain('Done: pull request opened');
    expect(terminalReplies(slack, card)).toHaveLength(1);
  }, 60_000);
});
