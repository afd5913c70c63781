/** What `/docs-health` reads from the docs platform's analytics (structurally, `DocsApiClient` fits). */

export interface HealthWindowQuery {
  dateFrom: string;
  /** Exclusive, as the API defines it. */
  dateTo: string;
  limit: number;
  cursor?: string;
}

export interface SearchRow {
  searchQuery: string;
  hits: number;
  ctr: number;
  topClickedPage?: string | null;
  lastSearchedAt?: string | null;
}

export interface PageFeedbackRow {
  path: string;
  thumbsUp: number;
  thumbsDown: number;
}

export interface FeedbackEntry {
  id: string;
  path: string;
  comment?: string | null;
  createdAt?: string | null;
}

export interface AssistantConversation {
  id: string;
  query: string;
  timestamp?: string | null;
  resolutionStatus?: string | null;
}

export interface HealthApi {
  getSearches(
    q: HealthWindowQuery,
  ): Promise<{ searches: SearchRow[]; totalSearches: number; nextCursor?: string | null }>;
  getFeedbackByPage(
    q: Omit<HealthWindowQuery, 'cursor'>,
  ): Promise<{ feedback: PageFeedbackRow[]; hasMore: boolean }>;
  getFeedback(
    q: HealthWindowQuery,
  ): Promise<{ feedback: FeedbackEntry[]; nextCursor?: string | null; hasMore?: boolean }>;
  getAssistantConversations(
    q: HealthWindowQuery,
  ): Promise<{ conversations: AssistantConversation[]; nextCursor?: string | null; hasMore?: boolean }>;
}

/** Everything one window holds, as fetched (rows in the API's order; the model sorts). */
export interface HealthWindow {
  dateFrom: string;
  dateTo: string;
  searches: SearchRow[];
  totalSearches: number;
  pages: PageFeedbackRow[];
  feedback: FeedbackEntry[];
  conversations: AssistantConversation[];
  /** Endpoints whose rows may be incomplete (page cap, stalled cursor, or by-page's single page). */
  partial: Array<'searches' | 'pages' | 'feedback' | 'conversations'>;
  requests: number;
}
