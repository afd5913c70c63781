import { AnalyticsBudgetError, type AnalyticsKey, type AnalyticsSource } from '../analytics-source.js';
import { type CursorPaged, fetchAllCursorPages } from './cursor-paging.js';
import type { HealthApi, HealthWindow, PageFeedbackRow, SearchRow } from './ports.js';

/** The spec's maximum `limit` of each endpoint (analytics.openapi.json): the fewest budget units. */
export const HEALTH_LIMITS = { searches: 100, feedbackByPage: 100, feedback: 100, assistant: 1000 } as const;

export interface HealthFetchOptions {
  /** Page cap per cursor-paged endpoint. */
  maxPages: number;
  /** The shared budget, cache and in-flight sharing of every analytics endpoint. */
  source: AnalyticsSource;
  projectId: string;
}

/** The least a window costs: one request per endpoint. */
const WINDOW_MINIMUM = 4;

/**
 * The four endpoints of one window `[dateFrom, dateTo)`, each at its maximum page size and each read
 * through the analytics source. By-page has no cursor in the spec: one call, `partial` when it says
 * `hasMore`. The whole window's minimum (4 units) is the first read's estimate, so an exhausted budget
 * costs nothing and says when it frees up.
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

  const searches = await source.read(
    key('searches', HEALTH_LIMITS.searches),
    WINDOW_MINIMUM,
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
  );
  if (searches.partial) partial.push('searches');

  const byPage = await source.read(
    key('feedback-by-page', HEALTH_LIMITS.feedbackByPage),
    1,
    async (budget): Promise<{ feedback: PageFeedbackRow[]; hasMore: boolean }> => {
      const slot = await budget.take();
      if (!slot.ok) throw new AnalyticsBudgetError(slot.retryAfterMs);
      const page = await api.getFeedbackByPage({ ...window, limit: HEALTH_LIMITS.feedbackByPage });
      return { feedback: page.feedback, hasMore: page.hasMore };
    },
  );
  if (byPage.hasMore) partial.push('pages');

  const feedback = await source.read(key('feedback', HEALTH_LIMITS.feedback), 1, (budget) =>
    fetchAllCursorPages(
      async (cursor) => {
        const page = await api.getFeedback({ ...window, limit: HEALTH_LIMITS.feedback, ...cursorOf(cursor) });
        return { rows: page.feedback, nextCursor: page.nextCursor, hasMore: page.hasMore };
      },
      { maxPages, budget, keyOf: (row) => row.id },
    ),
  );
  if (feedback.partial) partial.push('feedback');

  const conversations = await source.read(key('assistant', HEALTH_LIMITS.assistant), 1, (budget) =>
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
    requests: searches.requests + 1 + feedback.requests + conversations.requests,
  };
}

const cursorOf = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });
