import type { Queue } from 'bullmq';
import type { PollData } from './bullmq-poll-queue.js';
import { type PlaneHandlers, planeJobId, type QueuePlane } from './queue-plane.js';

/** Where a poll queue's BullMQ jobs live: the shared plane's queue of its kind. */
export interface PollQueueHost {
  queue(): Queue<PollData>;
  /** The BullMQ id of an agent job's poll. */
  idOf(jobId: string): string;
  /** The data of an agent job's poll due at `dueAt`. */
  dataOf(jobId: string, dueAt: number): PollData;
  start(handlers: PlaneHandlers): void;
  close(): Promise<void>;
}

/**
 * A tenant's view of the plane's shared queue of its kind (closing it only unregisters; single-workspace
 * mode is the plane's one tenant).
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
