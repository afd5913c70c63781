import type { Job, Queue } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { AlertScheduler } from '../../insights/ports.js';
import { planeJobId, type QueuePlane } from './queue-plane.js';
import type { RedisClient } from './redis-client.js';

const SCHEDULER_ID = 'health-alert-check';

export interface BullmqAlertSchedulerOptions {
  /** A connected client that queues commands while reconnecting (as BullMQ expects); not closed here. */
  client: RedisClient;
  logger: Logger;
  intervalMs: number;
  namespace?: string;
  /** A view for `tenant` over the plane's shared `alerts` queue (single-workspace mode: its one tenant). */
  plane: { plane: QueuePlane; tenant: string };
}

interface AlertJobData {
  /** The tenant whose check it is. */
  tenant: string;
}

/**
 * The alert check on one BullMQ job scheduler (`every: intervalMs`) shared by every replica: BullMQ keeps one
 * delayed job per interval and whichever replica's worker takes it runs that interval's check; the others
 * never see it. The scheduler exists only while armed (some channel subscribed): `arm` upserts it
 * (idempotent; a changed interval replaces it), `disarm` removes it and its next job.
 *
 * It is a tenant's view of the plane (single-workspace mode: its one tenant): its scheduler (id prefixed by the tenant, the tenant in its data)
 * lives on the shared `alerts` queue, `start` registers the processor and `stop` only unregisters, so an
 * evicted tenant's check still fires and wakes it. A tenant's old queue (before issue 34) is moved here once
 * by the deployment's migration.
 */
export class BullmqAlertScheduler implements AlertScheduler {
  private unregister: (() => void) | undefined;
  private readonly schedulerId: string;
  private readonly log: Logger;

  constructor(private readonly o: BullmqAlertSchedulerOptions) {
    this.log = o.logger.child({ component: 'alert-scheduler' });
    this.schedulerId = planeJobId('alerts', o.plane.tenant, SCHEDULER_ID);
  }

  /** The shard of the shared queue the tenant's check lives in (made on first use). */
  private get queue(): Queue<AlertJobData> {
    return this.o.plane.plane.queue<AlertJobData>('alerts', this.o.plane.tenant);
  }

  async start(onTick: (tickMs: number) => Promise<void>): Promise<void> {
    const { plane, tenant } = this.o.plane;
    this.unregister ??= plane.register('alerts', tenant, (job: Job) => this.process(onTick, job));
  }

  async arm(): Promise<void> {
    try {
      await this.queue.upsertJobScheduler(
        this.schedulerId,
        { every: this.o.intervalMs },
        {
          name: 'health-alert-check',
          data: { tenant: this.o.plane.tenant },
          opts: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
        },
      );
    } catch (error) {
      // Another replica upserted the same iteration at the same moment: the state asked for exists.
      if (!(error instanceof Error && /job ID already exists/i.test(error.message))) throw error;
    }
  }

  async disarm(): Promise<void> {
    await this.queue.removeJobScheduler(this.schedulerId);
  }

  /** Stops taking checks; the job scheduler stays in Redis for the other replicas (and to wake this tenant). */
  async stop(): Promise<void> {
    this.unregister?.();
    this.unregister = undefined;
  }

  private async process(onTick: (tickMs: number) => Promise<void>, job: Job): Promise<void> {
    // The interval BullMQ scheduled it for: the same on every replica, so the check's claim is per interval.
    const tickMs = job.opts.prevMillis ?? job.timestamp;
    try {
      await onTick(tickMs);
    } catch (error) {
      this.log.error({ error: describeError(error) }, 'docs-health alert check failed');
    }
  }
}
