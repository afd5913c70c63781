import { type Job, Queue, Worker } from 'bullmq';
import type { Logger } from '../../common/logger.js';
import { storeErrorListener } from '../store-errors.js';
import { POLL_LOCK_DURATION_MS, POLL_STALLED_INTERVAL_MS, type PollData } from './bullmq-poll-queue.js';
import { wakeOverduePollsOnReconnect } from './poll-wake-on-reconnect.js';
import { type PlaneHandlers, planeJobId, type QueuePlane } from './queue-plane.js';
import { bullConnectionOf, type RedisClient } from './redis-client.js';

/** Where a poll queue's BullMQ jobs live: its own queue and worker, or the shared plane's. */
export interface PollQueueHost {
  queue(): Queue<PollData>;
  /** The BullMQ id of an agent job's poll. */
  idOf(jobId: string): string;
  /** The data of an agent job's poll due at `dueAt`. */
  dataOf(jobId: string, dueAt: number): PollData;
  start(handlers: PlaneHandlers): void;
  close(): Promise<void>;
}

/** Cap of BullMQ's own retries of a poll that failed outside the handler (lock lost, Redis gone). */
const QUEUE_RETRY_MAX_MS = 5_000;
/**
 * BullMQ's own retries of a failed poll job: practically unlimited, so a poll is never dropped. The retry
 * is part of the same Redis script that fails the attempt, so it does not depend on the replica that saw
 * the failure staying alive.
 */
export const QUEUE_ATTEMPTS = 1_000_000;

/** Single-workspace mode: a queue and a worker of its own under `<ns>:bull:<name>`, as always. */
export function ownPollQueue(o: {
  client: RedisClient;
  logger: Logger;
  prefix: string;
  queueName: string;
  concurrency: number;
  maxPerSecond?: number | undefined;
  retryDelayMs: number;
  lockDurationMs?: number | undefined;
  stalledIntervalMs?: number | undefined;
}): PollQueueHost {
  let queue: Queue<PollData> | undefined;
  let worker: Worker<PollData> | undefined;
  let stopWaking: (() => void) | undefined;
  const host: PollQueueHost = {
    queue() {
      if (!queue) {
        queue = new Queue<PollData>(o.queueName, {
          connection: bullConnectionOf(o.client),
          prefix: o.prefix,
          defaultJobOptions: {
            removeOnComplete: true,
            removeOnFail: true,
            attempts: QUEUE_ATTEMPTS,
            backoff: { type: 'poll-retry' },
          },
        });
        queue.on('error', storeErrorListener(o.logger, 'poll queue error'));
      }
      return queue;
    },
    idOf: (jobId) => `poll-${encodeURIComponent(jobId)}`,
    dataOf: (jobId, dueAt) => ({ jobId, dueAt }),
    start(handlers) {
      if (worker) return;
      worker = new Worker<PollData>(
        o.queueName,
        (job: Job<PollData>, token) => handlers.process(job, token),
        {
          connection: bullConnectionOf(o.client),
          prefix: o.prefix,
          concurrency: o.concurrency,
          ...(o.maxPerSecond ? { limiter: { max: o.maxPerSecond, duration: 1000 } } : {}),
          lockDuration: o.lockDurationMs ?? POLL_LOCK_DURATION_MS,
          // A fetch that failed on a lost connection is retried this soon (BullMQ waits 15 s by default, so a
          // 5 s outage cost 10 s more); the retry queues behind the client's reconnect, so it cannot spin.
          runRetryDelay: o.retryDelayMs,
          stalledInterval: o.stalledIntervalMs ?? POLL_STALLED_INTERVAL_MS,
          // A stalled poll goes back to waiting however often its replica died: past this count BullMQ would
          // fail it for good (no retry), and the job would never be polled again.
          maxStalledCount: QUEUE_ATTEMPTS,
          settings: {
            backoffStrategy: (attemptsMade: number) =>
              Math.min(QUEUE_RETRY_MAX_MS, o.retryDelayMs * 2 ** Math.min(Math.max(0, attemptsMade - 1), 8)),
          },
        },
      );
      worker.on('error', storeErrorListener(o.logger, 'poll worker error'));
      worker.on('completed', (job) => handlers.completed?.(job));
      worker.on('failed', (job, error) => {
        if (job) handlers.failed?.(job, error);
      });
      stopWaking = wakeOverduePollsOnReconnect(o.client, () => host.queue(), o.logger);
    },
    async close() {
      stopWaking?.();
      await worker?.close();
      await queue?.close();
    },
  };
  return host;
}

/**
 * OAuth mode on Redis: a tenant's view of the plane's shared queue of its kind (closing it only unregisters).
 * `maxPerSecond` is the tenant's own ceiling (the plane defers its polls over it), not the deployment's.
 */
export function planePollQueue(
  plane: QueuePlane,
  kind: 'polls' | 'pr-follow',
  tenant: string,
  maxPerSecond?: number,
): PollQueueHost {
  let unregister: (() => void) | undefined;
  return {
    queue: () => plane.queue<PollData>(kind, tenant),
    idOf: (jobId) => planeJobId('poll', tenant, jobId),
    dataOf: (jobId, dueAt) => ({ tenant, jobId, dueAt }),
    start(handlers) {
      unregister ??= plane.register(kind, tenant, maxPerSecond ? { ...handlers, maxPerSecond } : handlers);
    },
    async close() {
      unregister?.();
    },
  };
}
