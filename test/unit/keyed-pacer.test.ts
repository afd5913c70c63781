import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { errorCode } from '../../src/common/errors.js';
import { KeyedPacer } from '../../src/common/keyed-pacer.js';

describe('KeyedPacer', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** Runs `count` items on `key`, resolving the offsets (ms from t0) at which each started. */
  function startTimes(pacer: KeyedPacer, key: string, count: number, t0: number): Promise<number[]> {
    return Promise.all(Array.from({ length: count }, () => pacer.run(key, async () => Date.now() - t0)));
  }

  it('takeWithin takes a start only if it comes within the wait, never before queued work, and queues nothing', async () => {
    const pacer = new KeyedPacer(60_000, 1);
    expect(pacer.takeWithin('replies', 0)).toBe(0);
    expect(pacer.takeWithin('replies', 1000)).toBe(-1);
    expect(pacer.waiting('replies')).toBe(0);
    await vi.advanceTimersByTimeAsync(59_500);
    // The next start is 500 ms away: taken now for then, so the one after is a minute further.
    expect(pacer.takeWithin('replies', 1000)).toBe(500);
    expect(pacer.takeWithin('replies', 1000)).toBe(-1);
    // Paced work queued meanwhile goes after the start taken, not into it.
    const t0 = Date.now();
    const queued = pacer.run('replies', async () => Date.now() - t0);
    await vi.advanceTimersByTimeAsync(60_500);
    expect(await queued).toBe(60_500);
    const queuedAgain = pacer.run('replies', async () => 'queued');
    // Paced work waiting for the next minute's start goes first: nothing for an "only soon" taker.
    expect(pacer.takeWithin('replies', 60_000)).toBe(-1);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(await queuedAgain).toBe('queued');
    expect(pacer.takeWithin('other', 0)).toBe(0);
    // A start taken but not used (the replicas' shared slot was gone) is given back.
    pacer.giveBack('other');
    expect(pacer.takeWithin('other', 0)).toBe(0);
  });

  it('starts a burst at once, then one per interval, in arrival order', async () => {
    const pacer = new KeyedPacer(1000, 4);
    const t0 = Date.now();
    const order: number[] = [];
    const runs = Array.from({ length: 7 }, (_, i) =>
      pacer.run('C1', async () => {
        order.push(i);
        return Date.now() - t0;
      }),
    );
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await Promise.all(runs)).toEqual([0, 0, 0, 0, 1000, 2000, 3000]);
    expect(order).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it("refuses work past the bound of a key's queue with a coded error, and queues again once it drains", async () => {
    const pacer = new KeyedPacer(1000, 1, Date.now, 2);
    const t0 = Date.now();
    const accepted = [0, 1, 2].map(() => pacer.run('users.info', async () => Date.now() - t0));
    const refused = pacer.run('users.info', async () => 'never');
    await expect(refused).rejects.toMatchObject({ code: 'pacer_queue_full' });
    expect(errorCode(await refused.catch((e: unknown) => e))).toBe('pacer_queue_full');
    expect(pacer.waiting('users.info')).toBe(2);
    // Other keys are not affected by a full one.
    expect(await pacer.run('chat.update', async () => 'ok')).toBe('ok');
    await vi.advanceTimersByTimeAsync(3000);
    expect(await Promise.all(accepted)).toEqual([0, 1000, 2000]);
    const later = pacer.run('users.info', async () => 'queued again');
    await vi.advanceTimersByTimeAsync(1000);
    expect(await later).toBe('queued again');
  });

  it('paces each key on its own, and an idle key gets its whole burst back', async () => {
    const pacer = new KeyedPacer(1000, 2);
    const t0 = Date.now();
    const c1 = startTimes(pacer, 'C1', 3, t0);
    const c2 = startTimes(pacer, 'C2', 1, t0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(await c1).toEqual([0, 0, 1000]);
    expect(await c2).toEqual([0]);
    const again = startTimes(pacer, 'C1', 3, t0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(await again).toEqual([5000, 5000, 6000]);
  });

  it('keeps pacing correctly while it prunes idle keys', async () => {
    const pacer = new KeyedPacer(1000, 1);
    const t0 = Date.now();
    const busy = startTimes(pacer, 'busy', 3, t0);
    for (let i = 0; i < 1500; i++) await pacer.run(`idle-${i}`, async () => undefined);
    await vi.advanceTimersByTimeAsync(1500);
    const late = startTimes(pacer, 'busy', 1, t0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(await busy).toEqual([0, 1000, 2000]);
    expect(await late).toEqual([3000]);
  });

  it('forgets a key once it is idle again (nothing kept per key after the work), and paces the same', async () => {
    const pacer = new KeyedPacer(1000, 2);
    const t0 = Date.now();
    const first = startTimes(pacer, 'C1', 3, t0);
    expect(pacer.keysHeld()).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    // The third start has just gone: its pace still holds the key.
    expect(await first).toEqual([0, 0, 1000]);
    expect(pacer.keysHeld()).toBe(1);
    await vi.advanceTimersByTimeAsync(2000);
    expect(pacer.keysHeld()).toBe(0);
    // A forgotten key has its whole burst, as it had before.
    const again = startTimes(pacer, 'C1', 3, t0);
    await vi.advanceTimersByTimeAsync(5000);
    expect(await again).toEqual([3000, 3000, 4000]);
    await vi.advanceTimersByTimeAsync(5000);
    expect(pacer.keysHeld()).toBe(0);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('on close, drops delayed work with a shutting_down error and refuses new work', async () => {
    const pacer = new KeyedPacer(1000, 1);
    let ran = 0;
    const first = pacer.run('C1', async () => ++ran);
    const queued = pacer.run('C1', async () => ++ran).catch((error: unknown) => errorCode(error));
    expect(await first).toBe(1);
    pacer.close();
    expect(await queued).toBe('shutting_down');
    expect(await pacer.run('C2', async () => ++ran).catch((error: unknown) => errorCode(error))).toBe(
      'shutting_down',
    );
    await vi.advanceTimersByTimeAsync(5000);
    expect(ran).toBe(1);
  });

  it('starts waiting work by priority, then in arrival order', async () => {
    const pacer = new KeyedPacer(1000, 1);
    const t0 = Date.now();
    const order: string[] = [];
    const run = (name: string, priority: number) =>
      pacer.run(
        'chat.update',
        async () => {
          order.push(name);
          return Date.now() - t0;
        },
        priority,
      );
    const first = run('refresh-1', 2);
    const later = [run('refresh-2', 2), run('refresh-3', 2), run('reply', 1), run('user', 0)];
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await first).toBe(0);
    expect(await Promise.all(later)).toEqual([3000, 4000, 2000, 1000]);
    expect(order).toEqual(['refresh-1', 'user', 'reply', 'refresh-2', 'refresh-3']);
  });

  it('holds a key back until a Retry-After has passed', async () => {
    const pacer = new KeyedPacer(1000, 2);
    const t0 = Date.now();
    pacer.holdUntil('chat.update', t0 + 5000);
    const held = pacer.run('chat.update', async () => Date.now() - t0);
    const other = pacer.run('reactions.add', async () => Date.now() - t0);
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await held).toBe(5000);
    expect(await other).toBe(0);
  });

  it("holds a key past Node's timer limit without waking every millisecond", async () => {
    const pacer = new KeyedPacer(1000, 1);
    const started: number[] = [];
    pacer.holdUntil('C1', Date.now() + 30 * 24 * 60 * 60 * 1000);
    const held = pacer.run('C1', async () => void started.push(Date.now())).catch(() => 'dropped');
    const timeouts = vi.spyOn(globalThis, 'setTimeout');
    await vi.advanceTimersByTimeAsync(1_000);
    expect(started).toHaveLength(0);
    // One timer for the whole hold (re-armed at most once per ~24.8 days), not a 1 ms loop.
    expect(timeouts.mock.calls.length).toBeLessThanOrEqual(1);
    timeouts.mockRestore();
    pacer.close();
    expect(await held).toBe('dropped');
  });

  it('runUntilStarted: the next start waits until the work says it started (or fails)', async () => {
    const pacer = new KeyedPacer(100, 1);
    const order: string[] = [];
    // Each item first waits 1000 ms elsewhere (a shared slot), then starts.
    const run = (name: string, priority: number, fail = false) =>
      pacer
        .runUntilStarted(
          'chat.update',
          async (started) => {
            await new Promise((resolve) => setTimeout(resolve, 1000));
            if (fail) throw new Error('shared wait failed');
            started();
            order.push(name);
          },
          priority,
        )
        .then(
          () => 'started',
          () => 'failed',
        );
    const runs = [run('refresh-1', 2, true), run('refresh-2', 2), run('refresh-3', 2)];
    await vi.advanceTimersByTimeAsync(500);
    // Queued while refresh-1 still waits: it goes next, before the refreshes queued earlier.
    runs.push(run('user', 0));
    await vi.advanceTimersByTimeAsync(10_000);
    expect(await Promise.all(runs)).toEqual(['failed', 'started', 'started', 'started']);
    expect(order).toEqual(['user', 'refresh-2', 'refresh-3']);
  });
});
