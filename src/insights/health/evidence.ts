import { cleanUntrusted, collapseWhitespace, trimEndWhile } from '../../common/untrusted-text.js';

/** What a health-report row stands on: the gap it names and its figures over the report's window. */
export type Evidence = SearchEvidence | PageEvidence | QuestionEvidence;

export interface HealthRange {
  /** First day, `YYYY-MM-DD`. */
  from: string;
  /** Day after the last, `YYYY-MM-DD` (the API's exclusive `dateTo`). */
  toExclusive: string;
}

/** Reader text is cleaned (`cleanUntrusted`) when the report is built: how many invisible characters went. */
interface Cleaned {
  /** Invisible characters removed from this row's reader text; absent when none. */
  removed?: number;
}

export interface SearchEvidence extends Cleaned {
  kind: 'search';
  query: string;
  hits: number;
  /** Click-through rate, 0..1 as the API gives it. */
  ctr: number;
  /** Share of all searches in the window, 0..1; undefined when the API counted none. */
  share: number | undefined;
  range: HealthRange;
}

export interface PageEvidence extends Cleaned {
  kind: 'page';
  path: string;
  thumbsDown: number;
  thumbsUp: number;
  /** The latest readers' comments on the page, newest first (possibly none). */
  comments: string[];
  /** A docs-health alert on the page's traffic: its last 24 hours' views against its median day. */
  viewsDrop?: { today: number; median: number };
  range: HealthRange;
  /** From a docs-link unfurl: searches without results that land near the page (reader text, cleaned). */
  nearbySearches?: string[];
  /** From a docs-link unfurl: the page's views in the range and the range before it. */
  pageViews?: { current: ViewCounts; previous: ViewCounts };
}

export interface ViewCounts {
  human: number;
  ai: number;
}

export interface QuestionEvidence extends Cleaned {
  kind: 'question';
  /** The most recent wording of the question. */
  question: string;
  asked: number;
  range: HealthRange;
}

export type EvidenceKind = Evidence['kind'];

/** What identifies the gap across windows (the impact post measures the same thing again). */
export function evidenceKey(evidence: Evidence): string {
  switch (evidence.kind) {
    case 'search':
      return cleanUntrusted(evidence.query).text;
    case 'page':
      return normalisePath(evidence.path);
    case 'question':
      return normaliseQuestion(evidence.question);
  }
}

/**
 * One question however it was typed: trimmed, case-folded, whitespace collapsed and trailing `?`/`!`/`.`
 * dropped, so "How do I rotate keys?" and "how do i  rotate keys" count as one.
 */
export function normaliseQuestion(text: string): string {
  // Capped first; the trailing trim is a backwards scan (a `[\s?!.]+$` regex is quadratic on `"? "`×n + "x").
  const flat = collapseWhitespace(cleanUntrusted(text).text.normalize('NFKC').toLowerCase());
  return trimEndWhile(flat, (ch) => ch === ' ' || ch === '?' || ch === '!' || ch === '.');
}

/** Feedback entries carry "the path or URL" of a page: both become `/path` without a trailing slash. */
export function normalisePath(pathOrUrl: string): string {
  let path = cleanUntrusted(pathOrUrl).text.trim();
  if (/^https?:\/\//i.test(path) && URL.canParse(path)) path = new URL(path).pathname;
  if (!path.startsWith('/')) path = `/${path}`;
  // A backwards scan: `/\/+$/` is quadratic on many slashes followed by something else.
  return path.length > 1 ? trimEndWhile(path, (ch) => ch === '/') || '/' : path;
}
