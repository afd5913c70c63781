import { type Job, Queue, type RepeatOptions, Worker } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { scheduleKey, type WeeklyReportScheduler, type WeeklySchedule } from '../../insights/ports.js';
import { nextOccurrence, previousOccurrence } from '../../insights/ranges/cron-times.js';
import { storeErrorListener } from '../store-errors.js';
import { retireOldQueue } from './plane-migration.js';
import { oldJobDueAt } from './plane-old-jobs.js';
import { planeJobId, type QueuePlane } from './queue-plane.js';
import { bullConnectionOf, type RedisClient } from './redis-client.js';

export interface BullmqWeeklySchedulerOptions {
  /** A connected client that queues commands while reconnecting (as BullMQ expects); not closed here. */
  client: RedisClient;
  logger: Logger;
  /** BullMQ keys live under `<ns>:bull:weekly-reports:…`. */
  namespace?: string;
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** OAuth mode on Redis: a view for `tenant` over the plane's shared `weekly` queue (no Queue or Worker). */
  plane?: { plane: QueuePlane; tenant: string };
}

interface WeeklyJobData {
  /** The tenant whose schedule it is (plane mode only). */
  tenant?: string;
  schedule: WeeklySchedule;
  /** Set on the retry of a failed occurrence (a one-off delayed job); scheduler jobs derive it. */
  occurrence?: number;
}

const QUEUE_NAME = 'weekly-reports';

/**
 * BullMQ's next-run function, on croner like every other cron in the app. BullMQ's own parser skips the
 * DST-start day of a time in the gap (America/Santiago, America/Havana, Asia/Beirut) and throws on some
 * Australia/Lord_Howe times, which ends the schedule for good. Set on the queue (upserts) and on the worker
 * (each fired occurrence schedules the next one); stored schedulers keep their ids and patterns.
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
 * On the plane it is a tenant's view: its schedulers and retries (ids prefixed by the tenant, the tenant in
 * their data) live on the shared `weekly` queue, `start` registers the processor and `stop` only
 * unregisters, so an evicted tenant's posts still fire and wake it. `start` also retires the tenant's old
 * queue (before issue 34): its pending retries move to the plane, its schedulers are upserted again from
 * the schedule store by the use case's start.
 */
export class BullmqWeeklyScheduler implements WeeklyReportScheduler {
  private queueInstance: Queue<WeeklyJobData> | undefined;
  private worker: Worker<WeeklyJobData> | undefined;
  private unregister: (() => void) | undefined;
  private readonly prefix: string;
  private readonly log: Logger;

  constructor(private readonly options: BullmqWeeklySchedulerOptions) {
    this.prefix = `${options.namespace ?? 'docs-agent'}:bull`;
    this.log = options.logger.child({ component: 'weekly-scheduler' });
  }

  /** Created on first use, so nothing touches Redis before the app has connected. */
  private get queue(): Queue<WeeklyJobData> {
    if (this.options.plane)
      return this.options.plane.plane.queue<WeeklyJobData>('weekly', this.options.plane.tenant);
    if (!this.queueInstance) {
      const queue = new Queue<WeeklyJobData>(QUEUE_NAME, {
        connection: bullConnectionOf(this.options.client),
        prefix: this.prefix,
        settings: { repeatStrategy: cronerRepeatStrategy },
      });
      queue.on('error', storeErrorListener(this.log, 'weekly report queue error'));
      this.queueInstance = queue;
    }
    return this.queueInstance;
  }

  /** This view's id for a job or scheduler: prefixed by the tenant on the shared queue. */
  private id(id: string): string {
    return this.options.plane ? planeJobId('weekly', this.options.plane.tenant, id) : id;
  }

  /** The tenant in a job's data on the shared queue; nothing on the tenant's own queue. */
  private get tenantData(): { tenant?: string } {
    return this.options.plane ? { tenant: this.options.plane.tenant } : {};
  }

  async start(onFire: (schedule: WeeklySchedule, occurrenceMs: number) => Promise<void>): Promise<void> {
    const plane = this.options.plane;
    if (plane) {
      if (this.unregister) return;
      this.unregister = plane.plane.register('weekly', plane.tenant, (job: Job) =>
        this.process(onFire, job as Job<WeeklyJobData>),
      );
      void this.retireOldQueue();
      return;
    }
    if (this.worker) return;
    const worker = new Worker<WeeklyJobData>(QUEUE_NAME, (job) => this.process(onFire, job), {
      connection: bullConnectionOf(this.options.client),
      prefix: this.prefix,
      concurrency: 1,
      lockDuration: this.options.lockDurationMs ?? 60_000,
      stalledInterval: this.options.stalledIntervalMs ?? 30_000,
      // A post whose replica died mid-way is retried once by another replica (the claim dedupes it).
      maxStalledCount: 1,
      settings: { repeatStrategy: cronerRepeatStrategy },
    });
    worker.on('error', storeErrorListener(this.log, 'weekly report worker error'));
    this.worker = worker;
  }

  /** The tenant's queue before issue 34: its pending retries move here, the rest goes with it. */
  private retireOldQueue(): Promise<number> {
    const old = { client: this.options.client, prefix: this.prefix, name: QUEUE_NAME };
    return retireOldQueue({
      ...old,
      logger: this.log,
      recreate: async (job) => {
        const { schedule, occurrence } = job.data as WeeklyJobData;
        // Scheduler iterations are re-made by the upserts from the schedule store; only retries move.
        if (!schedule || occurrence === undefined || job.repeatJobKey) return;
        await this.retry(schedule, occurrence, await oldJobDueAt(old.client, old.prefix, old.name, job));
      },
    });
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
    const tenant = this.options.plane?.tenant;
    return new Map(
      schedulers
        .filter((s) => s.template?.data?.schedule && s.next !== undefined)
        .filter((s) => s.template?.data?.tenant === tenant)
        .map((s) => [scheduleKey(s.template!.data!.schedule), s.next!]),
    );
  }

  /**
   * Stops taking occurrences and waits for a running post; schedulers stay in Redis for the other replicas
   * (on the plane: only unregisters, the plane's worker finishes a running post).
   */
  async stop(): Promise<void> {
    this.unregister?.();
    this.unregister = undefined;
    await this.worker?.close();
    this.worker = undefined;
    await this.queueInstance?.close();
    this.queueInstance = undefined;
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
