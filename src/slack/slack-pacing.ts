import type { SlackAppTier } from '../common/config.js';
import { AppError } from '../common/errors.js';
import { KeyedPacer } from '../common/keyed-pacer.js';
import { LazyMap } from '../common/lazy-collections.js';
import type { SharedSlots } from '../common/shared-slots.js';

/**
 * Who waits for a Slack call, most urgent first: a person who just asked (cards, answers, reactions), a
 * job's terminal reply or notice, a card's final state, then intermediate card refreshes (which coalesce,
 * so they lose nothing by waiting).
 */
export type SlackPriority = 'user' | 'reply' | 'final' | 'refresh';
const RANK: Record<SlackPriority, number> = { user: 0, reply: 1, final: 2, refresh: 3 };

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
  'reactions.remove': 50,
  'conversations.replies': 50,
  'conversations.history': 50,
  'conversations.join': 50,
  'users.info': 100,
  'views.publish': 100,
  'views.open': 100,
  'files.uploadV2': 20,
};

/** Methods whose limits depend on the app's tier: Slack's 2025 change for non-Marketplace distributed apps. */
export const HISTORY_METHODS: ReadonlySet<string> = new Set([
  'conversations.history',
  'conversations.replies',
]);
/** conversations.history / .replies per minute per workspace, by tier (the same budget for each method). */
export const HISTORY_READS_PER_MINUTE: Readonly<Record<SlackAppTier, number>> = {
  internal: 50,
  marketplace: 50,
  distributed: 1,
};
/** Messages a history page may hold, by tier (Slack recommends at most 200; distributed apps get 15). */
export const HISTORY_PAGE_LIMIT: Readonly<Record<SlackAppTier, number>> = {
  internal: 200,
  marketplace: 200,
  distributed: 15,
};

/** How long a form's history read waits for its slot (a trigger expires in 3 s): about one internal-app pace. */
export const FORM_READ_WAIT_MS = 1_000;

export interface PacingOptions {
  /** Which limits apply to history reads (default `internal`). */
  appTier?: SlackAppTier;
  /** Rate as a percentage of the documented tier (100 = the tier's minimum); 0 turns tier pacing off. */
  tierRatePercent?: number;
  /** chat.postMessage per channel: one per interval after a burst; 0 turns it off. */
  channelPostIntervalMs?: number;
  channelPostBurst?: number;
  /** Replicas' shared slots (Redis mode): the tiers are per workspace, not per process. */
  shared?: SharedSlots;
  /** Called when the shared slots failed and a call went on with in-process pacing only. */
  onSharedFailure?: (error: unknown) => void;
  /** Calls waiting per method (per channel for posts) at most; more fail with `slack_queue_full`. */
  maxQueue?: number;
}

/**
 * Default bound of each pacing queue: about four minutes of a Tier 3 method's calls, three of a channel's posts.
 * Past it a call fails at once (its caller tells the user to try later) instead of waiting behind a flood.
 */
export const DEFAULT_MAX_QUEUE = 200;

/**
 * No bursts of our own: Slack tolerates short bursts, and leaving that headroom unused absorbs event-loop
 * stalls and network jitter that would otherwise bunch paced calls into one of Slack's slots (a 429).
 */
const TIER_BURST = 1;
/** Paced a little below the tier so network jitter never bunches two calls into one of Slack's slots. */
const MARGIN = 1.05;

/**
 * Client-side pacing of every Web API method the bot calls, so it stays inside Slack's tiers instead of
 * collecting 429s. One gateway holds one bot token, i.e. one workspace; with `shared` slots (Redis mode)
 * the replicas of that workspace share one pace per method and channel.
 */
export class SlackPacing {
  /** Per method, while it paces something: a pacer whose keys are all idle again is dropped (as new). */
  private readonly methods = new LazyMap<string, KeyedPacer>();
  private readonly posts: KeyedPacer | undefined;
  private readonly percent: number;
  private readonly postInterval: number;
  private readonly postBurst: number;
  private readonly maxQueue: number;
  private closed = false;

  constructor(private readonly options: PacingOptions) {
    this.percent = options.tierRatePercent ?? 100;
    this.postInterval = (options.channelPostIntervalMs ?? 0) * MARGIN;
    this.postBurst = options.channelPostBurst ?? 2;
    this.maxQueue = options.maxQueue ?? DEFAULT_MAX_QUEUE;
    this.posts =
      this.postInterval > 0
        ? new KeyedPacer(this.postInterval, this.postBurst, Date.now, this.maxQueue)
        : undefined;
  }

