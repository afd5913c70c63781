import type { Job, Queue, RepeatOptions } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { scheduleKey, type WeeklyReportScheduler, type WeeklySchedule } from '../../insights/ports.js';
import { nextOccurrence, previousOccurrence } from '../../insights/ranges/cron-times.js';
import { planeJobId, type QueuePlane } from './queue-plane.js';
import type { RedisClient } from './redis-client.js';

export interface BullmqWeeklySchedulerOptions {
  /** A connected client that queues commands while reconnecting (as BullMQ expects); not closed here. */
  client: RedisClient;
  logger: Logger;
  namespace?: string;
  /** A view for `tenant` over the plane's shared `weekly` queue (single-workspace mode: its one tenant). */
  plane: { plane: QueuePlane; tenant: string };
}

interface WeeklyJobData {
  /** The tenant whose schedule it is. */
  tenant?: string;
  schedule: WeeklySchedule;
  /** Set on the retry of a failed occurrence (a one-off delayed job); scheduler jobs derive it. */
  occurrence?: number;
}

/**
 * BullMQ's next-run function, on croner like every other cron in the app. BullMQ's own parser skips the
 * DST-start day of a time in the gap (America/Santiago, America/Havana, Asia/Beirut) and throws on some
 * Australia/Lord_Howe times, which ends the schedule for good. Set on the plane's queue: its upserts, and
 * the next occurrence added when the fair take hands out a fired one (`plane-schedule-renewal.ts`); stored
 * schedulers keep their ids and patterns.
 */
export function cronerRepeatStrategy(afterMs: number, opts: RepeatOptions): number | undefined {
  if (!opts.pattern) return undefined;
  return nextOccurrence(opts.pattern, opts.tz ?? 'UTC', afterMs);
}

/** One job scheduler per schedule key (page views: the channel id, as before kinds); BullMQ forbids `:`. */
export function weeklySchedulerId(key: string): string {
  return `weekly-${encodeURIComponent(key)}`;
}

/**
 * `WeeklyReportScheduler` on BullMQ job schedulers, shared by every replica: each channel's schedule is one
 * job scheduler (`upsertJobScheduler(id, { pattern, tz }, template)`) in Redis, which keeps exactly one
 * delayed job for the next occurrence. Whichever replica's worker picks that job up runs the occurrence;
 * the others never see it. Upserting the same schedule from every replica at start is idempotent.
 *
 * A job produced while no replica ran is processed late when one starts; `WeeklyReports` then applies the
 * missed-post grace. The store claim per (channel, occurrence) stays the exactly-once guard, also against
 * the start-up catch-up of another replica firing the same occurrence.
 *
 * It is a tenant's view of the plane (single-workspace mode: its one tenant): its schedulers and retries (ids prefixed by the tenant, the tenant in
 * their data) live on the shared `weekly` queue, `start` registers the processor and `stop` only
 * unregisters, so an evicted tenant's posts still fire and wake it. A tenant's old queue (before issue 34)
 * is moved here once by the deployment's migration (`migrations/old-queues.ts`), never at start.
 */
export class BullmqWeeklyScheduler implements WeeklyReportScheduler {
  private unregister: (() => void) | undefined;
  private readonly log: Logger;

  constructor(private readonly options: BullmqWeeklySchedulerOptions) {
    this.log = options.logger.child({ component: 'weekly-scheduler' });
  }

  /** The shard of the shared queue the tenant's schedules live in (made on first use). */
  private get queue(): Queue<WeeklyJobData> {
    return this.options.plane.plane.queue<WeeklyJobData>('weekly', this.options.plane.tenant);
  }

  /** This view's id for a job or scheduler: prefixed by the tenant on the shared queue. */
  private id(id: string): string {
    return planeJobId('weekly', this.options.plane.tenant, id);
  }

  /** The tenant in a job's data on the shared queue. */
  private get tenantData(): { tenant: string } {
    return { tenant: this.options.plane.tenant };
  }

  async start(onFire: (schedule: WeeklySchedule, occurrenceMs: number) => Promise<void>): Promise<void> {
    const { plane, tenant } = this.options.plane;
    this.unregister ??= plane.register('weekly', tenant, (job: Job) =>
      this.process(onFire, job as Job<WeeklyJobData>),
    );
  }

  async upsert(schedule: WeeklySchedule): Promise<void> {
    try {
      await this.queue.upsertJobScheduler(
        this.id(weeklySchedulerId(scheduleKey(schedule))),
        { pattern: schedule.cron, tz: schedule.timeZone },
        {
          name: 'weekly-report',
          data: { ...this.tenantData, schedule },
          opts: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
        },
      );
    } catch (error) {
      // Two replicas upserting the same schedule at once: the other one already created this iteration,
      // which is the state we asked for.
      if (!(error instanceof Error && /job ID already exists/i.test(error.message))) throw error;
      this.log.debug(
        { channelId: schedule.channelId },
        'weekly scheduler already upserted by another replica',
      );
    }
  }

  /** A one-off delayed job any replica may run; its id (per occurrence and time) makes a re-add a no-op. */
  async retry(schedule: WeeklySchedule, occurrenceMs: number, atMs: number): Promise<void> {
    await this.queue.add(
      'weekly-report-retry',
      { ...this.tenantData, schedule, occurrence: occurrenceMs },
      {
        jobId: this.id(`weekly-retry-${encodeURIComponent(scheduleKey(schedule))}-${occurrenceMs}-${atMs}`),
        delay: Math.max(0, atMs - Date.now()),
        removeOnComplete: true,
        removeOnFail: true,
        attempts: 1,
      },
    );
  }

  async remove(key: string): Promise<void> {
    await this.queue.removeJobScheduler(this.id(weeklySchedulerId(key)));
  }

  /** Schedule keys with a job scheduler in Redis and their next run (diagnostics and tests). */
  async nextRuns(): Promise<Map<string, number>> {
    const schedulers = await this.queue.getJobSchedulers(0, -1, true);
    const { tenant } = this.options.plane;
    return new Map(
      schedulers
        .filter((s) => s.template?.data?.schedule && s.next !== undefined)
        .filter((s) => s.template?.data?.tenant === tenant)
        .map((s) => [scheduleKey(s.template!.data!.schedule), s.next!]),
    );
  }

  /**
   * Stops taking occurrences (only unregisters: the plane's worker finishes a running post); schedulers stay
   * in Redis for the other replicas.
   */
  async stop(): Promise<void> {
    this.unregister?.();
    this.unregister = undefined;
  }

  private async process(
    onFire: (schedule: WeeklySchedule, occurrenceMs: number) => Promise<void>,
    job: Job<WeeklyJobData>,
  ): Promise<void> {
    const { schedule } = job.data;
    // The occurrence BullMQ scheduled it for (its next-run millis), normalised onto croner's calendar, so
    // the claim key is the same one the start-up catch-up of any replica would use. A retry carries it.
    const scheduled = job.opts.prevMillis ?? job.timestamp;
    const occurrence =
      job.data.occurrence ?? previousOccurrence(schedule.cron, schedule.timeZone, scheduled) ?? scheduled;
    try {
      await onFire(schedule, occurrence);
    } catch (error) {
      this.log.error({ channelId: schedule.channelId, error: describeError(error) }, 'weekly report failed');
    }
  }
}
