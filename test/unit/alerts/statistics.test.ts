import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  baselineRate,
  logFactorial,
  median,
  poissonLowerTail,
  poissonUpperTail,
  usualRange,
} from '../../../src/insights/alerts/statistics.js';

/** P(X = i) by the recurrence p(i) = p(i-1)·λ/i: an independent way to the same numbers. */
function pmfs(lambda: number, upTo: number): number[] {
  const out = [Math.exp(-lambda)];
  for (let i = 1; i <= upTo; i += 1) out.push((out[i - 1]! * lambda) / i);
  return out;
}

const closeTo = (a: number, b: number) => Math.abs(a - b) <= 1e-9 + 1e-7 * Math.max(Math.abs(a), Math.abs(b));

describe('Poisson tails', () => {
  it('match a direct sum of the probabilities', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 60, noNaN: true }),
        fc.integer({ min: 0, max: 120 }),
        (lambda, k) => {
          const p = pmfs(lambda, 400);
          const lower = p.slice(0, k + 1).reduce((s, v) => s + v, 0);
          const upper = p.slice(k).reduce((s, v) => s + v, 0);
          expect(closeTo(poissonLowerTail(k, lambda), lower)).toBe(true);
          expect(closeTo(poissonUpperTail(k, lambda), upper)).toBe(true);
        },
      ),
    );
  });

  it('are complementary, within 0..1, and monotone in k', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.001, max: 5000, noNaN: true }),
        fc.integer({ min: 0, max: 10_000 }),
        (lambda, k) => {
          const up = poissonUpperTail(k + 1, lambda);
          const low = poissonLowerTail(k, lambda);
          expect(up).toBeGreaterThanOrEqual(0);
          expect(low).toBeLessThanOrEqual(1);
          expect(Math.abs(up + low - 1)).toBeLessThan(1e-9);
          expect(poissonUpperTail(k + 2, lambda)).toBeLessThanOrEqual(up);
          expect(poissonLowerTail(k + 1, lambda)).toBeGreaterThanOrEqual(low);
        },
      ),
    );
  });

  it('knows the textbook values and the edges', () => {
    expect(poissonUpperTail(6, 1)).toBeCloseTo(0.000594, 6);
    expect(poissonUpperTail(0, 3)).toBe(1);
    expect(poissonUpperTail(1, 0)).toBe(0);
    expect(poissonLowerTail(-1, 3)).toBe(0);
    expect(poissonLowerTail(4, 0)).toBe(1);
    // Far in the tail: tiny but not rounded to 0 by a complement.
    expect(poissonUpperTail(60, 2)).toBeGreaterThan(0);
    expect(poissonUpperTail(60, 2)).toBeLessThan(1e-50);
    expect(poissonLowerTail(5, 1000)).toBeLessThan(1e-300 + 1e-100);
  });

  it('log factorial is exact in the table and accurate above it', () => {
    expect(logFactorial(0)).toBe(0);
    expect(logFactorial(10)).toBeCloseTo(Math.log(3628800), 10);
    let sum = 0;
    for (let i = 1; i <= 300; i += 1) sum += Math.log(i);
    expect(Math.abs(logFactorial(300) - sum)).toBeLessThan(1e-9);
  });
});

describe('baselines', () => {
  it('median, usual range and rate', () => {
    expect(median([])).toBe(0);
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 2, 3])).toBe(2.5);
    expect(usualRange([0, 0, 0, 1, 0, 1, 0, 0, 2, 0])).toEqual({ low: 0, high: 1 });
    // Never seen in 28 days: rare, not impossible.
    expect(baselineRate(Array(28).fill(0))).toBeCloseTo(4.09 / 28, 3);
    expect(baselineRate([])).toBeGreaterThan(0);
  });

  it('the rate is never below the mean and ignores values the spec allows but counts cannot be', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 28 }), (history) => {
        const mean = history.reduce((s, v) => s + v, 0) / history.length;
        expect(baselineRate(history)).toBeGreaterThan(mean);
      }),
    );
    expect(baselineRate([Number.NaN, -5, 2])).toBeCloseTo(baselineRate([0, 0, 2]), 12);
  });
});
