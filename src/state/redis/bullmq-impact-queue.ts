import { DelayedError, type Job, Queue, Worker } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { ImpactCheck, ImpactQueue } from '../../insights/health/ports.js';
import { storeErrorListener } from '../store-errors.js';
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
}

interface ImpactJobData {
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
 */
export class BullmqImpactQueue implements ImpactQueue {
  private queueInstance: Queue<ImpactJobData> | undefined;
  private worker: Worker<ImpactJobData> | undefined;
  private readonly prefix: string;
  private readonly log: Logger;
  private closed = false;

  constructor(private readonly options: BullmqImpactQueueOptions) {
    this.prefix = `${options.namespace ?? 'docs-agent'}:bull`;
    this.log = options.logger.child({ component: 'impact-queue' });
  }

  /** Created on first use, so nothing touches Redis before the app has connected. */
  private get queue(): Queue<ImpactJobData> {
    if (!this.queueInstance) {
      const queue = new Queue<ImpactJobData>(IMPACT_QUEUE_NAME, {
        connection: bullConnectionOf(this.options.client),
        prefix: this.prefix,
        defaultJobOptions: {
          removeOnComplete: { age: KEEP_DONE_S },
          removeOnFail: { age: KEEP_DONE_S },
          // A try that failed outside the handler (Redis gone while re-delaying it) is retried by BullMQ
          // itself, as part of the script that failed it: a check is never dropped by an outage.
          attempts: QUEUE_ATTEMPTS,
          backoff: { type: 'fixed', delay: RETRY_AFTER_THROW_MS },
        },
      });
      queue.on('error', storeErrorListener(this.log, 'impact queue error'));
      this.queueInstance = queue;
    }
    return this.queueInstance;
  }

  start(handler: (check: ImpactCheck, attempt: number) => Promise<number | null>): void {
    if (this.worker || this.closed) return;
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
    if (this.closed) return;
    await this.queue.add(
      'impact',
      { check, attempt: 0 },
      { jobId: impactJobId(check.jobId), delay: Math.max(0, dueAt - (this.options.now ?? Date.now)()) },
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.worker?.close();
    await this.queueInstance?.close();
  }

  private async process(
    handler: (check: ImpactCheck, attempt: number) => Promise<number | null>,
    job: Job<ImpactJobData>,
    token: string | undefined,
  ): Promise<void> {
    const { check, attempt } = job.data;
    let next: number | null;
    try {
      next = await handler(check, attempt);
    } catch (error) {
      this.log.error({ jobId: check.jobId, error: describeError(error) }, 'impact check failed unexpectedly');
      next = RETRY_AFTER_THROW_MS;
    }
    if (next === null) return; // completes; kept a while so the same job is not enqueued again
    await job.updateData({ check, attempt: attempt + 1 });
    await job.moveToDelayed(Date.now() + Math.max(0, next), token);
    throw new DelayedError();
  }
}
