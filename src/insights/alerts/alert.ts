import type { Evidence } from '../health/evidence.js';
import type { Comparison, Sensitivity } from './rules.js';
import type { SignalKind } from './signals.js';

/** One day of a signal's trend (the chart of the last 28 days, today last). */
export interface TrendPoint {
  day: string;
  value: number;
  /** Today so far (counts) or the last 24 hours (traffic). */
  today?: boolean;
}

/** What an alert says: the signal, today against its baseline, the evidence, the trend and the Fix. */
export interface HealthAlert {
  channelId: string;
  kind: SignalKind;
  /** The signal's key: the cleaned search query, the page path or the question, as `/docs-health` cleans them. */
  key: string;
  signalId: string;
  comparison: Comparison;
  sensitivity: Sensitivity;
  /** The day judged (UTC). */
  day: string;
  trend: TrendPoint[];
  /** The row as `/docs-health` would show it (comments, share…), for the message and the Fix form. */
  evidence: Evidence;
  /** The Fix button's value: the evidence's id in the evidence store, or the evidence itself. */
  evidenceRef: string;
  /** Set when several docs projects are configured. */
  project?: string;
}
