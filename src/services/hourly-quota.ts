/**
 * The platform allows 100 job creations and follow-ups per project per rolling hour and sends no
 * rate-limit headers, so the bot keeps its own count: it refuses before the platform would, and can say
 * when the next slot frees. Other clients of the same project can still exhaust it; a 429 is handled too.
 */
export interface HourlyQuota {
  /** Takes one unit, or says how long until one is free. */
  take(): Promise<{ ok: true } | { ok: false; retryAfterMs: number }>;
  /** Gives back a unit whose request surely never reached the platform. */
  refund(): Promise<void>;
  remaining(): Promise<number>;
}

const HOUR_MS = 60 * 60 * 1000;

export class InMemoryHourlyQuota implements HourlyQuota {
  private readonly stamps: number[] = [];

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
    private readonly windowMs = HOUR_MS,
  ) {}

  async take(): Promise<{ ok: true } | { ok: false; retryAfterMs: number }> {
    const now = this.now();
    this.prune(now);
    if (this.stamps.length >= this.limit) {
      return { ok: false, retryAfterMs: this.stamps[0]! + this.windowMs - now };
    }
    this.stamps.push(now);
    return { ok: true };
  }

  async refund(): Promise<void> {
    this.stamps.pop();
  }

  async remaining(): Promise<number> {
    this.prune(this.now());
    return this.limit - this.stamps.length;
  }

  private prune(now: number): void {
    while (this.stamps.length > 0 && this.stamps[0]! <= now - this.windowMs) this.stamps.shift();
  }
}
