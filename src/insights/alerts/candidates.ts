import type { Evidence } from '../health/evidence.js';
import type { TrendPoint } from './alert.js';
import {
  type Comparison,
  compareCount,
  compareTraffic,
  isAlarming,
  type Sensitivity,
  THRESHOLDS,
} from './rules.js';
import { type DaySignals, historyOf, type SignalKind, signalId, valueOn } from './signals.js';
import { median } from './statistics.js';

/** The pages whose traffic is watched: the busiest by median day. */
export const TOP_PAGES = 50;

/** A signal that alerts at some sensitivity today, with what its alert shows. */
export interface Candidate {
  kind: SignalKind;
  key: string;
  signalId: string;
  comparison: Comparison;
  trend: TrendPoint[];
  evidence: Evidence;
}

/**
 * Every signal that alerts at the most sensitive setting today (each channel then applies its own): the
 * counts read today against their stored days, and the top pages' last 24 hours against their median day.
 * Signals without evidence today are skipped (there is nothing to show or fix).
 */
export function findCandidates(
  days: readonly DaySignals[],
  today: DaySignals,
  evidenceFor: (kind: SignalKind, key: string) => Evidence | undefined,
): Candidate[] {
  const sorted = [...days].sort((a, b) => (a.day < b.day ? -1 : 1));
  const candidates: Candidate[] = [];
  const consider = (kind: SignalKind, key: string, comparison: Comparison) => {
    if (!isAlarming(comparison, 'high')) return;
    const id = signalId(kind, key);
    const found = evidenceFor(kind, key);
    if (!found) return;
    // A traffic alert's Fix names the drop (the page's 👎 row alone would say nothing of it).
    const row: Evidence =
      kind === 'traffic' && found.kind === 'page'
        ? { ...found, viewsDrop: { today: comparison.today, median: comparison.expected } }
        : found;
    const trend: TrendPoint[] = sorted.flatMap((day) => {
      const value = valueOn(day, kind, key);
      return value === undefined ? [] : [{ day: day.day, value }];
    });
    trend.push({ day: today.day, value: comparison.today, today: true });
    candidates.push({ kind, key, signalId: id, comparison, trend, evidence: row });
  };
  for (const kind of ['search', 'page', 'question'] as const) {
    for (const [key, count] of Object.entries(today.counts[kind])) {
      consider(kind, key, compareCount(count, historyOf(kind, key, sorted)));
    }
  }
  if (!today.partial.includes('traffic')) {
    for (const key of topPages(sorted)) {
      consider(
        'traffic',
        key,
        compareTraffic(today.counts.traffic[key] ?? 0, historyOf('traffic', key, sorted)),
      );
    }
  }
  return candidates.sort((a, b) => a.comparison.pValue - b.comparison.pValue);
}

/** The pages with the highest median day, at least the most sensitive setting's minimum. */
function topPages(days: readonly DaySignals[]): string[] {
  const keys = new Set(days.flatMap((day) => Object.keys(day.counts.traffic)));
  return [...keys]
    .map((key) => ({ key, typical: median(historyOf('traffic', key, days)) }))
    .filter((page) => page.typical >= THRESHOLDS.high.minMedianViews)
    .sort((a, b) => b.typical - a.typical)
    .slice(0, TOP_PAGES)
    .map((page) => page.key);
}

/** The candidates that alert at one channel's sensitivity. */
export function alarmingAt(candidates: readonly Candidate[], sensitivity: Sensitivity): Candidate[] {
  return candidates.filter((c) => isAlarming(c.comparison, sensitivity));
}
