import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { propertySeed, seedEveryProperty } from '../support/property-seed.js';

/*
 * Issue 45: a property that fails prints its seed and replays with FC_SEED. The test setup seeds every
 * property of every file (seedEveryProperty), so no property test needs to remember to.
 */

const failing = () =>
  fc.check(
    fc.property(fc.integer(), (n) => n % 7 !== 3),
    { numRuns: 1_000 },
  );

describe('property seeds', () => {
  it('every property of this file already runs on the setup’s seed', () => {
    expect(fc.readConfigureGlobal().seed).toEqual(expect.any(Number));
    const details = failing();
    expect(details.failed).toBe(true);
    expect(details.seed).toBe(fc.readConfigureGlobal().seed);
  });

  it('FC_SEED replays a failure: the same seed finds the same counterexample, and the report names it', () => {
    const before = fc.readConfigureGlobal();
    try {
      const first = failing();
      expect(first.failed).toBe(true);
      expect(fc.defaultReportMessage(first)).toContain(`seed: ${first.seed}`);
      seedEveryProperty({ FC_SEED: String(first.seed) });
      const replay = failing();
      expect(replay.seed).toBe(first.seed);
      expect(replay.counterexample).toEqual(first.counterexample);
    } finally {
      fc.configureGlobal(before);
    }
  });

  it('reads FC_SEED, negative seeds included, and draws a fresh seed without it', () => {
    expect(propertySeed({ FC_SEED: '-1234' })).toBe(-1234);
    expect(propertySeed({ FC_SEED: '42' })).toBe(42);
    expect(Number.isInteger(propertySeed({}))).toBe(true);
  });
});
