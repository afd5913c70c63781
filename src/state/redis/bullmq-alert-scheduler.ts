import { type Job, Queue, Worker } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { AlertScheduler } from '../../insights/ports.js';
import { storeErrorListener } from '../store-errors.js';
import { retireOldQueue } from './plane-migration.js';
import { planeJobId, type QueuePlane } from './queue-plane.js';
import { bullConnectionOf, type RedisClient } from './redis-client.js';

const QUEUE_NAME = 'health-alerts';
const SCHEDULER_ID = 'health-alert-check';

export interface BullmqAlertSchedulerOptions {
  /** A connected client that queues commands while reconnecting (as BullMQ expects); not closed here. */
  client: RedisClient;
  logger: Logger;
  intervalMs: number;
  namespace?: string;
  /** OAuth mode on Redis: a view for `tenant` over the plane's shared `alerts` queue (no Queue or Worker). */
  plane?: { plane: QueuePlane; tenant: string };
}

interface AlertJobData {
  /** The tenant whose check it is (plane mode; empty on its own queue). */
  tenant?: string;
}

/**
 * The alert check on one BullMQ job scheduler (`every: intervalMs`) shared by every replica: BullMQ keeps one
 * delayed job per interval and whichever replica's worker takes it runs that interval's check; the others
 * never see it. The scheduler exists only while armed (some channel subscribed): `arm` upserts it
 * (idempotent; a changed interval replaces it), `disarm` removes it and its next job.
 *
 * On the plane it is a tenant's view: its scheduler (id prefixed by the tenant, the tenant in its data)
 * lives on the shared `alerts` queue, `start` registers the processor and `stop` only unregisters, so an
 * evicted tenant's check still fires and wakes it. `start` also retires the tenant's old queue (before
 * issue 34): the check is armed again by the use case's start where a channel is subscribed.
 */
export class BullmqAlertScheduler implements AlertScheduler {
  private queueInstance: Queue<AlertJobData> | undefined;
  private worker: Worker | undefined;
  private unregister: (() => void) | undefined;
  private readonly prefix: string;
  private readonly log: Logger;
  private readonly schedulerId: string;

  constructor(private readonly o: BullmqAlertSchedulerOptions) {
    this.prefix = `${o.namespace ?? 'docs-agent'}:bull`;
    this.log = o.logger.child({ component: 'alert-scheduler' });
    this.schedulerId = o.plane ? planeJobId('alerts', o.plane.tenant, SCHEDULER_ID) : SCHEDULER_ID;
  }

  /** Created on first use, so nothing touches Redis before the app has connected. */
  private get queue(): Queue<AlertJobData> {
    if (this.o.plane) return this.o.plane.plane.queue<AlertJobData>('alerts', this.o.plane.tenant);
    if (!this.queueInstance) {
      const queue = new Queue<AlertJobData>(QUEUE_NAME, {
        connection: bullConnectionOf(this.o.client),
        prefix: this.prefix,
      });
      queue.on('error', storeErrorListener(this.log, 'alert queue error'));
      this.queueInstance = queue;
    }
    return this.queueInstance;
  }

  async start(onTick: (tickMs: number) => Promise<void>): Promise<void> {
    const plane = this.o.plane;
    if (plane) {
      if (this.unregister) return;
      this.unregister = plane.plane.register('alerts', plane.tenant, (job: Job) => this.process(onTick, job));
      const old = { prefix: this.prefix, name: QUEUE_NAME };
      void retireOldQueue({ ...old, client: this.o.client, logger: this.log });
      return;
    }
    if (this.worker) return;
    const worker = new Worker(QUEUE_NAME, (job: Job) => this.process(onTick, job), {
      connection: bullConnectionOf(this.o.client),
      prefix: this.prefix,
      concurrency: 1,
      lockDuration: 60_000,
      maxStalledCount: 1,
    });
    worker.on('error', storeErrorListener(this.log, 'alert worker error'));
    this.worker = worker;
  }

  async arm(): Promise<void> {
    try {
      await this.queue.upsertJobScheduler(
        this.schedulerId,
        { every: this.o.intervalMs },
        {
          name: 'health-alert-check',
          data: this.o.plane ? { tenant: this.o.plane.tenant } : {},
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
    await this.worker?.close();
    this.worker = undefined;
    await this.queueInstance?.close();
    this.queueInstance = undefined;
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
