import { AppError } from '../common/errors.js';
import { KeyedPacer } from '../common/keyed-pacer.js';

/**
 * Who waits for a Slack call, most urgent first: a person who just asked (cards, answers, reactions), a
 * job's terminal reply or notice, then card refreshes (which coalesce, so they lose nothing by waiting).
 */
export type SlackPriority = 'user' | 'reply' | 'refresh';
const RANK: Record<SlackPriority, number> = { user: 0, reply: 1, refresh: 2 };

/**
 * Slack's documented per-method limits per workspace (calls per minute; the tiers are "N+ per minute").
 * chat.postMessage is limited per channel instead (about one per second, short bursts): see
 * `channelPostIntervalMs`. A method missing here is paced as Tier 3.
 */
export const METHOD_TIERS: Readonly<Record<string, number>> = {
  'chat.update': 50,
  'chat.delete': 50,
  'chat.postEphemeral': 100,
  'reactions.add': 50,
  'conversations.replies': 50,
  'conversations.history': 50,
  'conversations.join': 50,
  'users.info': 100,
  'views.publish': 100,
  'views.open': 100,
  'files.uploadV2': 20,
};

export interface PacingOptions {
  /** Rate as a percentage of the documented tier (100 = the tier's minimum); 0 turns tier pacing off. */
  tierRatePercent?: number;
  /** chat.postMessage per channel: one per interval after a burst; 0 turns it off. */
  channelPostIntervalMs?: number;
  channelPostBurst?: number;
}

/**
 * No bursts of our own: Slack tolerates short bursts, and leaving that headroom unused absorbs event-loop
 * stalls and network jitter that would otherwise bunch paced calls into one of Slack's slots (a 429).
 */
const TIER_BURST = 1;
/** Paced a little below the tier so network jitter never bunches two calls into one of Slack's slots. */
const MARGIN = 1.05;

/**
 * Client-side pacing of every Web API method the bot calls, so it stays inside Slack's tiers instead of
 * collecting 429s. In-process: one gateway holds one bot token, i.e. one workspace.
 */
export class SlackPacing {
  private readonly methods = new Map<string, KeyedPacer>();
  private readonly posts: KeyedPacer | undefined;
  private readonly percent: number;
  private closed = false;

  constructor(options: PacingOptions) {
    this.percent = options.tierRatePercent ?? 100;
    const interval = options.channelPostIntervalMs ?? 0;
    this.posts = interval > 0 ? new KeyedPacer(interval * MARGIN, options.channelPostBurst ?? 2) : undefined;
  }

  run<T>(method: string, channel: string | undefined, priority: SlackPriority, work: () => Promise<T>) {
    const { pacer, key } = this.pacerOf(method, channel);
    if (this.closed) return Promise.reject(shuttingDown());
    return pacer ? pacer.run(key, work, RANK[priority]) : work();
  }

  /**
   * Slack said 429: nothing more of this method (this channel, for posts) until Retry-After has passed.
   * False when the method is not paced (the caller has to wait itself).
   */
  holdOff(method: string, channel: string | undefined, retryAfterMs: number): boolean {
    const { pacer, key } = this.pacerOf(method, channel);
    pacer?.holdUntil(key, Date.now() + retryAfterMs);
    return pacer !== undefined;
  }

  close(): void {
    this.closed = true;
    this.posts?.close();
    for (const pacer of this.methods.values()) pacer.close();
  }

  private pacerOf(method: string, channel: string | undefined): { pacer?: KeyedPacer; key: string } {
    if (method === 'chat.postMessage') return { pacer: this.posts, key: channel ?? '' };
    if (this.percent <= 0) return { key: method };
    let pacer = this.methods.get(method);
    if (!pacer) {
      const perMinute = ((METHOD_TIERS[method] ?? 50) * this.percent) / 100;
      pacer = new KeyedPacer((60_000 / perMinute) * MARGIN, TIER_BURST);
      this.methods.set(method, pacer);
    }
    return { pacer, key: method };
  }
}

function shuttingDown(): AppError {
  return new AppError('shutting_down', 'The bot is shutting down; the Slack call was not sent');
}
