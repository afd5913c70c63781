/** The outcome of taking units: taken, or refused with the time until that many are free. */
export type QuotaTake = { ok: true } | { ok: false; retryAfterMs: number };

/**
 * A budget of requests per rolling hour, kept by the bot because the platform sends no rate-limit headers:
 * the agent-job budget (100 job creations and follow-ups per project) and the analytics budget (100 requests
 * per organisation across every analytics endpoint). The bot refuses before the platform would, and can say
 * when the next units free. Other clients of the same project can still exhaust it; a 429 is handled too.
 *
 * One port, two implementations that pass one contract suite: `InMemoryHourlyQuota` (one process) and
 * `RedisHourlyQuota` (shared by every replica).
 */
export interface HourlyQuota {
  /**
   * Takes `count` units (default 1) all at once, or none and says how long until `count` are free. A count
   * above the limit is never granted; its `retryAfterMs` is the time until the whole budget is free.
   */
  take(count?: number): Promise<QuotaTake>;
  /**
   * Milliseconds until `count` units (default 1, capped at the limit) could be taken; 0 when they can be
   * now. Takes nothing: a report needing several requests is refused up front, with the time it can run.
   */
  waitTime(count?: number): Promise<number>;
  /** Gives back the most recent unit, whose request surely never reached the platform. */
  refund(): Promise<void>;
  remaining(): Promise<number>;
}

export const HOUR_MS = 60 * 60 * 1000;

/** The rolling hour of one process: a sorted list of the times units were taken. */
export class InMemoryHourlyQuota implements HourlyQuota {
  private readonly stamps: number[] = [];

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
    private readonly windowMs = HOUR_MS,
  ) {}

  async take(count = 1): Promise<QuotaTake> {
    const now = this.now();
    this.prune(now);
    if (count > this.limit || this.stamps.length + count > this.limit) {
      return { ok: false, retryAfterMs: this.wait(count, now) };
    }
    for (let i = 0; i < count; i++) this.stamps.push(now);
    return { ok: true };
  }

  async waitTime(count = 1): Promise<number> {
    const now = this.now();
    this.prune(now);
    return this.wait(count, now);
  }

  async refund(): Promise<void> {
    this.stamps.pop();
  }

  async remaining(): Promise<number> {
    this.prune(this.now());
    return Math.max(0, this.limit - this.stamps.length);
  }

  private wait(count: number, now: number): number {
    const needed = Math.min(Math.max(count, 0), this.limit);
    const free = this.limit - this.stamps.length;
    if (free >= needed) return 0;
    // The (needed - free)-th oldest unit must leave the window.
    const stamp = this.stamps[needed - free - 1]!;
    return Math.max(0, stamp + this.windowMs - now);
  }

  private prune(now: number): void {
    while (this.stamps.length > 0 && this.stamps[0]! <= now - this.windowMs) this.stamps.shift();
  }
}
