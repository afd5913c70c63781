import { describeError } from '../common/errors.js';
import { HistoryReads } from './history-reads.js';
import { LOOKUP_MAX_PAGES, LOOKUP_PAGE_SIZE, type ReadPage } from './message-lookup.js';
import { SlackCalls } from './slack-calls.js';
import { HISTORY_PAGE_LIMIT } from './slack-pacing.js';

/** Metadata type on every message the bot posts: lets a retry find out whether an earlier attempt landed. */
export const MESSAGE_EVENT_TYPE = 'docs_agent_message';

/** A read of one page of a conversation around a message (`ts`: the thread, for replies). */
export interface HistoryPageArgs {
  channel: string;
  ts?: string;
  oldest?: string;
  latest?: string;
  inclusive?: boolean;
  limit?: number;
}

/**
 * The gateway's history reads (conversations.history / .replies), which a distributed app may make once a
 * minute per workspace (SLACK_APP_TIER): every page capped to the tier's, look-ups and sweeps batched per
 * conversation (HistoryReads, answers shared by the replicas), and single reads either in their turn or
 * only if the slot is free now.
 */
export class SlackReads extends SlackCalls {
  /** Look-ups and sweeps of one conversation share its reads (scarce for a distributed app). */
  private readonly reads = this.historyReads();

  /**
   * One page of a channel's history or a thread's replies (a job's source message, a form's context), its
   * `limit` capped to the tier's page. `now`: only if the method's slot is free now, else
   * `slack_budget_spent` (a form opens within 3 s); otherwise it waits its turn in the method's pace.
   */
  readPage(
    method: 'conversations.history' | 'conversations.replies',
    args: HistoryPageArgs,
    { now }: { now: boolean },
  ): Promise<{ messages?: unknown[]; has_more?: boolean }> {
    const tierPage = HISTORY_PAGE_LIMIT[this.options.appTier ?? 'internal'];
    const page = { ...args, limit: Math.min(args.limit ?? LOOKUP_PAGE_SIZE, tierPage) };
    const call = () =>
      method === 'conversations.replies' && page.ts
        ? this.client.conversations.replies({ ...page, ts: page.ts })
        : this.client.conversations.history(page);
    return now
      ? this.pacedNow(method, args.channel, call)
      : this.retrying(method, args.channel, 'user', call);
  }

  /**
   * Every copy the bot posted with this key since `sinceMs`, oldest first, from the first read of the
   * conversation made after it was asked; `lookup_pending` when that read did not come within the wait. A
   * `sweep` (late copies of a confirmed post) reads after every look-up waiting on the method.
   */
  protected postedCopies(
    channel: string,
    threadTs: string | null,
    key: string,
    sinceMs: number,
    purpose: 'lookup' | 'sweep' = 'lookup',
  ): Promise<string[]> {
    const query = { channel, threadTs, key, sinceMs };
    return this.reads.copies(query, this.options.lookupWaitMs ?? 10_000, purpose);
  }

  private historyReads(): HistoryReads {
    // Each page is retried like any read: a look-up that fails once would otherwise repost a message that
    // did land, or leave a duplicate the sweep could not see.
    const read: ReadPage = (method, channel, args, priority = 'reply') =>
      this.retrying(method, channel, priority, async () => {
        const page = await args();
        if (!page) return undefined;
        return method === 'conversations.replies' && page.ts
          ? this.client.conversations.replies({ ...page, ts: page.ts })
          : this.client.conversations.history(page);
      });
    const tier = this.options.appTier ?? 'internal';
    return new HistoryReads(read, MESSAGE_EVENT_TYPE, {
      pageSize: HISTORY_PAGE_LIMIT[tier],
      // A distributed app reads one page a minute: ten pages (150 messages) is ten minutes already.
      maxPages: tier === 'distributed' ? 10 : LOOKUP_MAX_PAGES,
      now: Date.now,
      shared: this.options.sharedSlots?.historyAnswers,
      onSharedFailure: (error) =>
        this.options.logger.debug({ error: describeError(error) }, 'shared history answers unavailable'),
      onTruncated: (pages) =>
        this.options.logger.warn({ pages }, 'look-up stopped at its page bound; a copy may be missed'),
    });
  }
}
