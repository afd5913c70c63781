/** What one read of a conversation found: every copy of the bot's posts in its window, by key. */
export interface SharedAnswer {
  /** When the read started (the store's clock): it answers queries first asked before then. */
  startedAt: number;
  /** The earliest record its window covered. */
  sinceMs: number;
  copies: Record<string, string[]>;
}

/**
 * History reads shared by the replicas of a workspace (Redis): a look-up or sweep waiting on one replica is
 * answered by another replica's read, and a replica whose read would tell nothing new skips it (history is
 * read once a minute by a distributed app). Times are the store's clock, so replicas' clock skew does not
 * matter. Every method may reject (store down): callers then go on with what this process knows.
 */
export interface HistoryAnswers {
  /** The store's clock (ms). */
  now(): Promise<number>;
  /** When `key` was first asked about in `conversation` (the store's clock), recorded now if never. */
  firstAsked(conversation: string, key: string): Promise<number>;
  /** `key` was answered: the next question about it is a new one. */
  answered(conversation: string, key: string): Promise<void>;
  latest(conversation: string): Promise<SharedAnswer | undefined>;
  /** Keeps `answer` unless a read that started later is kept already. */
  put(conversation: string, answer: SharedAnswer): Promise<void>;
}
