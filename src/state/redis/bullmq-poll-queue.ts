import { DelayedError, type Job, type Queue } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { PollQueue } from '../../jobs/ports.js';
import { type PollQueueHost, planePollQueue } from './poll-queue-hosts.js';
import type { QueuePlane } from './queue-plane.js';
import type { RedisClient } from './redis-client.js';

export interface BullmqPollQueueOptions {
  /** A connected client that queues commands while reconnecting (BullMQ's loops rely on it); not closed here. */
  client: RedisClient;
  logger: Logger;
  /**
   * Ceiling on this tenant's polls started per second by all replicas together (0 = none), applied by the
   * plane (see `PlaneHandlers.maxPerSecond`).
   */
  maxPerSecond?: number;
  /** Key namespace: pending wake-ups live at `<ns>:polls:wakeups` (the jobs on the plane). */
  namespace?: string;
  /** Delay before retrying a poll whose handler threw (the state store was down, most often). */
  retryDelayMs?: number;
  /** Another queue on the same machinery (the PR follows: `pr-follow`); default `polls`. */
  queueName?: 'polls' | 'pr-follow';
  /** The replica's shared plane, and the tenant this queue is a view for (single-workspace mode: its one). */
  plane: { plane: QueuePlane; tenant: string };
  /**
   * Single-workspace mode: the plane is the scope's own, and this queue's close is the stop's "running polls
   * finish" step, so the plane's Workers close with it (every kind's running job finishes there).
   */
  ownsPlane?: boolean;
}

/**
 * A replica killed mid-poll: its lock lapses after `lockDuration` and the next stalled check (every
 * `stalledInterval`) hands the poll to a live replica, so the poll resumes within ~12 s (BullMQ's
 * defaults, 30 s + 30 s, kept a reply up to a minute late). Locks are renewed every half lock duration, so
 * only an event loop blocked for 8 s could lose one, and then the poll merely runs twice (saves are
 * version-checked).
 */
export const POLL_LOCK_DURATION_MS = 8_000;
export const POLL_STALLED_INTERVAL_MS = 4_000;
/**
 * A handler that threw (the state store unreachable) is retried this soon: after an outage the due polls
 * run as soon as Redis is back instead of a fixed 30 s later.
 */
export const POLL_RETRY_DELAY_MS = 1_000;
/** Jobs (and stranded wake-ups) looked at per round trip by the reconciler. */
const RECONCILE_BATCH = 100;

export interface PollData {
  /** OAuth mode on the shared plane: whose poll it is. */
  tenant?: string;
  jobId: string;
  /** When the pending (delayed) BullMQ job is due; lets `schedule` keep the earlier of two due times. */
  dueAt: number;
}

/**
 * `PollQueue` on BullMQ, shared by every replica: each watched agent job is ONE BullMQ job (id derived from
 * the agent job id) that lives in Redis, so it survives restarts and is processed by one replica at a time
 * under BullMQ's job lock. When a replica dies mid-poll its lock expires and BullMQ's stalled-job check hands
 * the job to another replica.
 *
 * Re-delaying after each poll uses the documented in-processor pattern: `job.moveToDelayed(timestamp, token)`
 * with the worker's lock token, then throw `DelayedError` so the worker neither completes nor fails it
 * (https://docs.bullmq.io/patterns/process-step-jobs, "Delaying"). That is one atomic script on the same job:
 * unlike remove + add there is no moment without a pending poll and no window for a duplicate.
 *
 * `schedule` keeps the earlier due time, like `MemoryPollQueue`: a requested due time is first recorded in a
 * sorted set (`ZADD … LT` keeps the minimum) and then applied to the BullMQ job: `changeDelay` (atomic, fails
 * unless the job is still delayed) when the job waits for a later time, `add` when there is no job. A job
 * being polled is left alone; its worker applies the recorded wake-up once the poll has moved it on.
 */
