import { baselineRate, median, poissonLowerTail, poissonUpperTail, usualRange } from './statistics.js';

export type Sensitivity = 'low' | 'normal' | 'high';
export const SENSITIVITIES: readonly Sensitivity[] = ['low', 'normal', 'high'];

/**
 * The alert rule per sensitivity. A count alerts when today's count is at least `minEvents`, at least
 * `riseFactor` times the baseline rate and has a Poisson upper tail below `pValue` under that rate. Page
 * traffic alerts when the last 24 hours are at least `dropShare` below the page's median day (a page with a
 * median of at least `minMedianViews`) and the Poisson lower tail is below `pValue`.
 */
export interface AlertThresholds {
  pValue: number;
  minEvents: number;
  riseFactor: number;
  dropShare: number;
  minMedianViews: number;
}

export const THRESHOLDS: Record<Sensitivity, AlertThresholds> = {
  low: { pValue: 1e-4, minEvents: 10, riseFactor: 4, dropShare: 0.9, minMedianViews: 100 },
  normal: { pValue: 1e-3, minEvents: 5, riseFactor: 3, dropShare: 0.8, minMedianViews: 50 },
  high: { pValue: 1e-2, minEvents: 3, riseFactor: 2, dropShare: 0.7, minMedianViews: 20 },
};

/** Fewer stored days than this and no signal is judged: the baseline would say too little. */
export const MIN_HISTORY_DAYS = 7;
/** The trailing days a baseline covers. */
export const BASELINE_DAYS = 28;

/** How one signal's day compares with its baseline (computed once, judged per channel's sensitivity). */
export interface Comparison {
  direction: 'rise' | 'drop';
  today: number;
  /** Baseline rate (counts) or median day (traffic). */
  expected: number;
  /** The tail probability of `today` under the baseline, in the direction that matters. */
  pValue: number;
  usual: { low: number; high: number };
}

/** A count (searches, 👎, questions) today against its daily history. */
export function compareCount(today: number, history: readonly number[]): Comparison {
  const rate = baselineRate(history);
  return {
    direction: 'rise',
    today,
    expected: rate,
    pValue: poissonUpperTail(today, rate),
    usual: usualRange(history),
  };
}

/** A page's views over the last 24 hours against its median day. */
export function compareTraffic(today: number, history: readonly number[]): Comparison {
  const typical = median(history);
  return {
    direction: 'drop',
    today,
    expected: typical,
    pValue: poissonLowerTail(today, typical),
    usual: usualRange(history),
  };
}

/** Whether the comparison is both large and unlikely enough to alert at this sensitivity. */
export function isAlarming(comparison: Comparison, sensitivity: Sensitivity): boolean {
  const t = THRESHOLDS[sensitivity];
  if (!(comparison.pValue < t.pValue)) return false;
  if (comparison.direction === 'rise') {
    return comparison.today >= t.minEvents && comparison.today >= t.riseFactor * comparison.expected;
  }
  return (
    comparison.expected >= t.minMedianViews && comparison.today <= (1 - t.dropShare) * comparison.expected
  );
}

/**
 * A follow-up in the alert's thread: the count kept rising to at least twice what the alert reported
 * (and by at least the sensitivity's minimum), or a traffic drop went on to the next half.
 */
export function keepsRising(comparison: Comparison, alerted: number, sensitivity: Sensitivity): boolean {
  if (comparison.direction === 'rise') {
    return comparison.today >= 2 * alerted && comparison.today - alerted >= THRESHOLDS[sensitivity].minEvents;
  }
  return comparison.today <= alerted / 2 && alerted - comparison.today >= THRESHOLDS[sensitivity].minEvents;
}
