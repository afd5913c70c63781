import { AnalyticsBudgetError, type AnalyticsKey, type AnalyticsSource } from '../analytics-source.js';
import { type CursorPaged, fetchAllCursorPages } from './cursor-paging.js';
import type { HealthApi, HealthWindow, PageFeedbackRow, SearchRow } from './ports.js';

/** The spec's maximum `limit` of each endpoint (analytics.openapi.json): the fewest budget units. */
export const HEALTH_LIMITS = { searches: 100, feedbackByPage: 100, feedback: 100, assistant: 1000 } as const;

export interface HealthFetchOptions {
  /** Page cap per cursor-paged endpoint. */
  maxPages: number;
  /** The shared budget, cache and in-flight sharing of every analytics endpoint. */
  source: Pick<AnalyticsSource, 'read'>;
  projectId: string;
  /** Only these endpoints (the impact check reads one or two); every one when absent. */
  parts?: HealthPart[];
  /** How long the reads are cached (default: the source's TTL; for good for a past window). */
  ttlMs?: number;
}

export type HealthPart = 'searches' | 'pages' | 'feedback' | 'conversations';
const ALL_PARTS: HealthPart[] = ['searches', 'pages', 'feedback', 'conversations'];

/**
 * The four endpoints (or `parts` of them) of one window `[dateFrom, dateTo)`, each at its maximum page
 * size and each read through the analytics source. By-page has no cursor in the spec: one call, `partial`
 * when it says `hasMore`. The window's minimum (one unit per endpoint read) is the first read's estimate,
 * so an exhausted budget costs nothing and says when it frees up.
 */
export async function fetchHealthWindow(
  api: HealthApi,
  window: { dateFrom: string; dateTo: string },
  options: HealthFetchOptions,
): Promise<HealthWindow> {
  const { source, maxPages } = options;
  const key = (endpoint: string, limit: number): AnalyticsKey => ({
    endpoint,
    projectId: options.projectId,
    range: `${window.dateFrom}..${window.dateTo}`,
    params: { limit, maxPages },
  });
  const partial: HealthWindow['partial'] = [];
  const parts = options.parts ?? ALL_PARTS;
  // The first read's estimate covers one request per endpoint this window reads.
  let estimate = parts.length;
  const first = () => {
    const units = estimate;
    estimate = 1;
    return units;
  };
  const none = { rows: [], requests: 0, partial: false };
  const keep = options.ttlMs === undefined ? {} : { ttlMs: options.ttlMs };

  const searches = !parts.includes('searches')
    ? { ...none, totalSearches: 0 }
    : await source.read(
        key('searches', HEALTH_LIMITS.searches),
        first(),
        async (budget): Promise<CursorPaged<SearchRow> & { totalSearches: number }> => {
          let totalSearches = 0;
          const paged = await fetchAllCursorPages(
            async (cursor) => {
              const page = await api.getSearches({
                ...window,
                limit: HEALTH_LIMITS.searches,
                ...cursorOf(cursor),
              });
              totalSearches = page.totalSearches;
              return { rows: page.searches, nextCursor: page.nextCursor };
            },
            { maxPages, budget, keyOf: (row) => row.searchQuery },
          );
          return { ...paged, totalSearches };
        },
        keep,
      );
  if (searches.partial) partial.push('searches');

  const byPage = !parts.includes('pages')
    ? { feedback: [], hasMore: false, requests: 0 }
    : await source.read(
        key('feedback-by-page', HEALTH_LIMITS.feedbackByPage),
        first(),
        async (budget): Promise<{ feedback: PageFeedbackRow[]; hasMore: boolean; requests: number }> => {
          const slot = await budget.take();
          if (!slot.ok) throw new AnalyticsBudgetError(slot.retryAfterMs);
          const page = await api.getFeedbackByPage({ ...window, limit: HEALTH_LIMITS.feedbackByPage });
          return { feedback: page.feedback, hasMore: page.hasMore, requests: 1 };
        },
        keep,
      );
  if (byPage.hasMore) partial.push('pages');

  const feedback = !parts.includes('feedback')
    ? none
    : await source.read(
        key('feedback', HEALTH_LIMITS.feedback),
        first(),
        (budget) =>
          fetchAllCursorPages(
            async (cursor) => {
              const page = await api.getFeedback({
                ...window,
                limit: HEALTH_LIMITS.feedback,
                ...cursorOf(cursor),
              });
              return { rows: page.feedback, nextCursor: page.nextCursor, hasMore: page.hasMore };
            },
            { maxPages, budget, keyOf: (row) => row.id },
          ),
        keep,
      );
  if (feedback.partial) partial.push('feedback');

  const conversations = !parts.includes('conversations')
    ? none
    : await source.read(
        key('assistant', HEALTH_LIMITS.assistant),
        first(),
        (budget) =>
          fetchAllCursorPages(
            async (cursor) => {
              const page = await api.getAssistantConversations({
                ...window,
                limit: HEALTH_LIMITS.assistant,
                ...cursorOf(cursor),
              });
              return { rows: page.conversations, nextCursor: page.nextCursor, hasMore: page.hasMore };
            },
            { maxPages, budget, keyOf: (row) => row.id },
          ),
        keep,
      );
  if (conversations.partial) partial.push('conversations');

  return {
    ...window,
    searches: searches.rows,
    totalSearches: searches.totalSearches,
    pages: byPage.feedback,
    feedback: feedback.rows,
    conversations: conversations.rows,
    partial,
    requests: searches.requests + (byPage.requests ?? 1) + feedback.requests + conversations.requests,
  };
}

const cursorOf = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });
