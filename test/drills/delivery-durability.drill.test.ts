import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import {
  fakes,
  onCleanup,
  redisServer,
  sleep,
  startJob,
  stopProcesses,
  terminalReplies,
} from '../support/process-helpers.js';
import { cardIsFinal, peakReplies, replica, replyPost } from './delivery-drill-support.js';
import { recordDrill } from './drill-support.js';

/*
 * Issue 26, items 2 and 4: real replicas on one redis-server, faults at the fake Slack. What people see is
 * checked: the copies of the reply visible at any moment, exactly one at the end, the card final.
 */

afterEach(stopProcesses);

describe('drill: delivery across process ends', () => {
  it('item 2: SIGTERM while the reply is on the wire and lands late: the other replica finds it, never posts a second', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    // A 10 s Slack timeout: the shutdown (about 3 s) hands the lease back while the post is still on the
    // wire, not after it timed out. Lease 25 s, settle time 20 s.
    const env = { SLACK_API_TIMEOUT_MS: '10000' };
    const a = await replica('a', slack, docs, redis.url, env);
    const { job, card } = await startJob(a, slack, docs, 'C0TERMLATE', 'Document the late reply at SIGTERM');
    await waitFor(() => docs.requestsTo('GET', /\/job\//).length > 0, { what: 'first poll' });
    // Only `a` runs, so `a` posts the reply; "Slack" stores it 9 s after the call and never answers.
    slack.held.add('chat.postMessage', replyPost(card), { kind: 'late', ms: 120_000, storeAfterMs: 9_000 });
    const copies = peakReplies(slack, [card]);
    docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
    await waitFor(() => slack.held.hit.length === 1, { what: 'the reply on the wire', timeoutMs: 10_000 });
    const sentAt = slack.held.hit[0]!.at;
    // `a` is stopped first and `b` started after: a replica's start can outlive the 10 s time-out on a loaded
    // machine (CI once), and the scenario needs `a` to hand the post back while it is still on the wire.
    const stopBegan = Date.now();
    expect(slack.held.hit[0]!.closedAt).toBeUndefined();
    await a.stop(15_000);
    const handBack = a.logs.find((l) => String(l.msg).includes('deliveries handed back'));
    const handedBack = handBack !== undefined;
    // The post was still on the wire when `a` handed it back: its connection closed after that (with the
    // process), not at a's 10 s time-out before it.
    expect(slack.held.hit[0]!.closedAt, 'a stopped before its post could time out').toBeGreaterThanOrEqual(
      Math.max(stopBegan, Number(handBack?.time ?? stopBegan)),
    );
    const b = await replica('b', slack, docs, redis.url, env);
    await waitFor(() => terminalReplies(slack, card).length > 0, {
      what: 'the late copy',
      timeoutMs: 15_000,
    });
    // Past the settle time after the hand-back, b's look-up, and a sweep pass.
    await sleep(Math.max(0, sentAt + 34_000 - Date.now()));
    const replies = terminalReplies(slack, card);
    recordDrill('delivery-sigterm-late', {
      handedBack,
      peakCopiesVisible: copies.peak,
      msWithTwoCopies: copies.twoForMs,
      copiesAtEnd: replies.length,
      replyPosts: slack.callsOf('chat.postMessage').filter((c) => replyPost(card)(c.args)).length,
    });
    expect(handedBack, 'the lease was handed back at SIGTERM').toBe(true);
    expect(replies, 'copies left in the thread').toHaveLength(1);
    expect(copies.peak, 'copies ever visible at once').toBe(1);
    await waitFor(() => cardIsFinal(slack, card), { what: 'final card', timeoutMs: 10_000 });
    expect((await b.command({ text: 'status', channel_id: 'C0TERMLATE' })).status).toBe(200);
  }, 80_000);

  it("item 4: a copy that lands after the sweep's first pass, with its poster killed: the next replica sweeps it", async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    const a = await replica('a', slack, docs, redis.url);
    const { job, card } = await startJob(a, slack, docs, 'C0SWEEPLATE', 'Document the very late copy');
    await waitFor(() => docs.requestsTo('GET', /\/job\//).length > 0, { what: 'first poll' });
    // The first post is stored 15 s after the call (answered later): its timeout (2 s), the settle time
    // (4 s) and the look-up all pass first, so `a` posts the copy it records, and a sweep pass at +4 s finds
    // nothing to delete. `a` is then killed; the stray lands after that.
    slack.held.add('chat.postMessage', replyPost(card), { kind: 'late', ms: 16_000, storeAfterMs: 15_000 });
    docs.complete(job.id, `https://github.com/acme/docs/pull/${job.id}`);
    await waitFor(() => slack.held.hit.length === 1, { what: 'the reply on the wire', timeoutMs: 10_000 });
    const sentAt = slack.held.hit[0]!.at;
    const recorded = await waitFor(() => terminalReplies(slack, card)[0], {
      what: 'the recorded copy',
      timeoutMs: 15_000,
    });
    await sleep(Math.max(0, sentAt + 11_000 - Date.now()));
    // Watched from before the kill: on a loaded machine `b` may start after the stray landed and sweep it
    // within a second, before a check made once it is up could see two copies.
    let strayAt = 0;
    let callsAtStray = 0;
    const watch = setInterval(() => {
      if (strayAt || terminalReplies(slack, card).length !== 2) return;
      strayAt = Date.now();
      callsAtStray = slack.calls.length;
    }, 20);
    onCleanup(async () => clearInterval(watch));
    await a.kill();
    await replica('b', slack, docs, redis.url);
    await waitFor(() => strayAt > 0, { what: 'the stray copy', timeoutMs: 15_000 });
    await waitFor(() => terminalReplies(slack, card).length === 1, {
      what: 'the sweep by the next replica',
      timeoutMs: 20_000,
    });
    const sweptAfterMs = Date.now() - strayAt;
    // Within one sweep pass of landing: the first read of the thread after it landed deleted it.
    const after = slack.calls.slice(callsAtStray);
    const deleted = after.findIndex((c) => c.method === 'chat.delete');
    const readsBefore = after
      .slice(0, deleted)
      .filter((c) => c.method === 'conversations.replies' && c.args.ts === card.ts).length;
    await sleep(3_000);
    const replies = terminalReplies(slack, card);
    recordDrill('delivery-durable-sweep', { sweptAfterMs, readsBefore, copiesAtEnd: replies.length });
    expect(deleted, 'the stray was deleted').toBeGreaterThanOrEqual(0);
    expect(readsBefore, 'sweep passes that missed the landed stray').toBeLessThanOrEqual(1);
    expect(
      replies.map((m) => m.ts),
      'the recorded copy is the one kept',
    ).toEqual([recorded.ts]);
    await waitFor(() => cardIsFinal(slack, card), { what: 'final card', timeoutMs: 10_000 });
  }, 85_000);
});
