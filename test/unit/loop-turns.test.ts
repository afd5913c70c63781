import { describe, expect, it } from 'vitest';
import { LoopTurns } from '../../src/common/loop-turns.js';

/** Synchronous work of `ms` (a waiter rendering and sending its answer). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {}
}

/**
 * Runs `waiters` that each do 1 ms of synchronous work after `before()`, with a timer ticking meanwhile
 * (it fires only when the loop comes round); returns the longest run of waiters with no tick between,
 * and the order they ran in.
 */
async function burst(waiters: number, before: () => Promise<void>) {
  const events: Array<number | 'tick'> = [];
  let ticking = true;
  const tick = () => {
    events.push('tick');
    if (ticking) setTimeout(tick, 0);
  };
  setTimeout(tick, 0);
  const ready = Promise.resolve();
  await Promise.all(
    Array.from({ length: waiters }, async (_, i) => {
      await ready;
      await before();
      busy(1);
      events.push(i);
    }),
  );
  ticking = false;
  let longest = 0;
  let run = 0;
  for (const event of events) {
    run = event === 'tick' ? 0 : run + 1;
    longest = Math.max(longest, run);
  }
  return { longest, order: events.filter((e): e is number => e !== 'tick') };
}

describe('LoopTurns', () => {
  it('lets the loop come round between bursts of waiters, about its budget of work at a time, in order', async () => {
    const turns = new LoopTurns(4);
    const { longest, order } = await burst(40, () => turns.take());
    // 4 ms of budget, 1 ms each: the turn that starts inside the budget may end past it.
    expect(longest).toBeLessThanOrEqual(6);
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(order).toHaveLength(40);
  });

  it('without turns the same waiters run as one synchronous task (what the turns prevent)', async () => {
    const { longest } = await burst(40, async () => {});
    expect(longest).toBe(40);
  });
});
