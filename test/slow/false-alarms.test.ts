import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareCount,
  compareTraffic,
  isAlarming,
  keepsRising,
  SENSITIVITIES,
  type Sensitivity,
} from '../../src/insights/alerts/rules.js';
import { poissonDraw } from '../support/alert-feed.js';
import { seededRandom } from '../support/seeded-random.js';

/** Daily rates of the simulated count signals: rare terms to busy ones. */
const COUNT_RATES = [0.05, 0.1, 0.2, 0.3, 0.5, 0.8, 1, 1.5, 2, 3, 5, 8, 13, 20, 30];
/** Median views a day of the simulated top pages. */
const VIEW_RATES = [20, 50, 100, 300, 1000, 5000];
const TRIALS = 10_000;

/**
 * The false-alarm rate of the rule, measured: for each rate, `TRIALS` signal-days of pure Poisson noise (28
 * days of history and an independent today), the share that alerts. docs/using.md quotes these figures.
 */
function countFalseAlarms(sensitivity: Sensitivity, seed: number): number {
  const random = seededRandom(seed);
  let alerts = 0;
  for (const rate of COUNT_RATES) {
    for (let t = 0; t < TRIALS; t += 1) {
      const history = Array.from({ length: 28 }, () => poissonDraw(rate, random));
      if (isAlarming(compareCount(poissonDraw(rate, random), history), sensitivity)) alerts += 1;
    }
  }
  return alerts / (COUNT_RATES.length * TRIALS);
}

/** Traffic with a weekly rhythm (weekends at 60%) and Poisson noise: the share of days that alert. */
function trafficFalseAlarms(sensitivity: Sensitivity, seed: number): number {
  const random = seededRandom(seed);
  const dayRate = (rate: number, day: number) => (day % 7 >= 5 ? rate * 0.6 : rate);
  let alerts = 0;
  for (const rate of VIEW_RATES) {
    for (let t = 0; t < TRIALS / 10; t += 1) {
      const history = Array.from({ length: 28 }, (_, d) => poissonDraw(dayRate(rate, d), random));
      if (isAlarming(compareTraffic(poissonDraw(dayRate(rate, t), random), history), sensitivity))
        alerts += 1;
    }
  }
  return alerts / (VIEW_RATES.length * (TRIALS / 10));
}

describe('false-alarm rate on synthetic noise (seeded)', () => {
  it('low and normal: below one alert per 30,000 signal-days; high: below one per 1,000', () => {
    const measured = Object.fromEntries(
      SENSITIVITIES.map((s) => [s, { counts: countFalseAlarms(s, 11), traffic: trafficFalseAlarms(s, 12) }]),
    );
    console.log('false alarms per signal-day', JSON.stringify(measured));
    expect(measured.low!.counts).toBeLessThan(2e-5);
    expect(measured.normal!.counts).toBeLessThan(3e-5);
    expect(measured.high!.counts).toBeLessThan(1e-3);
    expect(measured.low!.traffic).toBe(0);
    expect(measured.normal!.traffic).toBe(0);
    expect(measured.high!.traffic).toBeLessThan(1e-3);
    // Pure CPU (about 6 s alone): a shared, busy machine takes several times that, which is not a failure.
  }, 120_000);
});

describe('alert rule', () => {
  const quiet = [0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0];

  it('alerts on a rise that is both large and unlikely', () => {
    expect(isAlarming(compareCount(14, quiet), 'normal')).toBe(true);
    expect(isAlarming(compareCount(5, Array(28).fill(0)), 'normal')).toBe(true);
    // Unlikely but small: fewer than 5 events today.
    expect(isAlarming(compareCount(4, Array(28).fill(0)), 'normal')).toBe(false);
    expect(isAlarming(compareCount(4, Array(28).fill(0)), 'high')).toBe(true);
    // Large in count but ordinary for a busy term.
    expect(isAlarming(compareCount(40, Array(28).fill(30)), 'normal')).toBe(false);
  });

  it('alerts on a page whose views collapsed by 80% (normal), not on a quiet weekend', () => {
    const weekly = Array.from({ length: 28 }, (_, d) => (d % 7 >= 5 ? 300 : 500));
    expect(isAlarming(compareTraffic(60, weekly), 'normal')).toBe(true);
    expect(isAlarming(compareTraffic(150, weekly), 'normal')).toBe(false);
    expect(isAlarming(compareTraffic(150, weekly), 'high')).toBe(true);
    // A small page: a drop to 0 from a median of 10 is noise.
    expect(isAlarming(compareTraffic(0, Array(28).fill(10)), 'high')).toBe(false);
  });

  it('a more sensitive setting alerts on everything a less sensitive one does', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 500 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 7, maxLength: 28 }),
        fc.boolean(),
        (today, history, traffic) => {
          const c = traffic ? compareTraffic(today, history) : compareCount(today, history);
          if (isAlarming(c, 'low')) expect(isAlarming(c, 'normal')).toBe(true);
          if (isAlarming(c, 'normal')) expect(isAlarming(c, 'high')).toBe(true);
        },
      ),
    );
  });

  it('more events today never turn an alert off, fewer views never turn a drop off', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }),
        fc.array(fc.integer({ min: 0, max: 300 }), { minLength: 7, maxLength: 28 }),
        fc.constantFrom(...SENSITIVITIES),
        (today, history, s) => {
          if (isAlarming(compareCount(today, history), s))
            expect(isAlarming(compareCount(today + 1, history), s)).toBe(true);
          if (today > 0 && isAlarming(compareTraffic(today, history), s))
            expect(isAlarming(compareTraffic(today - 1, history), s)).toBe(true);
        },
      ),
    );
  });

  it('follows up only when the count at least doubled since the alert', () => {
    expect(keepsRising(compareCount(28, quiet), 14, 'normal')).toBe(true);
    expect(keepsRising(compareCount(20, quiet), 14, 'normal')).toBe(false);
    expect(keepsRising(compareTraffic(10, Array(28).fill(500)), 60, 'normal')).toBe(true);
  });
});
