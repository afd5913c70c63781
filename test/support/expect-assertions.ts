import timers from 'node:timers';
import { beforeEach, expect, vi } from 'vitest';
import { seedEveryProperty } from './property-seed.js';

/*
 * Set up for every test file (vitest.config.ts `setupFiles`). A test must assert on something: one that only
 * waits (`waitFor` alone) or only sets things up fails with "expected any number of assertion, but got none".
 * Every fast-check property of the file runs on one seed a failure names, FC_SEED replays (property-seed.ts).
 */
seedEveryProperty();

beforeEach(() => {
  expect.hasAssertions();
});

/*
 * Unit files share their worker (no isolation): each starts on real timers whatever the file before it left
 * behind. A spy on a faked setTimeout (keyed-pacer.test.ts) can leave the fake clock's setTimeout in place
 * once the clock is gone, and every later wait of the worker hangs.
 */
vi.useRealTimers();
const REAL_TIMERS = [
  'setTimeout',
  'clearTimeout',
  'setInterval',
  'clearInterval',
  'setImmediate',
  'clearImmediate',
];
const global = globalThis as unknown as Record<string, unknown>;
const timerFunctions = timers as unknown as Record<string, unknown>;
for (const name of REAL_TIMERS) {
  if (global[name] === timerFunctions[name]) continue;
  console.warn(
    `[setup] ${name} was left replaced by an earlier test file: ${String(global[name]).slice(0, 200)}`,
  );
  global[name] = timerFunctions[name];
}