export class BullmqPollQueue implements PollQueue {
  private readonly wakeupsKey: string;
  private readonly log: Logger;
  private readonly host: PollQueueHost;
  private started = false;
  private closed = false;

  private get retryDelayMs(): number {
    return this.options.retryDelayMs ?? POLL_RETRY_DELAY_MS;
  }

  constructor(private readonly options: BullmqPollQueueOptions) {
    const namespace = options.namespace ?? 'docs-agent';
    const queueName = options.queueName ?? 'polls';
    this.wakeupsKey = `${namespace}:${queueName}:wakeups`;
    this.log = options.logger.child({ component: 'poll-queue' });
    this.host = planePollQueue(options.plane.plane, queueName, options.plane.tenant, options.maxPerSecond);
  }

  /** Made on first use, so that nothing touches Redis before the app has connected. */
  private get queue(): Queue<PollData> {
    return this.host.queue();
  }

  start(handler: (jobId: string) => Promise<number | null>): void {
    if (this.started || this.closed) return;
    this.started = true;
    this.host.start({
      process: (job, token) => this.process(handler, job as Job<PollData>, token),
      // A poll that ended (handler resolved null) may have been re-scheduled meanwhile: apply that now.
      completed: (job) => this.applyInBackground((job as Job<PollData>).data.jobId),
      // BullMQ retries a failed poll itself (attempts + backoff). Only a poll that finished failing for good
      // (a job added before retries existed, or out of attempts) is re-scheduled from here.
      failed: (job, error) => {
        if (this.closed) return;
        const { jobId } = (job as Job<PollData>).data;
        const retried = !job.finishedOn;
        this.log.warn({ jobId, retried, error: describeError(error) }, 'poll job failed');
        if (retried) return;
        void this.schedule(jobId, this.retryDelayMs).catch((e: unknown) =>
          this.log.error({ jobId, error: describeError(e) }, 'could not re-schedule poll'),
        );
      },
    });
  }

  async schedule(jobId: string, delayMs: number): Promise<void> {
    await this.pushWakeup(jobId, Date.now() + Math.max(0, delayMs));
    // Closing (shutdown): the wake-up is recorded; another replica's reconciler applies it.
    if (this.closed) return;
    await this.applyWakeup(jobId);
  }

  async reconcile(watchedJobIds: string[], delayMs: (index: number) => number): Promise<number> {
    if (this.closed) return 0;
    for (const jobId of await this.options.client.zRange(this.wakeupsKey, 0, RECONCILE_BATCH - 1))
      await this.applyWakeup(jobId);
    let added = 0;
    for (let i = 0; i < watchedJobIds.length; i += RECONCILE_BATCH) {
      const batch = watchedJobIds.slice(i, i + RECONCILE_BATCH);
      const pending = await Promise.all(batch.map((jobId) => this.queue.getJob(this.host.idOf(jobId))));
      const missing = batch.filter((_, j) => !pending[j]);
      // Added only where still absent (BullMQ ignores an add under an existing id): a poll another replica
      // added or ran since the look above keeps its own due time, where schedule() would pull it earlier.
      await Promise.all(
        missing.map((jobId, j) => {
          const dueAt = Date.now() + Math.max(0, delayMs(added + j));
          return this.queue.add('poll', this.host.dataOf(jobId, dueAt), {
            jobId: this.host.idOf(jobId),
            delay: Math.max(0, dueAt - Date.now()),
          });
        }),
      );
      added += missing.length;
    }
    return added;
  }

  async cancel(jobId: string): Promise<void> {
    await this.options.client.zRem(this.wakeupsKey, jobId);
    const job = await this.queue.getJob(this.host.idOf(jobId));
    // A poll that is running cannot be removed (it is locked); its handler decides whether to go on.
    if (job) await job.remove().catch(() => undefined);
  }

