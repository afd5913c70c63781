import { cleanUntrusted } from '../../common/untrusted-text.js';
import type { ChartMissing } from '../bucket-reads.js';
import {
  type Evidence,
  type EvidenceKind,
  type HealthRange,
  normalisePath,
  normaliseQuestion,
  type PageEvidence,
  type QuestionEvidence,
  type SearchEvidence,
} from './evidence.js';
import type { HealthTrend } from './health-trend.js';
import type {
  AssistantConversation,
  FeedbackEntry,
  HealthWindow,
  PageFeedbackRow,
  SearchRow,
} from './ports.js';

export const TOP_DEFAULT = 5;
export const TOP_MAX = 25;
/** Comments shown (and handed to the agent) per flagged page. */
export const COMMENTS_PER_PAGE = 3;

export interface HealthSection<E extends Evidence> {
  /** The first `top` rows, ranked. */
  rows: E[];
  /** How many rows qualified before the cut to `top`. */
  total: number;
}

export interface HealthReport {
  range: HealthRange;
  top: number;
  totalSearches: number;
  searches: HealthSection<SearchEvidence>;
  pages: HealthSection<PageEvidence>;
  questions: HealthSection<QuestionEvidence>;
  /** Sections whose source rows may be incomplete (page cap, or by-page's single page). */
  partial: HealthWindow['partial'];
  /** The project to name on the report: set only when several projects are configured. */
  project?: string;
  /** Each row's evidence id in the evidence store (fix buttons carry only these), by section and rank. */
  refs?: Record<EvidenceKind, string[]>;
  /** Daily counts of the three signals for the chart; absent when they could not be read. */
  trend?: HealthTrend;
  /** Why a report that should have a chart has none: the analytics budget's reserve, or a failed read. */
  chartMissing?: ChartMissing;
}

/** `top N`, 1–25, default 5: anything else is clamped rather than refused (the grammar validates input). */
export function clampTop(top: number | undefined): number {
  if (top === undefined || !Number.isFinite(top)) return TOP_DEFAULT;
  return Math.min(TOP_MAX, Math.max(1, Math.trunc(top)));
}

/** The three sections of `/docs-health` from one fetched window. Pure: same rows, same report. */
export function buildHealthReport(window: HealthWindow, options: { top?: number } = {}): HealthReport {
  const top = clampTop(options.top);
  // Days, also when the window was asked for as local midnights (`2026-01-05T00:00:00+13:00`, weekly posts).
  const range = { from: window.dateFrom.slice(0, 10), toExclusive: window.dateTo.slice(0, 10) };
  const searches = searchGaps(window.searches, window.totalSearches, range);
  const pages = flaggedPages(window.pages, window.feedback, range);
  const questions = openQuestions(window.conversations, range);
  return {
    range,
    top,
    totalSearches: window.totalSearches,
    searches: { rows: searches.slice(0, top), total: searches.length },
    pages: { rows: pages.slice(0, top), total: pages.length },
    questions: { rows: questions.slice(0, top), total: questions.length },
    partial: window.partial,
  };
}

/** Searches that found nothing: no clicked page or a click-through of 0, most hits first. */
export function searchGaps(rows: SearchRow[], totalSearches: number, range: HealthRange): SearchEvidence[] {
  return rows
    .map((row) => ({ row, query: cleanUntrusted(row.searchQuery) }))
    .filter(({ row, query }) => query.text.trim() !== '' && (!row.topClickedPage || row.ctr === 0))
    .map(({ row, query }) => ({
      kind: 'search' as const,
      query: query.text,
      hits: row.hits,
      ctr: row.ctr,
      share: totalSearches > 0 ? row.hits / totalSearches : undefined,
      ...removedField(query.removed),
      range,
    }))
    .sort((a, b) => b.hits - a.hits || a.query.localeCompare(b.query));
}

/** Pages with at least one 👎, most 👎 first, each with its latest comments (newest first). */
export function flaggedPages(
  rows: PageFeedbackRow[],
  feedback: FeedbackEntry[],
  range: HealthRange,
): PageEvidence[] {
  const comments = latestComments(feedback);
  const byPath = new Map<string, PageEvidence>();
  for (const row of rows) {
    if (!(row.thumbsDown > 0)) continue;
    const path = cleanUntrusted(row.path);
    const key = normalisePath(path.text);
    const seen = byPath.get(key);
    // The same page under two spellings (`/a/` and `/a`) is one page: its counts add up.
    if (seen) {
      seen.thumbsDown += row.thumbsDown;
      seen.thumbsUp += row.thumbsUp;
      continue;
    }
    const pageComments = comments.get(key);
    byPath.set(key, {
      kind: 'page',
      path: path.text,
      thumbsDown: row.thumbsDown,
      thumbsUp: row.thumbsUp,
      comments: pageComments?.texts ?? [],
      ...removedField(path.removed + (pageComments?.removed ?? 0)),
      range,
    });
  }
  return [...byPath.values()].sort(
    (a, b) => b.thumbsDown - a.thumbsDown || a.thumbsUp - b.thumbsUp || a.path.localeCompare(b.path),
  );
}

/** Absent when nothing was removed, so clean evidence keeps its old shape. */
const removedField = (removed: number) => (removed > 0 ? { removed } : {});

function latestComments(feedback: FeedbackEntry[]): Map<string, { texts: string[]; removed: number }> {
  const withText = feedback
    .map((entry) => ({ entry, clean: cleanUntrusted(entry.comment ?? '') }))
    .map(({ entry, clean }) => ({ entry, text: clean.text.trim(), removed: clean.removed }))
    .filter(({ text }) => text !== '')
    // ISO timestamps sort as text; entries without one go last.
    .sort((a, b) => (b.entry.createdAt ?? '').localeCompare(a.entry.createdAt ?? ''));
  const byPath = new Map<string, { texts: string[]; removed: number }>();
  for (const { entry, text, removed } of withText) {
    const key = normalisePath(cleanUntrusted(entry.path).text);
    const list = byPath.get(key) ?? { texts: [], removed: 0 };
    if (list.texts.length < COMMENTS_PER_PAGE && !list.texts.includes(text)) {
      list.texts.push(text);
      list.removed += removed;
    }
    byPath.set(key, list);
  }
  return byPath;
}

/** Unanswered questions, each counted once however it was typed, most asked first. */
export function openQuestions(
  conversations: AssistantConversation[],
  range: HealthRange,
): QuestionEvidence[] {
  const byKey = new Map<string, { wording: string; removed: number; at: string; asked: number }>();
  for (const c of conversations) {
    if (c.resolutionStatus !== 'unanswered') continue;
    const query = cleanUntrusted(c.query);
    const key = normaliseQuestion(query.text);
    if (key === '') continue;
    const at = c.timestamp ?? '';
    const seen = byKey.get(key);
    const wording = { wording: query.text.replace(/\s+/g, ' ').trim(), removed: query.removed };
    if (!seen) byKey.set(key, { ...wording, at, asked: 1 });
    else {
      seen.asked += 1;
      // The most recent wording is shown: it is how readers ask today.
      if (at > seen.at) Object.assign(seen, { ...wording, at });
    }
  }
  return [...byKey.values()]
    .map(({ wording, removed, asked }) => ({
      kind: 'question' as const,
      question: wording,
      asked,
      ...removedField(removed),
      range,
    }))
    .sort((a, b) => b.asked - a.asked || a.question.localeCompare(b.question));
}
