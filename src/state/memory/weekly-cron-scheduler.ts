import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { scheduleKey, type WeeklyReportScheduler, type WeeklySchedule } from '../../insights/ports.js';
import { nextOccurrence } from '../../insights/ranges/cron-times.js';

/** Time for the scheduler: the real clock and timers in production, a manual one in tests. */
export interface SchedulerTimers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemTimers: SchedulerTimers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => {
    const handle = setTimeout(callback, ms);
    handle.unref();
    return handle;
  },
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** Wake at least this often, so a suspended machine or clock change cannot push a post far off. */
const MAX_SLEEP_MS = 10 * 60 * 1000;

interface Armed {
  schedule: WeeklySchedule;
  next: number;
  handle: unknown;
}

/** One failed occurrence to fire again at `at`. */
interface Retry {
  id: string;
  schedule: WeeklySchedule;
  occurrence: number;
  at: number;
  handle: unknown;
}

/**
 * In-process weekly scheduler: croner computes each schedule's next local time (DST-aware), and a timer
 * wakes for it. One schedule per channel. The once-per-occurrence guarantee is the handler's (store claims),
 * so a BullMQ scheduler can replace this class without changing it.
 */
export class InProcessWeeklyScheduler implements WeeklyReportScheduler {
  private readonly armed = new Map<string, Armed>();
  private readonly retries = new Map<string, Retry>();
  private onFire: ((schedule: WeeklySchedule, occurrenceMs: number) => Promise<void>) | undefined;
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly logger: Logger,
    private readonly timers: SchedulerTimers = systemTimers,
  ) {}

  async start(onFire: (schedule: WeeklySchedule, occurrenceMs: number) => Promise<void>): Promise<void> {
    this.onFire = onFire;
    this.stopped = false;
    for (const armed of this.armed.values()) this.arm(armed.schedule, armed.next);
    for (const retry of this.retries.values()) this.armRetry(retry);
  }

  async retry(schedule: WeeklySchedule, occurrenceMs: number, atMs: number): Promise<void> {
    const id = `${scheduleKey(schedule)}@${occurrenceMs}`;
    const existing = this.retries.get(id);
    if (existing?.handle !== undefined) this.timers.clearTimeout(existing.handle);
    const retry: Retry = { id, schedule, occurrence: occurrenceMs, at: atMs, handle: undefined };
    this.retries.set(id, retry);
    this.armRetry(retry);
  }

  private armRetry(retry: Retry): void {
    if (!this.onFire || this.stopped) return;
    const delay = Math.max(0, Math.min(retry.at - this.timers.now(), MAX_SLEEP_MS));
    retry.handle = this.timers.setTimeout(() => this.wakeRetry(retry), delay);
  }

  private wakeRetry(retry: Retry): void {
    if (this.stopped || this.retries.get(retry.id) !== retry) return;
    if (this.timers.now() < retry.at) {
      this.armRetry(retry);
      return;
    }
    this.retries.delete(retry.id);
    this.run(retry.schedule, retry.occurrence);
  }

  async upsert(schedule: WeeklySchedule): Promise<void> {
    const next = nextOccurrence(schedule.cron, schedule.timeZone, this.timers.now());
    this.disarm(scheduleKey(schedule));
    if (next === undefined) {
      this.logger.warn({ channelId: schedule.channelId, cron: schedule.cron }, 'weekly schedule never fires');
      return;
    }
    this.arm(schedule, next);
  }

  async remove(key: string): Promise<void> {
    this.disarm(key);
  }

  private disarm(key: string): void {
    const armed = this.armed.get(key);
    if (armed?.handle !== undefined) this.timers.clearTimeout(armed.handle);
    this.armed.delete(key);
  }

  /** The next fire time per schedule key (for diagnostics and tests). */
  nextRuns(): Map<string, number> {
    return new Map([...this.armed].map(([channel, a]) => [channel, a.next]));
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const armed of [...this.armed.values(), ...this.retries.values()]) {
      if (armed.handle !== undefined) this.timers.clearTimeout(armed.handle);
      armed.handle = undefined;
    }
    await Promise.allSettled([...this.running]);
  }

  private arm(schedule: WeeklySchedule, next: number): void {
    const entry: Armed = { schedule, next, handle: undefined };
    this.armed.set(scheduleKey(schedule), entry);
    if (!this.onFire || this.stopped) return;
    const delay = Math.max(0, Math.min(next - this.timers.now(), MAX_SLEEP_MS));
    entry.handle = this.timers.setTimeout(() => this.wake(entry), delay);
  }

  private wake(entry: Armed): void {
    if (this.stopped || this.armed.get(scheduleKey(entry.schedule)) !== entry) return;
    const now = this.timers.now();
    if (now < entry.next) {
      this.arm(entry.schedule, entry.next);
      return;
    }
    this.run(entry.schedule, entry.next);
    const following = nextOccurrence(entry.schedule.cron, entry.schedule.timeZone, Math.max(now, entry.next));
    if (following !== undefined) this.arm(entry.schedule, following);
    else this.armed.delete(scheduleKey(entry.schedule));
  }

  private run(schedule: WeeklySchedule, occurrence: number): void {
    const run = (this.onFire?.(schedule, occurrence) ?? Promise.resolve())
      .catch((error: unknown) =>
        this.logger.error(
          { channelId: schedule.channelId, error: describeError(error) },
          'weekly report failed',
        ),
      )
      .finally(() => this.running.delete(run));
    this.running.add(run);
  }
}
