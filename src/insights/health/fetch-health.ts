import type { HourlyQuota } from '../../shared/hourly-quota.js';
import { AnalyticsBudgetError } from '../page-views/fetch-page-views.js';
import { fetchAllCursorPages } from './cursor-paging.js';
import type { HealthApi, HealthWindow } from './ports.js';

/** The spec's maximum `limit` of each endpoint (analytics.openapi.json): the fewest budget units. */
export const HEALTH_LIMITS = { searches: 100, feedbackByPage: 100, feedback: 100, assistant: 1000 } as const;

export interface HealthFetchOptions {
  /** Page cap per cursor-paged endpoint. */
  maxPages: number;
  budget: HourlyQuota;
}

/**
 * The four endpoints of one window `[dateFrom, dateTo)`, each at its maximum page size. By-page has no
 * cursor in the spec: one call, `partial` when it says `hasMore`. The whole report's minimum (4 units) is
 * checked before the first call, so an exhausted budget costs nothing and says when it frees up.
 */
export async function fetchHealthWindow(
  api: HealthApi,
  window: { dateFrom: string; dateTo: string },
  options: HealthFetchOptions,
): Promise<HealthWindow> {
  const wait = await options.budget.waitTime(4);
  if (wait > 0) throw new AnalyticsBudgetError(wait);
  const partial: HealthWindow['partial'] = [];
  const { budget, maxPages } = options;
  let totalSearches = 0;
  const searches = await fetchAllCursorPages(
    async (cursor) => {
      const page = await api.getSearches({ ...window, limit: HEALTH_LIMITS.searches, ...cursorOf(cursor) });
      totalSearches = page.totalSearches;
      return { rows: page.searches, nextCursor: page.nextCursor };
    },
    { maxPages, budget, keyOf: (row) => row.searchQuery },
  );
  if (searches.partial) partial.push('searches');

  const slot = await budget.take();
  if (!slot.ok) throw new AnalyticsBudgetError(slot.retryAfterMs);
  const byPage = await api.getFeedbackByPage({ ...window, limit: HEALTH_LIMITS.feedbackByPage });
  if (byPage.hasMore) partial.push('pages');

  const feedback = await fetchAllCursorPages(
    async (cursor) => {
      const page = await api.getFeedback({ ...window, limit: HEALTH_LIMITS.feedback, ...cursorOf(cursor) });
      return { rows: page.feedback, nextCursor: page.nextCursor, hasMore: page.hasMore };
    },
    { maxPages, budget, keyOf: (row) => row.id },
  );
  if (feedback.partial) partial.push('feedback');

  const conversations = await fetchAllCursorPages(
    async (cursor) => {
      const page = await api.getAssistantConversations({
        ...window,
        limit: HEALTH_LIMITS.assistant,
        ...cursorOf(cursor),
      });
      return { rows: page.conversations, nextCursor: page.nextCursor, hasMore: page.hasMore };
    },
    { maxPages, budget, keyOf: (row) => row.id },
  );
  if (conversations.partial) partial.push('conversations');

  return {
    ...window,
    searches: searches.rows,
    totalSearches,
    pages: byPage.feedback,
    feedback: feedback.rows,
    conversations: conversations.rows,
    partial,
    requests: searches.requests + 1 + feedback.requests + conversations.requests,
  };
}

const cursorOf = (cursor: string | undefined) => (cursor === undefined ? {} : { cursor });
