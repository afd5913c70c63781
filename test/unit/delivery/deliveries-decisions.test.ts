import { webApi } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/common/logger.js';
import { Deliveries } from '../../../src/delivery/deliveries.js';
import type { Delivery, NewDelivery } from '../../../src/delivery/domain.js';
import { DeliveryAttemptError, type DeliverySender } from '../../../src/delivery/ports.js';
import { SlackDeliverySender } from '../../../src/slack/delivery-sender.js';
import { tellRefused } from '../../../src/slack/refused-notice.js';
import { SlackGateway, type WebClient } from '../../../src/slack/slack-gateway.js';
import { MemoryDeliveryStore } from '../../../src/state/memory/memory-delivery-store.js';
import { recordingOutbox } from '../../support/recording-outbox.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A logger whose lines the test reads (level and message). */
function collectingLogger() {
  const lines: Array<{ level: number; msg: string; code?: string }> = [];
  const logger = createLogger({
    level: 'debug',
    secrets: [],
    destination: { write: (line: string) => lines.push(JSON.parse(line)) },
  });
  return { logger, lines };
}
const silent = createLogger({ level: 'silent', secrets: [] });

const reply = (key: string): NewDelivery => ({
  key,
  target: { kind: 'post', channel: 'C1', threadTs: '1.1' },
  payload: { text: `reply ${key}` },
  priority: 'reply',
});

/** A Web API error as the WebClient throws it for `{ ok: false, error: code }`. */
function platformError(code: string): Error {
  return Object.assign(new Error(`An API error occurred: ${code}`), {
    code: webApi.ErrorCode.PlatformError,
    data: { ok: false, error: code },
  });
}

/** A record whose earlier attempt's outcome is unknown (its holder's lease lapsed): looked up first. */
async function uncertainRecord(store: MemoryDeliveryStore, key: string): Promise<void> {
  await store.record(reply(key), Date.now());
  await store.acquire(key, 'gone', 1, Date.now());
  await sleep(5);
}

describe('delivery decisions that hold (issue 35)', () => {
  it('D2: a permanent look-up refusal ends the record with Slack code, logged at warn', async () => {
    const store = new MemoryDeliveryStore();
    const { logger, lines } = collectingLogger();
    const client = {
      conversations: {
        replies: async () => {
          throw platformError('not_in_channel');
        },
      },
      chat: {
        postMessage: async () => {
          throw new Error('must not post without a look-up');
        },
      },
    } as unknown as WebClient;
    const sender = new SlackDeliverySender(new SlackGateway(client, { logger: silent }), 1_000);
    const told: string[] = [];
    const deliveries = new Deliveries({
      store,
      sender,
      logger,
      holder: 'A',
      settleMs: 0,
      retryBaseMs: 1,
      onRefused: async (delivery, code) => {
        told.push(`${delivery.key} ${code}`);
      },
    });
    await uncertainRecord(store, 'k');
    const result = await deliveries.attempt('k');
    expect(result).toEqual({ status: 'abandoned', reason: 'not_in_channel' });
    expect(await store.get('k')).toMatchObject({ state: 'abandoned', reason: 'not_in_channel' });
    const said = lines.find((line) => line.code === 'not_in_channel');
    expect(said?.level).toBe(40);
    expect(told).toEqual(['k not_in_channel']);
  });

  it('D2: the person a refused post was for gets it by direct message, with where and why', async () => {
    const { outbox, sent, settle } = recordingOutbox();
    const refused: Delivery = {
      key: 'terminal:job_1:1',
      target: { kind: 'post', channel: 'C1', threadTs: '1.1', forUser: 'U1' },
      payload: { text: 'The docs agent opened a pull request: <https://github.com/acme/docs/pull/1>' },
      priority: 'reply',
      state: 'abandoned',
      notBefore: 0,
      attempts: 2,
      revision: 0,
      createdAt: 0,
    };
    await tellRefused(outbox)(refused, 'thread_not_found');
    await tellRefused(outbox)(
      { ...refused, key: 'k2', target: { ...refused.target, forUser: undefined } as Delivery['target'] },
      'x',
    );
    await settle();
    expect(sent).toHaveLength(1);
    expect(sent[0]?.target).toEqual({ kind: 'post', channel: 'U1', threadTs: null });
    const text = String((sent[0]?.payload as { text?: string } | undefined)?.text);
    expect(text).toContain('<#C1>');
    expect(text).toContain('its thread was deleted');
    expect(text).toContain('/pull/1');
  });

  it('D9: Slack answering rate_limited (not a 429) is "not sent", waited out, never abandoned', async () => {
    const client = {
      chat: {
        postMessage: async () => {
          throw platformError('rate_limited');
        },
      },
    } as unknown as WebClient;
    const sender = new SlackDeliverySender(new SlackGateway(client, { logger: silent }), 1_000);
    const target = reply('k').target;
    const lease = async () =>
      ({
        ...reply('k'),
        state: 'in_flight',
        notBefore: 0,
        attempts: 1,
        revision: 0,
        createdAt: 0,
      }) as Delivery;
    const error = await sender.send('k', 'reply', target, lease).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DeliveryAttemptError);
    expect((error as DeliveryAttemptError).failure.kind).toBe('not_sent');
    expect((error as DeliveryAttemptError).failure).toMatchObject({ retryAfterMs: expect.any(Number) });
  });

  it('D4: deliver() never returns the ts of an attempt whose lease was taken over meanwhile', async () => {
    const store = new MemoryDeliveryStore();
    const sender: DeliverySender = {
      async send(key, _priority, _target, lease) {
        const delivery = await lease();
        if (!delivery) return { sent: false as const };
        // Another replica takes the record over while this call is on the wire (its clock says the lease
        // lapsed: a frozen process, a GC pause).
        await store.acquire(key, 'B', 60_000, Date.now() + 120_000);
        return { sent: true as const, delivery, ts: 'stale.1' };
      },
      lookup: async () => undefined,
      removeDuplicates: async () => 0,
    };
    const a = new Deliveries({ store, sender, logger: silent, holder: 'A', settleMs: 0 });
    const result = await a.deliver(reply('k'));
    expect(result).not.toEqual({ status: 'posted', ts: 'stale.1' });
    expect(result).toEqual({ status: 'pending' });
  });
});

