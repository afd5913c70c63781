import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { KeyedPacer } from '../../src/common/keyed-pacer.js';
import { LazyMap } from '../../src/common/lazy-collections.js';
import { SlackPacing } from '../../src/slack/slack-pacing.js';

/** Hash tables and pacers held: directly, in a lazy map, in a map's values (per method), in those pacers. */
function held(o: object): { tables: number; pacers: number } {
  const sum = { tables: 0, pacers: 0 };
  const add = (x: { tables: number; pacers: number }) => {
    sum.tables += x.tables;
    sum.pacers += x.pacers;
  };
  for (const v of Object.values(o)) {
    if (v instanceof LazyMap) add(held(v));
    if (v instanceof KeyedPacer) add({ tables: held(v).tables, pacers: 1 });
    if (v instanceof Set) add({ tables: 1, pacers: 0 });
    if (v instanceof Map) {
      add({ tables: 1, pacers: 0 });
      for (const pacer of v.values())
        if (pacer instanceof KeyedPacer) add({ tables: held(pacer).tables, pacers: 1 });
    }
  }
  return sum;
}

describe("SlackPacing keeps nothing once a tenant's calls are over (issue 43 §2)", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('forgets the methods and channels it paced once their pace has passed, and paces them again as new', async () => {
    const pacing = new SlackPacing({ channelPostIntervalMs: 1_000, channelPostBurst: 1 });
    const calls = () =>
      Promise.all([
        pacing.run('chat.postMessage', 'C1', 'final', async () => Date.now()),
        pacing.run('chat.postMessage', 'C1', 'final', async () => Date.now()),
        pacing.run('users.info', undefined, 'refresh', async () => Date.now()),
      ]);
    const t0 = Date.now();
    const first = calls();
    // The posts pacer (always there) and users.info's, each with a key and its table.
    expect(held(pacing)).toEqual({ tables: 3, pacers: 2 });
    await vi.advanceTimersByTimeAsync(5_000);
    expect((await first).map((t) => t - t0)).toEqual([0, 1_050, 0]);
    await vi.advanceTimersByTimeAsync(60_000);
    expect(held(pacing)).toEqual({ tables: 0, pacers: 1 });
    const t1 = Date.now();
    const again = calls();
    await vi.advanceTimersByTimeAsync(5_000);
    expect((await again).map((t) => t - t1)).toEqual([0, 1_050, 0]);
    pacing.close();
  });
});
