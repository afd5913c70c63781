import { describe, expect, it } from 'vitest';
import { ShiftableTimers } from '../../demo/shiftable-timers.js';

/** The playground's [Weekly post] moves the weekly scheduler's time forward: due timers fire, in order, once. */
describe('the playground’s shiftable timers', () => {
  it('fires every timer due by the target in order, moves time there, and leaves later ones pending', () => {
    const timers = new ShiftableTimers();
    const start = timers.now();
    const fired: string[] = [];
    timers.setTimeout(() => fired.push('b'), 120_000);
    timers.setTimeout(() => fired.push('a'), 60_000);
    timers.setTimeout(() => fired.push('late'), 3_600_000);
    const cleared = timers.setTimeout(() => fired.push('cleared'), 30_000);
    timers.clearTimeout(cleared);
    timers.advanceTo(start + 180_000);
    expect(fired).toEqual(['a', 'b']);
    expect(timers.now()).toBeGreaterThanOrEqual(start + 180_000);
    expect(timers.count).toBe(1);
  });

  it('fires a timer armed by a fired one when it is due by the target too (a scheduler re-arming)', () => {
    const timers = new ShiftableTimers();
    const start = timers.now();
    const fired: number[] = [];
    timers.setTimeout(() => {
      fired.push(1);
      timers.setTimeout(() => fired.push(2), 10_000);
    }, 10_000);
    timers.advanceTo(start + 60_000);
    expect(fired).toEqual([1, 2]);
    expect(timers.count).toBe(0);
  });
});
