import type { AnalyticsBudget } from './ports.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * The analytics budget in this process: a rolling-hour window of request timestamps. Unlike the agent-jobs
 * `InMemoryHourlyQuota`, it answers "when will N requests be possible", so a report that needs several
 * pages is refused up front (with the time it can run) instead of failing half-way through its paging.
 */
export class SlidingWindowBudget implements AnalyticsBudget {
  private readonly stamps: number[] = [];

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
    private readonly windowMs = HOUR_MS,
  ) {}

  remaining(): number {
    this.prune();
    return Math.max(0, this.limit - this.stamps.length);
  }

  msUntil(count: number): number {
    this.prune();
    const needed = Math.min(count, this.limit);
    const free = this.limit - this.stamps.length;
    if (free >= needed) return 0;
    // The (needed - free)-th oldest stamp must leave the window.
    const stamp = this.stamps[needed - free - 1]!;
    return stamp + this.windowMs - this.now();
  }

  take(): boolean {
    this.prune();
    if (this.stamps.length >= this.limit) return false;
    this.stamps.push(this.now());
    return true;
  }

  private prune(): void {
    const cutoff = this.now() - this.windowMs;
    while (this.stamps.length > 0 && this.stamps[0]! <= cutoff) this.stamps.shift();
  }
}