  /**
   * Runs `work` only if its method's slot is free within `waitMs` (FORM_READ_WAIT_MS unless told), in this
   * process and (Redis mode) across replicas; otherwise rejects with `slack_budget_spent` and takes nothing.
   * For reads only worth making soon (a form whose trigger expires in 3 s waits a second at most), never queued.
   */
  async runNow<T>(
    called: string,
    channel: string | undefined,
    work: () => Promise<T>,
    waitMs = FORM_READ_WAIT_MS,
  ): Promise<T> {
    const method = paceName(called);
    const { pacer, key } = this.pacerOf(method, channel);
    if (this.closed) throw shuttingDown();
    if (!pacer) return work();
    const deadline = Date.now() + waitMs;
    // The slot is taken before the wait, not checked again after it: a timer may fire a fraction of a
    // millisecond before Date.now() reaches the slot, and a call queued meanwhile would take it (a click
    // refused for a slot it had been promised).
    const freeIn = pacer.takeWithin(key, waitMs);
    if (freeIn < 0) throw budgetSpent(method);
    if (freeIn > 0) await sleep(freeIn);
    if (this.closed) throw shuttingDown();
    const shared = this.options.shared;
    if (shared) {
      const { interval, burst } = this.paceOf(method);
      const left = Math.max(0, deadline - Date.now());
      const wait = await shared.reserve(`${method}:${key}`, interval, burst, left).catch((error: unknown) => {
        this.options.onSharedFailure?.(error);
        return 0;
      });
      if (wait < 0) {
        pacer.giveBack(key);
        throw budgetSpent(method);
      }
      if (wait > 0) await sleep(wait);
    }
    return work();
  }

  run<T>(called: string, channel: string | undefined, priority: SlackPriority, work: () => Promise<T>) {
    const method = paceName(called);
    const { pacer, key } = this.pacerOf(method, channel);
    if (this.closed) return Promise.reject(shuttingDown());
    if (!pacer) return work();
    const shared = this.options.shared;
    if (!shared) return pacer.run(key, work, RANK[priority]);
    // In-process order first (priorities), then the slot all replicas share, then the call. The local slot
    // is held until the call starts, so this process has one call at a time waiting on the shared slot and
    // a user's call queued here goes next, instead of behind every refresh already waiting in Redis.
    return pacer.runUntilStarted(
      key,
      (started) => this.inSharedSlot(shared, method, key, work, started),
      RANK[priority],
    );
  }

  /**
   * Slack said 429: nothing more of this method (this channel, for posts) until Retry-After has passed.
   * False when the method is not paced (the caller has to wait itself).
   */
  holdOff(called: string, channel: string | undefined, retryAfterMs: number): boolean {
    const method = paceName(called);
    const { pacer, key } = this.pacerOf(method, channel);
    pacer?.holdUntil(key, Date.now() + retryAfterMs);
    if (pacer && this.options.shared) {
      const { interval, burst } = this.paceOf(method);
      this.options.shared
        .holdOff(`${method}:${key}`, interval, burst, retryAfterMs)
        .catch((error: unknown) => this.options.onSharedFailure?.(error));
    }
    return pacer !== undefined;
  }

  close(): void {
    this.closed = true;
    this.posts?.close();
    for (const pacer of this.methods.values()) pacer.close();
  }

  private async inSharedSlot<T>(
    shared: SharedSlots,
    method: string,
    key: string,
    work: () => Promise<T>,
    started: () => void,
  ) {
    const { interval, burst } = this.paceOf(method);
    let wait = 0;
    try {
      wait = await shared.reserve(`${method}:${key}`, interval, burst);
    } catch (error) {
      this.options.onSharedFailure?.(error);
    }
    if (wait > 0) await sleep(wait);
    started();
    return work();
  }

  /** A method's pace: per channel for posts, else its tier at the configured percentage. */
  private paceOf(method: string): { interval: number; burst: number } {
    if (method === 'chat.postMessage') return { interval: this.postInterval, burst: this.postBurst };
    const tier = HISTORY_METHODS.has(method)
      ? HISTORY_READS_PER_MINUTE[this.options.appTier ?? 'internal']
      : (METHOD_TIERS[method] ?? 50);
    const perMinute = (tier * this.percent) / 100;
    return { interval: (60_000 / perMinute) * MARGIN, burst: TIER_BURST };
  }

  private pacerOf(method: string, channel: string | undefined): { pacer?: KeyedPacer; key: string } {
    if (method === 'chat.postMessage') return { pacer: this.posts, key: channel ?? '' };
    if (this.percent <= 0) return { key: method };
    let pacer = this.methods.get(method);
    if (!pacer) {
      const { interval, burst } = this.paceOf(method);
      const made: KeyedPacer = new KeyedPacer(interval, burst, Date.now, this.maxQueue, () => {
        if (this.methods.get(method) === made) this.methods.delete(method);
      });
      pacer = made;
      this.methods.set(method, pacer);
    }
    return { pacer, key: method };
  }
}

/** A streamed message is a new message in the channel: it starts in the channel's posting pace. */
function paceName(method: string): string {
  return method === 'chat.startStream' ? 'chat.postMessage' : method;
}

/** The method's budget has no slot free now (a distributed app's history read): the caller does without. */
export class SlackBudgetSpentError extends AppError<'slack_budget_spent'> {}

function budgetSpent(method: string): SlackBudgetSpentError {
  return new SlackBudgetSpentError('slack_budget_spent', `no ${method} call is free in this minute`);
}

/** The global setTimeout, as the pacers' own timers use: one clock for both (and for tests' fake timers). */
function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function shuttingDown(): AppError {
  return new AppError('shutting_down', 'The bot is shutting down; the Slack call was not sent');
}
