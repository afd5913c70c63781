import type { ImpactModel } from './impact.js';

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
  /** `contextual` entries carry `helpful`: `false` is a 👎. */
  source?: string | null;
  helpful?: boolean | null;
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

/**
 * A job started from a /docs-health gap that ended with a pull request: what the impact post needs,
 * remembered until `HEALTH_IMPACT_DAYS` have passed. JSON-able (it waits in Redis in Redis mode).
 */
export interface ImpactCheck {
  /** The agent job: at most one check (and one post) per job. */
  jobId: string;
  channelId: string;
  /** The job's thread, where the post goes. */
  threadTs: string;
  /** The evidence, as `encodeEvidenceRef` wrote it on the job record. */
  evidenceRef: string;
  /** The job's docs project; absent on checks enqueued before several projects (= DOCS_PROJECT_ID). */
  projectId?: string;
  prLink: string;
  /**
   * When the change went live (ms): the merge (`countedFrom: 'merge'`), else when the bot saw the PR. The
   * "after" window is the days after this day.
   */
  prSeenAt: number;
  /** What `prSeenAt` is: the merge (GitHub access) or the PR's day (no GitHub access; absent = `pr`). */
  countedFrom?: 'pr' | 'merge';
  /** When the PR was opened (ms), with `merge`: the "before" window is the days before this day. */
  openedAt?: number;
}

/**
 * Holds each check until it is due: an in-process timer in memory mode (lost on restart), a BullMQ delayed
 * job in Redis mode (kept across restarts, run by one replica).
 */
export interface ImpactQueue {
  /**
   * Registers the handler: it resolves null when the check is done (posted or dropped), or the delay
   * before trying again; `attempt` counts earlier tries of this check.
   */
  start(handler: (check: ImpactCheck, attempt: number) => Promise<number | null>): void;
  /** Enqueues the check once per job: enqueueing the same job again (any replica, any time) is a no-op. */
  enqueue(check: ImpactCheck, dueAt: number): Promise<void>;
  /** Stops running checks and waits for a running one; pending checks stay (in Redis) for the next start. */
  close(): Promise<void>;
}

/** Posts the impact in the job's thread, once per job (a claim, so no retry or replica posts it twice). */
export interface ImpactPublisher {
  /** Rejects for failures worth retrying (timeouts, Slack down); `undeliverable` when Slack refuses for good. */
  postImpact(check: ImpactCheck, model: ImpactModel): Promise<'posted' | 'already_posted' | 'undeliverable'>;
}

/**
 * The evidence behind a report row's fix button, kept server-side under a short random id (the button value
 * and the modal's `private_metadata` carry only the id: quote-heavy evidence double-encoded exceeded Slack's
 * 3,000). Memory (lost on restart) or Redis (shared by replicas); entries expire after `ttlMs`.
 */
export interface EvidenceStore {
  put(id: string, evidenceJson: string, ttlMs: number): Promise<void>;
  /** The JSON stored under `id`, or undefined when unknown or expired. */
  get(id: string): Promise<string | undefined>;
}
