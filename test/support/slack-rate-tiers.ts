/**
 * Slack's published Web API rate limits, enforced per method per workspace (team) like Slack does, and per
 * channel for chat.postMessage. A token bucket per key: `burst` calls at once, refilled at the tier's rate.
 * Above it a call is answered HTTP 429 with Retry-After and `{ok:false,error:'ratelimited'}`, and counted.
 */

/** Calls per minute of each documented tier (the documented minimums: "Tier 3 50+ per minute"). */
export const TIERS = { 1: 1, 2: 20, 3: 50, 4: 100 } as const;

/** Per-method limits per workspace, calls per minute. chat.postMessage is per channel (see below). */
export const METHOD_LIMITS: Readonly<Record<string, number>> = {
  'chat.update': TIERS[3],
  'chat.delete': TIERS[3],
  'chat.postEphemeral': TIERS[4],
  'reactions.add': TIERS[3],
  'reactions.remove': TIERS[3],
  'conversations.replies': TIERS[3],
  'conversations.history': TIERS[3],
  'conversations.join': TIERS[3],
  'users.info': TIERS[4],
  'views.publish': TIERS[4],
  'views.open': TIERS[4],
  'files.getUploadURLExternal': TIERS[4],
  'files.completeUploadExternal': TIERS[4],
};

export interface RateTierOptions {
  /** Multiplies every rate (tests that need more calls per second raise it). Default 1. */
  scale?: number;
  /** chat.postMessage per channel, per minute ("about 1 per second"). Default 60. */
  postsPerChannelPerMinute?: number;
  /** Calls a bucket holds (Slack allows short bursts). Default 4. */
  burst?: number;
  /** Overrides of METHOD_LIMITS (per minute). */
  methods?: Record<string, number>;
  /**
   * Slack's limits for a distributed app not approved for the Marketplace (since May 2025):
   * conversations.history and .replies once a minute each per workspace (no burst), 15 messages a page.
   * The minute is 60 s ÷ `scale`, so tests need not wait real minutes.
   */
  distributed?: boolean;
  now?: () => number;
}

/** The methods a distributed app may call once a minute, and the page they answer. */
export const DISTRIBUTED_HISTORY_METHODS = ['conversations.history', 'conversations.replies'] as const;
export const DISTRIBUTED_PAGE_LIMIT = 15;

interface Bucket {
  tokens: number;
  at: number;
}

export class SlackRateTiers {
  /** 429 answers given, by method. */
  readonly limited = new Map<string, number>();
  private readonly buckets = new Map<string, Bucket>();
  private readonly scale: number;
  private readonly burst: number;
  private readonly postsPerMinute: number;
  private readonly methods: Record<string, number>;
  private readonly bursts: Record<string, number>;
  private readonly now: () => number;
  /** Messages a history page holds at most (a larger `limit` is cut to it), or undefined: Slack's usual. */
  readonly historyPageLimit: number | undefined;

  constructor(options: RateTierOptions = {}) {
    this.scale = options.scale ?? 1;
    this.burst = options.burst ?? 4;
    this.postsPerMinute = options.postsPerChannelPerMinute ?? 60;
    const distributed = Object.fromEntries(DISTRIBUTED_HISTORY_METHODS.map((m) => [m, 1]));
    this.methods = { ...METHOD_LIMITS, ...(options.distributed ? distributed : {}), ...options.methods };
    this.bursts = options.distributed ? distributed : {};
    this.historyPageLimit = options.distributed ? DISTRIBUTED_PAGE_LIMIT : undefined;
    this.now = options.now ?? Date.now;
  }

  /** Total 429 answers. */
  get limitedTotal(): number {
    return [...this.limited.values()].reduce((a, b) => a + b, 0);
  }

  /**
   * Takes a slot for this call; undefined when allowed, else the Retry-After in seconds. Methods without a
   * documented limit here (auth.test: "special, high") pass.
   */
  take(method: string, team: string, args: Record<string, unknown>): number | undefined {
    const perMinute =
      method === 'chat.postMessage' ? this.postsPerMinute : (this.methods[method] ?? undefined);
    if (perMinute === undefined) return undefined;
    const key =
      method === 'chat.postMessage' ? `${team}:${method}:${String(args.channel ?? '')}` : `${team}:${method}`;
    const ratePerMs = (perMinute * this.scale) / 60_000;
    const now = this.now();
    const burst = this.bursts[method] ?? this.burst;
    const bucket = this.buckets.get(key) ?? { tokens: burst, at: now };
    bucket.tokens = Math.min(burst, bucket.tokens + (now - bucket.at) * ratePerMs);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return undefined;
    }
    this.limited.set(method, (this.limited.get(method) ?? 0) + 1);
    // Slack answers in whole seconds; at least 1.
    return Math.max(1, Math.ceil((1 - bucket.tokens) / ratePerMs / 1000));
  }
}
