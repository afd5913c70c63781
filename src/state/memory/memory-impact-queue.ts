import { MAX_TIMER_MS } from '../../common/backoff.js';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { ImpactCheck, ImpactQueue } from '../../insights/health/ports.js';
import type { SchedulerTimers } from './weekly-cron-scheduler.js';

/** Longer waits are chained in steps of at most this. */
export { MAX_TIMER_MS };

/** A handler that threw (a bug, the state store down) is tried again this much later. */
const RETRY_AFTER_THROW_MS = 60_000;

interface Pending {
  check: ImpactCheck;
  dueAt: number;
  attempt: number;
  handle: unknown;
}

/**
 * Impact checks in this process: one timer per check, chained past Node's timer limit. Lost on restart,
 * like the rest of memory mode's state. Each job is enqueued once for the life of the process.
 */
export class MemoryImpactQueue implements ImpactQueue {
  private readonly pending = new Map<string, Pending>();
  /** Jobs ever enqueued here: a later PR of the same job (a follow-up) schedules nothing new. */
  private readonly seen = new Set<string>();
  private readonly running = new Set<Promise<void>>();
  private handler: ((check: ImpactCheck, attempt: number) => Promise<number | null>) | undefined;
  private closed = false;

  constructor(
    private readonly logger: Logger,
    private readonly timers: SchedulerTimers,
  ) {}

  start(handler: (check: ImpactCheck, attempt: number) => Promise<number | null>): void {
    this.handler = handler;
    // Checks enqueued before start (or whose time came meanwhile) are armed now.
    for (const entry of this.pending.values()) this.arm(entry);
  }

  async enqueue(check: ImpactCheck, dueAt: number): Promise<void> {
    if (this.closed || this.seen.has(check.jobId)) return;
    this.seen.add(check.jobId);
    const entry: Pending = { check, dueAt, attempt: 0, handle: undefined };
    this.pending.set(check.jobId, entry);
    if (this.handler) this.arm(entry);
  }

  /** Checks waiting (diagnostics and tests). */
  size(): number {
    return this.pending.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const entry of this.pending.values()) this.timers.clearTimeout(entry.handle);
    await Promise.allSettled([...this.running]);
  }

  private arm(entry: Pending): void {
    this.timers.clearTimeout(entry.handle);
    const wait = Math.max(0, entry.dueAt - this.timers.now());
    entry.handle = this.timers.setTimeout(() => this.wake(entry), Math.min(wait, MAX_TIMER_MS));
  }

  private wake(entry: Pending): void {
    if (this.closed || this.pending.get(entry.check.jobId) !== entry) return;
    // Woken early by the chaining (or a clock change): sleep again until it is really due.
    if (this.timers.now() < entry.dueAt) {
      this.arm(entry);
      return;
    }
    const run = this.runOnce(entry).finally(() => this.running.delete(run));
    this.running.add(run);
  }

  private async runOnce(entry: Pending): Promise<void> {
    const handler = this.handler;
    if (!handler) return;
    let next: number | null;
    try {
      next = await handler(entry.check, entry.attempt);
    } catch (error) {
      this.logger.error(
        { jobId: entry.check.jobId, error: describeError(error) },
        'impact check failed unexpectedly; retrying later',
      );
      next = RETRY_AFTER_THROW_MS;
    }
    if (next === null) {
      this.pending.delete(entry.check.jobId);
      return;
    }
    entry.attempt += 1;
    entry.dueAt = this.timers.now() + (Number.isNaN(next) ? 0 : Math.max(0, next));
    if (!this.closed) this.arm(entry);
  }
}
