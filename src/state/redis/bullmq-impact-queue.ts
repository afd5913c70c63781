import { DelayedError, type Job, type Queue } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { ImpactCheck, ImpactQueue } from '../../insights/health/ports.js';
import { planeJobId, type QueuePlane } from './queue-plane.js';
import type { RedisClient } from './redis-client.js';

export interface BullmqImpactQueueOptions {
  /** A connected client that queues commands while reconnecting (as BullMQ expects); not closed here. */
  client: RedisClient;
  logger: Logger;
  namespace?: string;
  /** The app's clock: due times are instants on it. */
  now?: () => number;
  /** A view for `tenant` over the plane's shared `impact` queue (single-workspace mode: its one tenant). */
  plane: { plane: QueuePlane; tenant: string };
}

interface ImpactJobData {
  /** The tenant whose check it is (absent only on a check moved from an old queue before issue 34). */
  tenant?: string;
  check: ImpactCheck;
  attempt: number;
}

/** A handler that threw (a bug, Redis gone mid-way) is tried again this much later. */
const RETRY_AFTER_THROW_MS = 60_000;
const QUEUE_ATTEMPTS = 10_000;
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
 * It is a tenant's view of the plane (single-workspace mode: its one tenant): its checks (ids prefixed by the tenant, the tenant in their data) wait
 * on the shared `impact` queue, `start` registers the handler and `close` only unregisters, so a pending
 * check of an evicted tenant still runs and wakes it. The checks of a tenant's old queue (before issue 34)
 * are moved here once by the deployment's migration, keeping their due times and attempts (`add`).
 */
export class BullmqImpactQueue implements ImpactQueue {
  private unregister: (() => void) | undefined;
  private readonly log: Logger;
  private closed = false;

  constructor(private readonly options: BullmqImpactQueueOptions) {
    this.log = options.logger.child({ component: 'impact-queue' });
  }

  /** The shard of the shared queue the tenant's checks live in (made on first use). */
  private get queue(): Queue<ImpactJobData> {
    return this.options.plane.plane.queue<ImpactJobData>('impact', this.options.plane.tenant);
  }

  start(handler: (check: ImpactCheck, attempt: number) => Promise<number | null>): void {
    if (this.closed) return;
    const { plane, tenant } = this.options.plane;
    this.unregister ??= plane.register('impact', tenant, {
      process: (job: Job, token) => this.process(handler, job as Job<ImpactJobData>, token),
      failed: (job, error) =>
        this.log.warn(
          {
            jobId: (job as Job<ImpactJobData>).data.check.jobId,
            retried: !job.finishedOn,
            error: describeError(error),
          },
          'impact check job failed',
        ),
    });
  }

  async enqueue(check: ImpactCheck, dueAt: number): Promise<void> {
    // Even once closed: the plane's queue is the replica's, so a use case still running in an evicted
    // scope does not lose its check.
    await this.add(check, dueAt, 0);
  }

  /** `attempt` is above 0 only when a check moves from the old per-tenant queue (it keeps its count). */
  async add(check: ImpactCheck, dueAt: number, attempt: number): Promise<void> {
    const { tenant } = this.options.plane;
    await this.queue.add(
      'impact',
      { tenant, check, attempt },
      {
        ...CHECK_JOB_OPTIONS,
        jobId: planeJobId('impact', tenant, impactJobId(check.jobId)),
        delay: Math.max(0, dueAt - (this.options.now ?? Date.now)()),
      },
    );
  }

  /** Stops running checks here: only unregisters (pending checks stay and wake the tenant). */
  async close(): Promise<void> {
    this.closed = true;
    this.unregister?.();
    this.unregister = undefined;
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
