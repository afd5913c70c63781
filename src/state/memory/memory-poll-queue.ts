import Bottleneck from 'bottleneck';
import { boundedDelay, MAX_TIMER_MS } from '../../common/backoff.js';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { PollQueue } from '../../jobs/ports.js';

export interface MemoryPollQueueOptions {
  logger: Logger;
  /** Polls running at once against the docs API. */
  concurrency: number;
  /** Smallest gap between poll starts: a global request-rate ceiling (0 = none). */
  minGapMs?: number;
  /** Delay before retrying a poll whose handler threw (the state store failed, most often). */
  retryDelayMs?: number;
}

/** As in `BullmqPollQueue`: a failed poll is retried soon, not a fixed 30 s later. */
const RETRY_DELAY_MS = 1_000;

/**
 * In-process poll scheduling: one timer per watched job, polls run through a Bottleneck limiter so a burst of
 * due jobs never exceeds the configured concurrency or rate. State is lost on restart (memory mode only).
 */
export class MemoryPollQueue implements PollQueue {
  private readonly timers = new Map<string, { timer: NodeJS.Timeout; dueAt: number }>();
  private readonly running = new Set<string>();
  /** Earliest due time requested while a job's poll was running; applied when it finishes. */
  private readonly dueAfterRun = new Map<string, number>();
  private readonly limiter: Bottleneck;
  private handler: ((jobId: string) => Promise<number | null>) | undefined;
  private closed = false;

  constructor(private readonly options: MemoryPollQueueOptions) {
    this.limiter = new Bottleneck({ maxConcurrent: options.concurrency, minTime: options.minGapMs ?? 0 });
  }

  start(handler: (jobId: string) => Promise<number | null>): void {
    this.handler = handler;
  }

  async schedule(jobId: string, delayMs: number): Promise<void> {
    if (this.closed) return;
    // NaN (a bad upstream number) polls now rather than never; a delay past Node's timer limit is chained.
    const dueAt = Date.now() + (Number.isNaN(delayMs) ? 0 : Math.max(0, delayMs));
    if (this.running.has(jobId)) {
      this.dueAfterRun.set(jobId, Math.min(dueAt, this.dueAfterRun.get(jobId) ?? dueAt));
      return;
    }
    const existing = this.timers.get(jobId);
    if (existing) {
      // Keep the earlier of the two: a follow-up must not be delayed by a slow backoff.
      if (existing.dueAt <= dueAt) return;
      clearTimeout(existing.timer);
    }
    this.arm(jobId, dueAt);
  }

  private arm(jobId: string, dueAt: number): void {
    const timer = setTimeout(
      () => {
        // Woken early by the chaining past Node's timer limit: sleep again until it is really due.
        if (Date.now() < dueAt) this.arm(jobId, dueAt);
        else this.fire(jobId);
      },
      boundedDelay(dueAt - Date.now(), MAX_TIMER_MS),
    );
    timer.unref();
    this.timers.set(jobId, { timer, dueAt });
  }

  async cancel(jobId: string): Promise<void> {
    const existing = this.timers.get(jobId);
    if (existing) clearTimeout(existing.timer);
    this.timers.delete(jobId);
  }

  async reconcile(watchedJobIds: string[], delayMs: (index: number) => number): Promise<number> {
    if (this.closed) return 0;
    const missing = watchedJobIds.filter((id) => !this.timers.has(id) && !this.running.has(id));
    await Promise.all(missing.map((id, i) => this.schedule(id, delayMs(i))));
    return missing.length;
  }

  /** Jobs with a pending or running poll. */
  size(): number {
    return new Set([...this.timers.keys(), ...this.running]).size;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const { timer } of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    await this.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
  }

  /** Marks a poll finished; returns the delay someone asked for meanwhile (Infinity when none). */
  private finish(jobId: string): number {
    this.running.delete(jobId);
    const dueAt = this.dueAfterRun.get(jobId);
    this.dueAfterRun.delete(jobId);
    return dueAt === undefined ? Number.POSITIVE_INFINITY : Math.max(0, dueAt - Date.now());
  }

  private fire(jobId: string): void {
    this.timers.delete(jobId);
    const handler = this.handler;
    if (!handler || this.closed || this.running.has(jobId)) return;
    this.running.add(jobId);
    this.limiter
      .schedule(() => handler(jobId))
      .then(
        (next) => {
          const requested = this.finish(jobId);
          const delay = Math.min(next ?? Number.POSITIVE_INFINITY, requested);
          if (Number.isFinite(delay)) void this.schedule(jobId, delay);
        },
        (error: unknown) => {
          this.finish(jobId);
          if (this.closed) return;
          this.options.logger.error(
            { jobId, error: describeError(error) },
            'poll failed unexpectedly; retrying later',
          );
          void this.schedule(jobId, this.options.retryDelayMs ?? RETRY_DELAY_MS);
        },
      );
  }
}
