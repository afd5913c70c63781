import { DelayedError, type Job, Queue, Worker } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { ImpactCheck, ImpactQueue } from '../../insights/health/ports.js';
import { storeErrorListener } from '../store-errors.js';
import { retireOldQueue } from './plane-migration.js';
import { oldJobDueAt } from './plane-old-jobs.js';
import { planeJobId, type QueuePlane } from './queue-plane.js';
import { bullConnectionOf, type RedisClient } from './redis-client.js';

export interface BullmqImpactQueueOptions {
  /** A connected client that queues commands while reconnecting (as BullMQ expects); not closed here. */
  client: RedisClient;
  logger: Logger;
  /** BullMQ keys live under `<ns>:bull:health-impact:…`. */
  namespace?: string;
  /** The app's clock: due times are instants on it. */
  now?: () => number;
  /** How long a replica may hold a check without renewing its lock (BullMQ's default 30 s; tests shorten it). */
  lockDurationMs?: number;
  stalledIntervalMs?: number;
  /** OAuth mode on Redis: a view for `tenant` over the plane's shared `impact` queue (no Queue or Worker). */
  plane?: { plane: QueuePlane; tenant: string };
}

interface ImpactJobData {
  /** The tenant whose check it is (plane mode only). */
  tenant?: string;
  check: ImpactCheck;
  attempt: number;
}

export const IMPACT_QUEUE_NAME = 'health-impact';
/** A handler that threw (a bug, Redis gone mid-way) is tried again this much later. */
const RETRY_AFTER_THROW_MS = 60_000;
const QUEUE_ATTEMPTS = 10_000;
/**
 * A check lives 14 days, so replicas die while holding it (each deploy can be one): BullMQ's default of 1
 * would fail it for good on the second stall, and its id, kept 180 days, would block it from ever being
 * enqueued again. A stalled check just goes back to waiting; the post claim keeps the post to one.
 */
const MAX_STALLED_COUNT = 1_000_000;
/**
 * A finished check stays in Redis this long (a few hundred bytes): while it is there, enqueueing the same
 * job again (a later generation's PR, another replica) is a no-op, as BullMQ ignores a duplicate job id.
 */
const KEEP_DONE_S = 180 * 24 * 60 * 60;
/** Every check's options, set per job so they hold on the plane's shared queue too. */
const CHECK_JOB_OPTIONS = {
  removeOnComplete: { age: KEEP_DONE_S },
  removeOnFail: { age: KEEP_DONE_S },
  // A try that failed outside the handler (Redis gone while re-delaying it) is retried by BullMQ itself, as
  // part of the script that failed it: a check is never dropped by an outage.
  attempts: QUEUE_ATTEMPTS,
  backoff: { type: 'fixed' as const, delay: RETRY_AFTER_THROW_MS },
};

/** BullMQ forbids `:` in custom ids and purely numeric ones; the prefix and encoding rule out both. */
export function impactJobId(jobId: string): string {
  return `impact-${encodeURIComponent(jobId)}`;
}

/**
 * `ImpactQueue` on BullMQ: each check is ONE delayed BullMQ job whose id derives from the agent job id, so
 * two replicas (or one after a restart) enqueueing it leave one entry, kept across restarts, and one
 * replica's worker runs it when due. A retry re-delays the same job in place (`moveToDelayed` +
 * `DelayedError`, as the poll queue does). A replica dying mid-check hands it to another one (stalled-job
 * check); the publisher's claim keeps the post to one.
 *
 * On the plane it is a tenant's view: its checks (ids prefixed by the tenant, the tenant in their data) wait
 * on the shared `impact` queue, `start` registers the handler and `close` only unregisters, so a pending
 * check of an evicted tenant still runs and wakes it. `start` also moves the checks of the tenant's old
 * queue (before issue 34) onto the plane, keeping their due times and attempts.
 */
export class BullmqImpactQueue implements ImpactQueue {
  private queueInstance: Queue<ImpactJobData> | undefined;
  private worker: Worker<ImpactJobData> | undefined;
  private unregister: (() => void) | undefined;
  private readonly prefix: string;
  private readonly log: Logger;
  private closed = false;

  constructor(private readonly options: BullmqImpactQueueOptions) {
    this.prefix = `${options.namespace ?? 'docs-agent'}:bull`;
    this.log = options.logger.child({ component: 'impact-queue' });
  }