describe('the durable sweep (issue 35)', () => {
  it('D5: when the recorded copy is gone, the sweep keeps one of the others, never deletes them all', async () => {
    const copies = ['2.000100', '3.000100'];
    const deleted: string[] = [];
    const message = (ts: string) => ({
      ts,
      metadata: { event_type: 'docs_agent_message', event_payload: { key: 'k' } },
    });
    const client = {
      conversations: { replies: async () => ({ ok: true, messages: copies.map(message) }) },
      chat: {
        delete: async ({ ts }: { ts: string }) => {
          deleted.push(ts);
          return { ok: true };
        },
      },
    } as unknown as WebClient;
    const gateway = new SlackGateway(client, { logger: silent });
    // The recorded copy (1.000100) was deleted by a person: one of the two left stays.
    expect(await gateway.removeDuplicates('C1', '1.1', 'k', 0, '1.000100')).toBe(1);
    expect(deleted).toEqual(['3.000100']);
  });
});

describe("the assistant's result posted as a reply when the stream is over (issue 35, D6)", () => {
  const stop = {
    kind: 'assistant',
    call: 'stop',
    channel: 'D1',
    ts: '100.000100',
  } as const satisfies Delivery['target'];
  const record: Delivery = {
    key: 'stream:D1:100.000100',
    target: stop,
    payload: { chunks: [], result: { threadTs: '99.000100', text: 'Done: PR #7' } },
    priority: 'final',
    state: 'in_flight',
    notBefore: 0,
    attempts: 1,
    revision: 0,
    createdAt: 0,
  };
  const copy = (ts: string) => ({
    ts,
    metadata: { event_type: 'docs_agent_message', event_payload: { key: record.key } },
  });

  it('is posted only while the lease is still held, and swept like any post', async () => {
    const posted: string[] = [];
    const deleted: string[] = [];
    const client = {
      chat: {
        stopStream: async () => {
          throw platformError('message_not_in_streaming_state');
        },
        postMessage: async () => {
          posted.push('reply');
          return { ok: true, ts: '101.000100' };
        },
        delete: async ({ ts }: { ts: string }) => {
          deleted.push(ts);
          return { ok: true };
        },
      },
      conversations: {
        replies: async () => ({ ok: true, messages: [copy('101.000100'), copy('102.000100')] }),
      },
    } as unknown as WebClient;
    const sender = new SlackDeliverySender(new SlackGateway(client, { logger: silent }), 1_000);
    // Another replica took the record over while the stream was being stopped: no reply from this one.
    let leases = 0;
    const lostAfterOne = async () => (leases++ === 0 ? record : undefined);
    expect((await sender.send(record.key, 'final', stop, lostAfterOne)).sent).toBe(false);
    expect(posted).toEqual([]);
    expect(await sender.send(record.key, 'final', stop, async () => record)).toMatchObject({
      sent: true,
      ts: '101.000100',
    });
    // The sweep of its thread deletes a second copy (a late one from an earlier attempt).
    expect(await sender.removeDuplicates(record, '101.000100')).toBe(1);
    expect(deleted).toEqual(['102.000100']);
  });
});

describe('a card update Slack applies late (issue 35)', () => {
  it('the newest state is sent again once the window in which a late write can land has passed', async () => {
    const store = new MemoryDeliveryStore();
    const card = { shown: '', updates: 0 };
    let first = true;
    const sender: DeliverySender = {
      async send(_key, _priority, _target, lease) {
        const delivery = await lease();
        if (!delivery) return { sent: false as const };
        const text = String((delivery.payload as { text: string }).text);
        card.updates += 1;
        if (first) {
          // "Working" times out; Slack applies it 200 ms later, after the final state went out.
          first = false;
          setTimeout(() => {
            card.shown = text;
          }, 200);
          throw new DeliveryAttemptError({ kind: 'unknown', code: 'request_failed', inFlight: true });
        }
        card.shown = text;
        return { sent: true as const, delivery, ts: undefined };
      },
      lookup: async () => undefined,
      removeDuplicates: async () => 0,
    };
    const deliveries = new Deliveries({
      store,
      sender,
      logger: silent,
      leaseMs: 100,
      settleMs: 50,
      retryBaseMs: 1,
      retryMaxMs: 1,
    });
    const state = (seq: number, text: string): NewDelivery => ({
      key: 'card:C1:1.1',
      target: { kind: 'update', channel: 'C1', ts: '1.1' },
      payload: { text },
      priority: seq > 1 ? 'final' : 'intermediate',
      seq,
    });
    await deliveries.owe(state(1, 'Working'));
    await sleep(10);
    await deliveries.owe(state(2, 'Done'));
    for (let i = 0; i < 40; i++) {
      await deliveries.reconcile();
      await sleep(25);
    }
    await deliveries.idle();
    expect(card.shown).toBe('Done');
    expect(await store.get('card:C1:1.1')).toMatchObject({ state: 'posted' });
    expect(await store.due(Date.now(), 10)).toEqual([]);
  });
});
