import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { Deliveries } from '../../src/delivery/deliveries.js';
import { SlackDeliverySender } from '../../src/slack/delivery-sender.js';
import { SlackGateway } from '../../src/slack/slack-gateway.js';
import { MemoryDeliveryStore } from '../../src/state/memory/memory-delivery-store.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';

const logger = createLogger({ level: 'silent', secrets: [] });
let slack: FakeSlack | undefined;
let close: (() => Promise<void>) | undefined;
afterEach(async () => {
  await close?.();
  await slack?.close();
});

async function outboxOnFakeSlack() {
  slack = await FakeSlack.start();
  const client = new webApi.WebClient('xoxb-test', {
    slackApiUrl: slack.apiUrl,
    timeout: 200,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const gateway = new SlackGateway(client, { logger, retryBaseMs: 10 });
  const store = new MemoryDeliveryStore();
  const deliveries = new Deliveries({
    store,
    sender: new SlackDeliverySender(gateway, 200),
    logger,
    leaseMs: 2_000,
    settleMs: 300,
    sweepForMs: 3_000,
    retryBaseMs: 10,
    retryMaxMs: 50,
  });
  const reconcile = setInterval(() => void deliveries.reconcile(), 100);
  close = async () => {
    clearInterval(reconcile);
    await gateway.close();
  };
  return { slack, deliveries, store };
}

const reply = {
  key: 'card:C0SWEEP:1',
  target: { kind: 'post', channel: 'C0SWEEP', threadTs: null },
  payload: { text: 'Starting the agent…', blocks: [] },
  priority: 'reply',
} as const;

/**
 * Issue 11, then issue 26: a post times out but lands. A failed look-up is retried, never read as "not
 * there". A copy that lands after the look-up (and after a first pass of the sweep) makes the retry post a
 * second one whose ts is recorded (it becomes the job's card and thread): the durable sweep keeps that copy
 * and deletes the stray one, not "the earliest".
 */
describe('duplicate sweep after a timed-out post (the outbox)', () => {
  it('a failed look-up is never read as "not there": it looks again and keeps the one copy', async () => {
    const { slack, deliveries, store } = await outboxOnFakeSlack();
    // The first post lands after the client gave up on it; the first look-up fails (four 503s).
    slack.inject('chat.postMessage', { kind: 'delay', ms: 350, thenSucceed: true });
    slack.inject('conversations.history', { kind: 'status', status: 503 }, 4);

    const result = await deliveries.deliver(reply, { waitMs: 10_000 });
    expect(result.status).toBe('posted');
    const copies = slack.messages.filter((m) => m.channel === 'C0SWEEP');
    expect(copies).toHaveLength(1);
    expect(result).toEqual({ status: 'posted', ts: copies[0]!.ts });
    expect(slack.callsOf('chat.postMessage')).toHaveLength(1);
    expect(await store.get(reply.key)).toMatchObject({ state: 'posted', postedTs: copies[0]!.ts });
  });

  it('keeps the copy whose ts was recorded and deletes the stray one, even when the stray is older', async () => {
    const { slack, deliveries, store } = await outboxOnFakeSlack();
    // The first post is stored only 1.2 s after the call: after the look-up, the repost and a first pass.
    slack.held.add('chat.postMessage', () => true, { kind: 'late', ms: 1_300, storeAfterMs: 1_200 });
    const result = await deliveries.deliver(reply, { waitMs: 10_000 });
    expect(result.status).toBe('posted');
    const ts = (result as { ts: string }).ts;
    await waitFor(() => slack.messages.filter((m) => m.channel === 'C0SWEEP').length === 2 || undefined, {
      timeoutMs: 5_000,
      what: 'the late copy',
    });
    await waitFor(() => slack.messages.filter((m) => m.channel === 'C0SWEEP').length === 1 || undefined, {
      timeoutMs: 5_000,
      what: 'one copy left',
    });
    expect(slack.message('C0SWEEP', ts)).toBeDefined();
    expect(slack.callsOf('chat.delete')).toHaveLength(1);
    expect(await store.get(reply.key)).toMatchObject({ state: 'posted', postedTs: ts });
  });
});
