/**
 * Finds the bot's own posts by the key in their message metadata: how a retry learns whether an earlier
 * attempt landed, and how duplicates are found. Slack answers conversations.history / replies a page at a
 * time (newest first in a channel, oldest first in a thread), so the look-up follows the cursor through
 * every message since the record was made, not just the first page: in a busy channel or a long thread
 * the post looked for is rarely on it. Bounded (`maxPages`); each page is read through `read`, which paces
 * and retries it like any other read.
 */

/** One page of conversations.history or conversations.replies, as the Web API answers it. */
export interface HistoryPage {
  messages?: unknown[];
  has_more?: boolean;
  response_metadata?: { next_cursor?: string };
}

export type HistoryMethod = 'conversations.history' | 'conversations.replies';

/** The arguments of one page's read (`ts` for a thread's replies). */
export interface PageArgs {
  channel: string;
  ts?: string;
  oldest: string;
  include_all_metadata: true;
  limit: number;
  cursor?: string;
}

/** One paced read of one page (the caller owns pacing and retries). */
export type ReadPage = (method: HistoryMethod, args: PageArgs) => Promise<HistoryPage>;

export interface PostedQuery {
  channel: string;
  /** The thread to look in, or null for the channel's top level. */
  threadTs: string | null;
  /** The dedupe key the post carries in its metadata. */
  key: string;
  /** When the delivery was recorded: nothing older can be one of its copies. */
  sinceMs: number;
  /** The metadata `event_type` the bot's posts carry. */
  eventType: string;
}

export interface LookupOptions {
  /** Messages per page (Slack recommends at most 200). */
  pageSize?: number;
  /** Pages read at most: a look-up never walks an unbounded history. */
  maxPages?: number;
  /** Told when the bound stopped the look-up before the end of the window (a copy may be missed). */
  onTruncated?: (pages: number) => void;
}

/** Clock skew between this machine and Slack's timestamps: the window starts this much earlier. */
export const LOOKUP_MARGIN_MS = 60_000;
export const LOOKUP_PAGE_SIZE = 200;
/** 25 pages of 200: 5,000 messages posted since the record was made. */
export const LOOKUP_MAX_PAGES = 25;

interface MetadataMessage {
  ts?: unknown;
  metadata?: { event_type?: unknown; event_payload?: { key?: unknown } };
}

/** Every copy posted with this key since the record was made, oldest first (ts order). */
export async function findPostedCopies(
  read: ReadPage,
  query: PostedQuery,
  options: LookupOptions = {},
): Promise<string[]> {
  const pageSize = options.pageSize ?? LOOKUP_PAGE_SIZE;
  const maxPages = options.maxPages ?? LOOKUP_MAX_PAGES;
  const oldest = ((query.sinceMs - LOOKUP_MARGIN_MS) / 1000).toFixed(6);
  const method: HistoryMethod = query.threadTs ? 'conversations.replies' : 'conversations.history';
  const base: PageArgs = {
    channel: query.channel,
    ...(query.threadTs ? { ts: query.threadTs } : {}),
    oldest,
    include_all_metadata: true,
    limit: pageSize,
  };
  const found = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const result = await read(method, cursor ? { ...base, cursor } : base);
    for (const message of (result.messages ?? []) as MetadataMessage[]) {
      if (
        typeof message.ts === 'string' &&
        message.metadata?.event_type === query.eventType &&
        message.metadata.event_payload?.key === query.key
      )
        found.add(message.ts);
    }
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
    if (page >= maxPages) {
      options.onTruncated?.(page);
      break;
    }
  }
  return [...found].sort((a, b) => Number(a) - Number(b));
}
