/**
 * Finds the bot's own posts by the key in their message metadata: how a retry learns whether an earlier
 * attempt landed, and how duplicates are found. Slack answers conversations.history / replies a page at a
 * time (newest first in a channel, oldest first in a thread), so a read follows the cursor through every
 * message of its window, not just the first page: in a busy channel or a long thread the post looked for is
 * rarely on it. The window is narrowed to the records' own (`oldest`/`latest`, inclusive) and bounded
 * (`maxPages`); each page is read through `read`, which paces and retries it like any other read.
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
  latest: string;
  inclusive: true;
  include_all_metadata: true;
  limit: number;
  cursor?: string;
}

/**
 * One paced read of one page (the caller owns pacing and retries). `args` is called when the read's slot
 * has come, right before the call: a batched read fixes its window then, with everyone who joined it. It
 * resolves undefined when the read is not needed after all (then no call is made and undefined resolves).
 */
export type ReadPage = (
  method: HistoryMethod,
  channel: string,
  args: () => Promise<PageArgs | undefined>,
  /** `reply`: a look-up (a message not yet confirmed); `refresh`: a sweep for late copies, which may wait. */
  priority?: 'reply' | 'refresh',
) => Promise<HistoryPage | undefined>;

/** A conversation: a thread, or a channel's top level (`threadTs` null). */
export interface Conversation {
  channel: string;
  threadTs: string | null;
}

export interface PostedQuery extends Conversation {
  /** The dedupe key the post carries in its metadata. */
  key: string;
  /** When the delivery was recorded: nothing older can be one of its copies. */
  sinceMs: number;
  /** The metadata `event_type` the bot's posts carry. */
  eventType: string;
}

export interface LookupOptions {
  /** Messages per page (Slack recommends at most 200; a distributed app gets 15). */
  pageSize?: number;
  /** Pages read at most: a look-up never walks an unbounded history. */
  maxPages?: number;
  /** Told when the bound stopped the look-up before the end of the window (a copy may be missed). */
  onTruncated?: (pages: number) => void;
  now?: () => number;
  /** The reads' place in the method's queue (default `reply`). */
  priority?: 'reply' | 'refresh';
}

/** Clock skew between this machine and Slack's timestamps: the window is this much wider each side. */
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
  const copies = await readCopies(read, query, async () => query.sinceMs, query.eventType, options);
  return copies?.get(query.key) ?? [];
}

/**
 * One read of a conversation's window: every post of the bot (`eventType`) in it, by key, each key's copies
 * oldest first. `sinceMs` is asked when the read starts (the earliest record of everyone waiting on it;
 * undefined: the read is not needed, and undefined resolves); the window ends now (both ends widened by the
 * clock-skew margin, inclusive).
 */
export async function readCopies(
  read: ReadPage,
  conversation: Conversation,
  sinceMs: () => Promise<number | undefined>,
  eventType: string,
  options: LookupOptions = {},
): Promise<Map<string, string[]> | undefined> {
  const pageSize = options.pageSize ?? LOOKUP_PAGE_SIZE;
  const maxPages = options.maxPages ?? LOOKUP_MAX_PAGES;
  const now = options.now ?? Date.now;
  const method: HistoryMethod = conversation.threadTs ? 'conversations.replies' : 'conversations.history';
  let window: Pick<PageArgs, 'oldest' | 'latest'> | undefined;
  const found = new Map<string, Set<string>>();
  let cursor: string | undefined;
  for (let page = 1; ; page++) {
    const result = await read(
      method,
      conversation.channel,
      async () => {
        // Fixed by the first page's slot; later pages follow the cursor within it.
        if (!window) {
          const since = await sinceMs();
          if (since === undefined) return undefined;
          window = {
            oldest: secondsOf(since - LOOKUP_MARGIN_MS),
            latest: secondsOf(now() + LOOKUP_MARGIN_MS),
          };
        }
        return {
          channel: conversation.channel,
          ...(conversation.threadTs ? { ts: conversation.threadTs } : {}),
          ...window,
          inclusive: true,
          include_all_metadata: true,
          limit: pageSize,
          ...(cursor ? { cursor } : {}),
        };
      },
      options.priority ?? 'reply',
    );
    if (!result) return undefined;
    for (const message of (result.messages ?? []) as MetadataMessage[]) {
      const key = message.metadata?.event_payload?.key;
      if (typeof message.ts !== 'string' || message.metadata?.event_type !== eventType) continue;
      if (typeof key !== 'string') continue;
      const copies = found.get(key) ?? new Set<string>();
      copies.add(message.ts);
      found.set(key, copies);
    }
    cursor = result.response_metadata?.next_cursor || undefined;
    if (!cursor) break;
    if (page >= maxPages) {
      options.onTruncated?.(page);
      break;
    }
  }
  return new Map([...found].map(([key, ts]) => [key, [...ts].sort((a, b) => Number(a) - Number(b))]));
}

function secondsOf(ms: number): string {
  return (Math.max(0, ms) / 1000).toFixed(6);
}