  /** Created on first use, so nothing touches Redis before the app has connected. */
  private get queue(): Queue<ImpactJobData> {
    if (this.options.plane)
      return this.options.plane.plane.queue<ImpactJobData>('impact', this.options.plane.tenant);
    if (!this.queueInstance) {
      const queue = new Queue<ImpactJobData>(IMPACT_QUEUE_NAME, {
        connection: bullConnectionOf(this.options.client),
        prefix: this.prefix,
        defaultJobOptions: CHECK_JOB_OPTIONS,
      });
      queue.on('error', storeErrorListener(this.log, 'impact queue error'));
      this.queueInstance = queue;
    }
    return this.queueInstance;
  }

  start(handler: (check: ImpactCheck, attempt: number) => Promise<number | null>): void {
    if (this.closed) return;
    const plane = this.options.plane;
    if (plane) {
      if (this.unregister) return;
      this.unregister = plane.plane.register('impact', plane.tenant, (job: Job, token) =>
        this.process(handler, job as Job<ImpactJobData>, token),
      );
      const old = { client: this.options.client, prefix: this.prefix, name: IMPACT_QUEUE_NAME };
      void retireOldQueue({
        ...old,
        logger: this.log,
        recreate: async (job) => {
          const { check, attempt } = job.data as ImpactJobData;
          if (check) await this.add(check, await oldJobDueAt(old.client, old.prefix, old.name, job), attempt);
        },
      });
      return;
    }
    if (this.worker) return;
    const worker = new Worker<ImpactJobData>(
      IMPACT_QUEUE_NAME,
      (job, token) => this.process(handler, job, token),
      {
        connection: bullConnectionOf(this.options.client),
        prefix: this.prefix,
        concurrency: 1,
        maxStalledCount: MAX_STALLED_COUNT,
        ...(this.options.lockDurationMs ? { lockDuration: this.options.lockDurationMs } : {}),
        ...(this.options.stalledIntervalMs ? { stalledInterval: this.options.stalledIntervalMs } : {}),
      },
    );
    worker.on('error', storeErrorListener(this.log, 'impact worker error'));
    worker.on('failed', (job, error) =>
      this.log.warn(
        { jobId: job?.data.check.jobId, retried: !job?.finishedOn, error: describeError(error) },
        'impact check job failed',
      ),
    );
    this.worker = worker;
  }

  async enqueue(check: ImpactCheck, dueAt: number): Promise<void> {
    // A closed own queue takes nothing more; the plane's queue is the replica's, so a use case still running
    // in an evicted scope does not lose its check.
    if (this.closed && !this.options.plane) return;
    await this.add(check, dueAt, 0);
  }

  /** `attempt` is above 0 only when a check moves from the old per-tenant queue (it keeps its count). */
  private async add(check: ImpactCheck, dueAt: number, attempt: number): Promise<void> {
    const plane = this.options.plane;
    await this.queue.add(
      'impact',
      { ...(plane ? { tenant: plane.tenant } : {}), check, attempt },
      {
        ...CHECK_JOB_OPTIONS,
        jobId: plane
          ? planeJobId('impact', plane.tenant, impactJobId(check.jobId))
          : impactJobId(check.jobId),
        delay: Math.max(0, dueAt - (this.options.now ?? Date.now)()),
      },
    );
  }

  /** Stops running checks here; on the plane only unregisters (pending checks stay and wake the tenant). */
  async close(): Promise<void> {
    this.closed = true;
    this.unregister?.();
    this.unregister = undefined;
    await this.worker?.close();
    await this.queueInstance?.close();
  }

  private async process(
    handler: (check: ImpactCheck, attempt: number) => Promise<number | null>,
    job: Job<ImpactJobData>,
    token: string | undefined,
  ): Promise<void> {
    const { tenant, check, attempt } = job.data;
    let next: number | null;
    try {
      next = await handler(check, attempt);
    } catch (error) {
      this.log.error({ jobId: check.jobId, error: describeError(error) }, 'impact check failed unexpectedly');
      next = RETRY_AFTER_THROW_MS;
    }
    if (next === null) return; // completes; kept a while so the same job is not enqueued again
    await job.updateData({ ...(tenant === undefined ? {} : { tenant }), check, attempt: attempt + 1 });
    await job.moveToDelayed(Date.now() + Math.max(0, next), token);
    throw new DelayedError();
  }
}