  /**
   * Stops taking polls, waits for running ones to re-delay themselves; pending polls stay in Redis. A view
   * of the shared plane only unregisters: the plane's worker and queue are the replica's.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.host.close();
    if (this.options.ownsPlane) await this.options.plane.plane.close();
  }

  private async process(
    handler: (jobId: string) => Promise<number | null>,
    job: Job<PollData>,
    token: string | undefined,
  ): Promise<void> {
    const { jobId } = job.data;
    let next: number | null;
    try {
      next = await handler(jobId);
    } catch (error) {
      this.log.error({ jobId, error: describeError(error) }, 'poll failed unexpectedly; retrying later');
      next = this.retryDelayMs;
    }
    if (next === null) return; // completes (and is removed); see the `completed` listener
    const dueAt = Date.now() + Math.max(0, next);
    await job.updateData(this.host.dataOf(jobId, dueAt));
    await job.moveToDelayed(dueAt, token);
    // The job is no longer active: a schedule() made during the poll can now be applied.
    try {
      await this.applyWakeup(jobId);
    } catch (error) {
      this.log.warn({ jobId, error: describeError(error) }, 'could not apply a wake-up after a poll');
    }
    throw new DelayedError();
  }

  private applyInBackground(jobId: string): void {
    this.applyWakeup(jobId).catch((error: unknown) =>
      this.log.warn({ jobId, error: describeError(error) }, 'could not apply a wake-up after a poll'),
    );
  }

  /** Records a requested due time, keeping the earlier one when a wake-up is already pending. */
  private async pushWakeup(jobId: string, dueAt: number): Promise<void> {
    await this.options.client.zAdd(this.wakeupsKey, { score: dueAt, value: jobId }, { comparison: 'LT' });
  }

  /** Takes the pending wake-up of a job (atomically: MULTI/EXEC), or null. */
  private async popWakeup(jobId: string): Promise<number | null> {
    const [score] = await this.options.client
      .multi()
      .zScore(this.wakeupsKey, jobId)
      .zRem(this.wakeupsKey, jobId)
      .exec();
    return score === null || score === undefined ? null : Number(score);
  }

  /**
   * Moves the pending wake-up onto the job's BullMQ job. Every branch that does not apply it puts it back
   * before giving up and re-checks the state, so a wake-up is never lost between a poll ending and here.
   */
  private async applyWakeup(jobId: string): Promise<void> {
    const id = this.host.idOf(jobId);
    for (let attempt = 0; attempt < 5; attempt++) {
      const requested = await this.popWakeup(jobId);
      if (requested === null) return;
      const job = await this.queue.getJob(id);
      const state = job ? await job.getState() : 'unknown';

      if (state === 'active') {
        await this.pushWakeup(jobId, requested);
        // Still active: its worker applies the wake-up when the poll ends. Otherwise go round again.
        const now = job ? await job.getState() : 'unknown';
        if (now === 'active') return;
        continue;
      }
      if (state === 'waiting' || state === 'prioritized' || state === 'waiting-children') return; // due now
      if (state === 'delayed' && job) {
        if (job.data.dueAt <= requested) return;
        // Data first: if the job is picked up in between, its poll overwrites the data anyway.
        await job.updateData(this.host.dataOf(jobId, requested));
        try {
          await job.changeDelay(Math.max(0, requested - Date.now()));
        } catch {
          // No longer delayed (promoted or picked up meanwhile): retry with a fresh look.
          await this.pushWakeup(jobId, requested);
          continue;
        }
        return;
      }
      // No pending poll (none yet, or the last one completed or failed): add one.
      if (job) await job.remove().catch(() => undefined);
      await this.queue.add('poll', this.host.dataOf(jobId, requested), {
        jobId: id,
        delay: Math.max(0, requested - Date.now()),
      });
      // If another replica added it first our add was a no-op: make sure the stored due time is not later.
      const added = await this.queue.getJob(id);
      if (added && added.data.dueAt > requested) {
        await this.pushWakeup(jobId, requested);
        continue;
      }
      return;
    }
    this.log.warn({ jobId }, 'poll wake-up kept changing state; it will be applied after the next poll');
  }
}
