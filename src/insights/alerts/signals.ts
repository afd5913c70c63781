import { type Evidence, evidenceKey, normalisePath } from '../health/evidence.js';
import type { HealthWindow } from '../health/ports.js';
import { flaggedPages, openQuestions, searchGaps } from '../health/report.js';
import type { PageViewRow } from '../ports.js';

/**
 * The four signals an alert watches: a search term that found nothing (its searches), a page's 👎, an
 * unanswered assistant question theme (its askings) and a top page's views (the one that may collapse).
 */
export type SignalKind = 'search' | 'page' | 'question' | 'traffic';
export const SIGNAL_KINDS: readonly SignalKind[] = ['search', 'page', 'question', 'traffic'];

/** Keys kept per kind per day: the busiest, so a stored day stays small however many terms readers typed. */
export const MAX_KEYS_PER_KIND = 500;
/** Keys longer than this are cut: they are the cleaned reader text, already capped, kept shorter here. */
const MAX_KEY_CHARS = 300;

/** One day's count of every signal, by its key (JSON-able: stored per project and day). */
export interface DaySignals {
  day: string;
  counts: Record<SignalKind, Record<string, number>>;
  /** Kinds whose rows may be incomplete that day (a key absent from them is unknown, not 0). */
  partial: SignalKind[];
}

/** `kind:key`: one signal, the same across days, channels and replicas. */
export function signalId(kind: SignalKind, key: string): string {
  return `${kind}:${key}`;
}

export const cutKey = (key: string) => Array.from(key).slice(0, MAX_KEY_CHARS).join('');

function topCounts(entries: Array<[string, number]>): Record<string, number> {
  const merged = new Map<string, number>();
  for (const [key, value] of entries) {
    if (!(Number.isFinite(value) && value > 0)) continue;
    const k = cutKey(key);
    merged.set(k, (merged.get(k) ?? 0) + value);
  }
  const top = [...merged].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, MAX_KEYS_PER_KIND);
  return Object.fromEntries(top);
}

/** The evidence of one health window, as `/docs-health` builds it (reader text cleaned the same way). */
export function windowEvidence(window: HealthWindow): {
  search: Evidence[];
  page: Evidence[];
  question: Evidence[];
} {
  const range = { from: window.dateFrom.slice(0, 10), toExclusive: window.dateTo.slice(0, 10) };
  return {
    search: searchGaps(window.searches, window.totalSearches, range),
    page: flaggedPages(window.pages, window.feedback, range),
    question: openQuestions(window.conversations, range),
  };
}

/** A count of each evidence row (searches, 👎, askings). */
export function evidenceCount(evidence: Evidence): number {
  switch (evidence.kind) {
    case 'search':
      return evidence.hits;
    case 'page':
      return evidence.thumbsDown;
    case 'question':
      return evidence.asked;
  }
}

/** One day's signals from its health window and its page views. */
export function daySignals(
  day: string,
  window: HealthWindow,
  views: { pages: PageViewRow[]; partial: boolean },
): DaySignals {
  const evidence = windowEvidence(window);
  const counts = (rows: Evidence[]) =>
    topCounts(rows.map((row) => [evidenceKey(row), evidenceCount(row)] as [string, number]));
  const partial: SignalKind[] = [];
  if (window.partial.includes('searches')) partial.push('search');
  if (window.partial.includes('pages')) partial.push('page');
  if (window.partial.includes('conversations')) partial.push('question');
  if (views.partial) partial.push('traffic');
  return {
    day,
    counts: {
      search: counts(evidence.search),
      page: counts(evidence.page),
      question: counts(evidence.question),
      traffic: topCounts(views.pages.map((row) => [normalisePath(row.path), row.total])),
    },
    partial,
  };
}

/**
 * A signal's count on one stored day. A day that did not list it counts 0 when that day was complete; a day
 * cut to its busiest keys counts its smallest kept value (an upper bound: the baseline errs high, towards
 * fewer alerts); a partial day says nothing (undefined).
 */
export function valueOn(day: DaySignals, kind: SignalKind, key: string): number | undefined {
  const value = day.counts[kind][key];
  if (value !== undefined) return value;
  if (day.partial.includes(kind)) return undefined;
  const kept = Object.values(day.counts[kind]);
  return kept.length >= MAX_KEYS_PER_KIND ? Math.min(...kept) : 0;
}

/** A signal's daily history over the stored days (see `valueOn`). */
export function historyOf(kind: SignalKind, key: string, days: readonly DaySignals[]): number[] {
  return days.map((day) => valueOn(day, kind, key)).filter((v): v is number => v !== undefined);
}
