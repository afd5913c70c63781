import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/common/logger.js';
import { Deliveries } from '../../../src/delivery/deliveries.js';
import type { Delivery, NewDelivery } from '../../../src/delivery/domain.js';
import type { DeliverySender } from '../../../src/delivery/ports.js';
import { failureOf } from '../../../src/slack/delivery-sender.js';
import { MemoryDeliveryStore } from '../../../src/state/memory/memory-delivery-store.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const reply = (key: string, channel = 'C1'): NewDelivery => ({
  key,
  target: { kind: 'post', channel, threadTs: '1.1' },
  payload: { text: `reply ${key}` },
  priority: 'reply',
});

/** A sender whose calls in `slow` channels wait until released (a channel held back by a 429). */
function pacedSlack() {
  const calls: Array<{ key: string; holder: string }> = [];
  const gates = new Map<string, () => void>();
  const slow = new Set<string>();
  const sender = (holder: string): DeliverySender => ({
    async send(key, _priority, target, lease) {
      const channel = 'channel' in target ? target.channel : '';
      if (slow.has(channel)) await new Promise<void>((resolve) => gates.set(key, resolve));
      const delivery = await lease();
      if (!delivery) return { sent: false as const };
      calls.push({ key, holder });
      return { sent: true as const, delivery, ts: `${calls.length}.0` };
    },
    lookup: async () => undefined,
    removeDuplicates: async () => 0,
  });
  return { calls, gates, slow, sender };
}

function replicaOf(store: MemoryDeliveryStore, sender: DeliverySender, holder: string) {
  return new Deliveries({ store, sender, logger, holder, leaseMs: 60_000, settleMs: 0, retryBaseMs: 1 });
}

describe('Deliveries under races (issue 26)', () => {
  it("item 5: another replica's reconciler never queues its own attempt behind the owner's live one", async () => {
    const store = new MemoryDeliveryStore();
    const slack = pacedSlack();
    slack.slow.add('C1');
    const a = replicaOf(store, slack.sender('A'), 'A');
    const b = replicaOf(store, slack.sender('B'), 'B');
    await a.owe(reply('k1'));
    await sleep(10);
    // A holds the lease while its call waits for the channel: for B it is neither due nor attempted.
    expect(await store.due(Date.now(), 10)).toEqual([]);
    expect(await b.reconcile()).toBe(0);
    slack.gates.get('k1')?.();
    await a.idle();
    expect(slack.calls).toEqual([{ key: 'k1', holder: 'A' }]);
  });

  it('item 5: one slow channel blocks no batch; reconcile starts independent attempts, bounded', async () => {
    const store = new MemoryDeliveryStore();
    const slack = pacedSlack();
    slack.slow.add('CSLOW');
    const b = new Deliveries({
      store,
      sender: slack.sender('B'),
      logger,
      holder: 'B',
      concurrency: 2,
      settleMs: 0,
    });
    await store.record(reply('slow', 'CSLOW'), Date.now());
    await store.record(reply('fast1'), Date.now());
    expect(await b.reconcile()).toBe(2);
    // Returned while the slow channel's post still waits: the pass started it and did not wait for it.
    expect(slack.calls.map((c) => c.key)).not.toContain('slow');
    await sleep(20);
    expect(slack.calls.map((c) => c.key)).toEqual(['fast1']);
    // A reply due later is taken on the next run while the slow one still waits.
    await store.record(reply('fast2'), Date.now());
    expect(await b.reconcile()).toBe(1);
    await sleep(20);
    expect(slack.calls.map((c) => c.key)).toEqual(['fast1', 'fast2']);
    // Bounded: with the slow one running and two more due, only one more starts.
    await store.record(reply('fast3', 'CSLOW'), Date.now());
    await store.record(reply('fast4', 'CSLOW'), Date.now());
    expect(await b.reconcile()).toBe(1);
    for (const release of slack.gates.values()) release();
    await b.idle();
  });

  it('item 5: a full pacing queue is "not sent" (retried without a look-up), not an unknown outcome', () => {
    expect(failureOf({ type: 'platform', code: 'slack_queue_full' })).toEqual({
      kind: 'not_sent',
      code: 'slack_queue_full',
    });
  });

  it('item 5: a failed look-up counts an attempt (the backoff grows, the give-up clock runs)', async () => {
    const store = new MemoryDeliveryStore();
    let lookups = 0;
    const sender: DeliverySender = {
      send: async () => {
        throw new Error('must look first');
      },
      lookup: async () => {
        lookups += 1;
        throw new Error('conversations.history 503');
      },
      removeDuplicates: async () => 0,
    };
    const a = new Deliveries({
      store,
      sender,
      logger,
      holder: 'A',
      settleMs: 0,
      retryBaseMs: 1,
      retryMaxMs: 1,
    });
    await store.record(reply('k'), Date.now());
    await store.acquire('k', 'A', 60_000, Date.now());
    await store.settle('k', 'A', 1, { kind: 'retry', notBefore: Date.now(), uncertain: true }, Date.now());
    for (let i = 0; i < 3; i++) {
      await sleep(5);
      await a.attempt('k');
    }
    expect(lookups).toBeGreaterThanOrEqual(3);
    expect((await store.get('k'))?.attempts).toBeGreaterThanOrEqual(4);
  });

  it('item 3: a stale holder cannot settle over the live one: its "abandoned" leaves the newer revision owed', async () => {
    const store = new MemoryDeliveryStore();
    const card = (seq: number): NewDelivery => ({
      key: 'card:C1:1.1',
      target: { kind: 'update', channel: 'C1', ts: '1.1' },
      payload: { text: `state ${seq}` },
      priority: 'final',
      seq,
    });
    await store.record(card(1), Date.now());
    const stale = await store.acquire('card:C1:1.1', 'A', 20, Date.now());
    await sleep(40);
    await store.record(card(2), Date.now());
    const live = await store.acquire('card:C1:1.1', 'B', 60_000, Date.now());
    expect(stale.ok && live.ok).toBe(true);
    const abandon = { kind: 'abandoned', reason: 'message_not_found' } as const;
    expect(await store.settle('card:C1:1.1', 'A', 1, abandon, Date.now())).toBe(false);
    expect(await store.get('card:C1:1.1')).toMatchObject({ state: 'in_flight', holder: 'B', revision: 1 });
    const sent: Delivery | undefined = live.ok ? live.delivery : undefined;
    expect(sent?.payload).toEqual({ text: 'state 2' });
  });
});
