import { expect, it } from 'vitest';
import type { NewDelivery } from '../../src/delivery/domain.js';
import type { DeliveryStore } from '../../src/delivery/ports.js';

export function post(key: string, extra: Partial<NewDelivery> = {}): NewDelivery {
  return {
    key,
    target: { kind: 'post', channel: 'C1', threadTs: '1.1' },
    payload: { text: `reply ${key}`, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'x' } }] },
    priority: 'reply',
    ...extra,
  };
}

/** A confirmed write, with no earlier unknown outcome. */
export const posted = (ts: string | undefined, revision: number, uncertain = false) =>
  ({ kind: 'posted', ts, revision, uncertain, recheck: { afterMs: 1_000, forMs: 60_000 } }) as const;

export const card = (seq: number, priority: NewDelivery['priority'] = 'intermediate'): NewDelivery => ({
  key: 'card:C1:1.1',
  target: { kind: 'update', channel: 'C1', ts: '1.1' },
  payload: { text: `state ${seq}`, blocks: [] },
  priority,
  seq,
});

/**
 * What every delivery store must do, on the store's own clock: `now` is only a hint (Redis uses TIME), so
 * the tests use real time and leases short enough to expire during a test.
 */
export function deliveryStoreContract(make: () => Promise<{ store: DeliveryStore; close(): Promise<void> }>) {
  const withStore = (test: (store: DeliveryStore) => Promise<void>) => async () => {
    const { store, close } = await make();
    try {
      await test(store);
    } finally {
      await close();
    }
  };
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

  it(
    'records once: the same key again keeps the first record, payload included',
    withStore(async (store) => {
      const first = await store.record(post('k1'), Date.now());
      expect(first).toMatchObject({ key: 'k1', state: 'pending', attempts: 0, revision: 0 });
      await store.record(post('k1', { payload: { text: 'other' } }), Date.now());
      expect((await store.get('k1'))?.payload).toEqual(post('k1').payload);
      expect(await store.due(Date.now(), 10)).toEqual(['k1']);
    }),
  );

  it(
    'a record is its own: changing what was handed in, or any record handed out, changes nothing stored',
    withStore(async (store) => {
      type Payload = { text: string; blocks: unknown[] };
      const input = post('k-own');
      const handedOut = [await store.record(input, Date.now())];
      (input.payload as Payload).text = 'changed by the caller';
      const leased = await store.acquire('k-own', 'A', 60_000, Date.now());
      if (leased.ok) handedOut.push(leased.delivery);
      handedOut.push((await store.get('k-own'))!);
      for (const record of handedOut) {
        // A store may hand out frozen records (memory mode shares one payload): then the change throws.
        try {
          (record.payload as Payload).text = 'changed by a reader';
          (record.payload as Payload).blocks.push({ type: 'divider' });
          (record.target as { channel: string }).channel = 'C-other';
        } catch {}
      }
      const stored = await store.get('k-own');
      expect(stored?.payload).toEqual(post('k-own').payload);
      expect(stored?.target).toEqual(post('k-own').target);
    }),
  );

  it(
    'leases to one holder at a time; a live lease is "held", never done',
    withStore(async (store) => {
      await store.record(post('k2'), Date.now());
      const a = await store.acquire('k2', 'A', 60_000, Date.now());
      expect(a.ok).toBe(true);
      expect(await store.acquire('k2', 'B', 60_000, Date.now())).toEqual({ ok: false, why: 'held' });
      expect(await store.due(Date.now(), 10)).toEqual([]);
      await store.settle('k2', 'A', 1, posted('9.9', 0), Date.now());
      // Posted: only that it was (and its ts) is kept, not what was sent.
      expect(await store.get('k2')).toMatchObject({ state: 'posted', postedTs: '9.9', payload: null });
      expect(await store.acquire('k2', 'B', 60_000, Date.now())).toEqual({ ok: false, why: 'posted' });
      // Recording it again after it was posted changes nothing: no second copy.
      await store.record(post('k2'), Date.now());
      expect(await store.get('k2')).toMatchObject({ state: 'posted' });
    }),
  );

  it(
    'an expired lease is due again, taken over as uncertain (look before posting), and its old holder cannot settle it (fencing)',
    withStore(async (store) => {
      await store.record(post('k3'), Date.now());
      expect((await store.acquire('k3', 'A', 30, Date.now())).ok).toBe(true);
      await sleep(80);
      expect(await store.due(Date.now(), 10)).toEqual(['k3']);
      const b = await store.acquire('k3', 'B', 60_000, Date.now());
      expect(b.ok && b.delivery.uncertainSince).toBeGreaterThan(0);
      expect(b.ok && b.delivery.attempts).toBe(2);
      const retry = { kind: 'retry', notBefore: Date.now() + 60_000, uncertain: false } as const;
      expect(await store.settle('k3', 'A', 1, retry, Date.now())).toBe(false);
      expect(await store.get('k3')).toMatchObject({ state: 'in_flight', holder: 'B' });
      // A stale "posted" neither ends the live lease nor records its ts: the live holder decides.
      expect(await store.settle('k3', 'A', 1, posted('1.2', 0), Date.now())).toBe(false);
      expect(await store.get('k3')).toMatchObject({ state: 'in_flight', holder: 'B' });
      // Nor does the same holder with an older token (its own earlier attempt, settling late).
      expect(await store.settle('k3', 'B', 1, posted('1.2', 0), Date.now())).toBe(false);
      expect(await store.settle('k3', 'B', 2, posted('1.3', 0), Date.now())).toBe(true);
      expect(await store.get('k3')).toMatchObject({ state: 'posted', postedTs: '1.3' });
    }),
  );

  it(
    'retry waits until its time; released leases are uncertain and due only after the settle time',
    withStore(async (store) => {
      await store.record(post('k4'), Date.now());
      await store.acquire('k4', 'A', 60_000, Date.now());
      await store.settle(
        'k4',
        'A',
        1,
        { kind: 'retry', notBefore: Date.now() + 60_000, uncertain: false },
        Date.now(),
      );
      expect(await store.get('k4')).toMatchObject({ state: 'pending' });
      expect(await store.due(Date.now(), 10)).toEqual([]);
      expect(await store.acquire('k4', 'B', 60_000, Date.now())).toEqual({ ok: false, why: 'not_due' });

      await store.record(post('k5'), Date.now());
      await store.acquire('k5', 'A', 60_000, Date.now());
      await store.settle('k5', 'A', 1, { kind: 'released', uncertain: true, afterMs: 150 }, Date.now());
      expect(await store.get('k5')).toMatchObject({ state: 'pending' });
      expect((await store.get('k5'))?.uncertainSince).toBeGreaterThan(0);
      expect(await store.due(Date.now(), 10)).toEqual([]);
      expect(await store.acquire('k5', 'B', 60_000, Date.now())).toEqual({ ok: false, why: 'not_due' });
      await sleep(250);
      expect(await store.due(Date.now(), 10)).toEqual(['k5']);
    }),
  );

  it(
    'abandons on a permanent refusal: never due again',
    withStore(async (store) => {
      await store.record(post('k6'), Date.now());
      await store.acquire('k6', 'A', 60_000, Date.now());
      // Only the holder abandons it: a stale one (or anyone without the lease) changes nothing.
      expect(await store.settle('k6', 'B', 1, { kind: 'abandoned', reason: 'x' }, Date.now())).toBe(false);
      await store.settle('k6', 'A', 1, { kind: 'abandoned', reason: 'channel_not_found' }, Date.now());
      expect(await store.get('k6')).toMatchObject({ state: 'abandoned', reason: 'channel_not_found' });
      expect(await store.due(Date.now(), 10)).toEqual([]);
    }),
  );

  it(
    'card states: the latest seq wins, an older one never comes back, a post of an older revision stays owed',
    withStore(async (store) => {
      await store.record(card(1), Date.now());
      const leased = await store.acquire('card:C1:1.1', 'A', 60_000, Date.now());
      expect(leased.ok && leased.delivery.revision).toBe(0);
      await store.record(card(3, 'final'), Date.now());
      await store.record(card(2), Date.now());
      const now = await store.get('card:C1:1.1');
      expect(now).toMatchObject({ seq: 3, revision: 1, priority: 'final', payload: { text: 'state 3' } });
      await store.settle('card:C1:1.1', 'A', 1, posted(undefined, 0), Date.now());
      expect(await store.get('card:C1:1.1')).toMatchObject({ state: 'pending' });
      const again = await store.acquire('card:C1:1.1', 'A', 60_000, Date.now());
      expect(again.ok && again.delivery.payload).toEqual({ text: 'state 3', blocks: [] });
      await store.settle('card:C1:1.1', 'A', 2, posted(undefined, 1), Date.now());
      expect(await store.get('card:C1:1.1')).toMatchObject({ state: 'posted' });
      await store.record(card(4, 'final'), Date.now());
      expect(await store.get('card:C1:1.1')).toMatchObject({ state: 'pending', revision: 2 });
    }),
  );

  it(
    'due lists replies before final card states before intermediate ones',
    withStore(async (store) => {
      await store.record({ ...card(1), key: 'card:a' }, Date.now());
      await store.record({ ...card(1, 'final'), key: 'card:b' }, Date.now());
      await store.record(post('reply:c'), Date.now());
      expect(await store.due(Date.now() + 1, 10)).toEqual(['reply:c', 'card:b', 'card:a']);
      expect(await store.due(Date.now() + 1, 2)).toEqual(['reply:c', 'card:b']);
    }),
  );

  it(
    "a delayed record (a mute's end) is neither due nor leased before its delay, then is, owed from then",
    withStore(async (store) => {
      const before = Date.now();
      const edit: NewDelivery = {
        key: 'shared-unmute:C1:1.1:9',
        target: { kind: 'edit', channel: 'C1', ts: '1.1', edit: { name: 'unmute' } },
        payload: null,
        priority: 'intermediate',
        delayMs: 400,
      };
      const recorded = await store.record(edit, Date.now());
      expect(recorded.notBefore).toBeGreaterThanOrEqual(before + 400 - 50);
      // A day to deliver it counts from the end of the delay.
      expect(recorded.createdAt).toBe(recorded.notBefore);
      expect(await store.due(Date.now(), 10)).toEqual([]);
      expect(await store.acquire(edit.key, 'A', 60_000, Date.now())).toEqual({ ok: false, why: 'not_due' });
      let due: string[] = [];
      for (const deadline = Date.now() + 5_000; due.length === 0 && Date.now() < deadline; )
        due = await new Promise<string[]>((resolve) =>
          setTimeout(() => resolve(store.due(Date.now(), 10)), 50),
        );
      expect(due).toEqual([edit.key]);
      const leased = await store.acquire(edit.key, 'A', 60_000, Date.now());
      expect(leased.ok && leased.delivery.target).toEqual(edit.target);
    }),
  );
}
