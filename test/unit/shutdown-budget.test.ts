import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  FORCED_EXIT_MS,
  SHUTDOWN_MARGIN_MS,
  SHUTDOWN_PARALLEL,
  SHUTDOWN_STEP_MS,
  shutdownWorstCaseMs,
} from '../../src/composition/shutdown-budget.js';

describe('shutdown budget', () => {
  // Checked: with the budgets app.ts had before (1 + 4.5 + 0.5 + 2 + 1 + 0.5 × 4 + 0.2 = 11.2 s) this fails.
  it('every step at its full budget still ends before the forced exit, with room to log and exit', () => {
    expect(shutdownWorstCaseMs()).toBeLessThanOrEqual(FORCED_EXIT_MS - SHUTDOWN_MARGIN_MS);
  });

  it('counts a parallel group once, at its longest step', () => {
    const sequential = Object.values(SHUTDOWN_STEP_MS).reduce((sum, ms) => sum + ms, 0);
    const saved = SHUTDOWN_PARALLEL.reduce((sum, group) => {
      const budgets = group.map((step) => SHUTDOWN_STEP_MS[step]);
      return sum + budgets.reduce((a, b) => a + b, 0) - Math.max(...budgets);
    }, 0);
    expect(shutdownWorstCaseMs()).toBe(sequential - saved);
  });

  // The table only protects the exit if stop() and main.ts read it: a literal timeout there would rot again.
  it('shutDown(), the process stop and main.ts take every timeout from the table', () => {
    const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
    const scope = read('../../src/composition/shutdown.ts');
    const app = read('../../src/composition/app.ts');
    // Each wait's arguments, from `within(` or `.drain(` to the end of its statement: a scope's stop, then
    // the process's (its front door first, its shared connections last).
    const stop = [
      scope.slice(scope.indexOf('export async function shutDown(')),
      app.slice(app.indexOf('    stop() {')),
    ]
      .join(' ')
      .replace(/\s+/g, ' ');
    const waits = stop
      .split(/within\(|\.drain\(/)
      .slice(1)
      .map((call) => call.slice(0, call.indexOf(';')));
    expect(waits.length).toBeGreaterThanOrEqual(Object.keys(SHUTDOWN_STEP_MS).length);
    // The second drain takes only what the steps before it left unused (UNTIL_STATE_CLOSES_MS).
    for (const call of waits) expect(call).toMatch(/SHUTDOWN_STEP_MS\.|UNTIL_STATE_CLOSES_MS/);
    const used = new Set(
      waits
        .filter((call) => call.includes('SHUTDOWN_STEP_MS.'))
        .map((call) => call.split('SHUTDOWN_STEP_MS.')[1]?.split(/[^A-Za-z]/)[0]),
    );
    expect([...used].sort()).toEqual(Object.keys(SHUTDOWN_STEP_MS).sort());
    const main = readFileSync(new URL('../../src/main.ts', import.meta.url), 'utf8');
    expect(main).toContain('}, FORCED_EXIT_MS);');
  });
});
