import { type Job, Queue } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { bullConnectionOf, type RedisClient } from './redis-client.js';

/**
 * Before the shared plane (issue 34) each tenant had its own BullMQ queues under its key space,
 * `<tenant ns>:bull:<name>:*`. Their names, as they were.
 */
export const OLD_QUEUE_NAMES = [
  'polls',
  'pr-follow',
  'health-impact',
  'weekly-reports',
  'health-alerts',
] as const;

/** Keys any used BullMQ queue leaves behind: one of them means the old queue is still there. */
const QUEUE_KEYS = ['meta', 'id', 'delayed', 'wait', 'active', 'prioritized', 'paused', 'repeat'];

export async function oldQueueExists(client: RedisClient, prefix: string, name: string): Promise<boolean> {
  return (await client.exists(QUEUE_KEYS.map((key) => `${prefix}:${name}:${key}`))) > 0;
}

/**
 * Retires a tenant's old queue of one kind, once it is served from the plane: its pending jobs are handed
 * to `recreate` (which adds them to the plane under ids derived from what they are, so two replicas doing
 * this at once add each once), then the old queue is removed. Kinds whose jobs are re-created from their
 * own records (polls from the watched set, schedules from the schedule store) pass no `recreate`.
 * Resolves how many jobs were handed over.
 */
export async function retireOldQueue(o: {
  client: RedisClient;
  prefix: string;
  name: string;
  logger: Logger;
  recreate?: (job: Job) => Promise<void>;
}): Promise<number> {
  if (!(await oldQueueExists(o.client, o.prefix, o.name))) return 0;
  const queue = new Queue(o.name, { connection: bullConnectionOf(o.client), prefix: o.prefix });
  queue.on('error', () => undefined);
  try {
    let moved = 0;
    if (o.recreate)
      for (const job of await queue.getJobs(['delayed', 'waiting', 'prioritized', 'active'])) {
        if (!job) continue;
        await o.recreate(job);
        moved++;
      }
    await queue.obliterate({ force: true });
    o.logger.info({ queue: o.name, moved }, 'moved an old per-tenant queue onto the shared plane');
    return moved;
  } catch (error) {
    // Left as it is: the next start of the scope tries again; nothing was removed before it was moved.
    o.logger.warn({ queue: o.name, error: describeError(error) }, 'could not retire an old per-tenant queue');
    return 0;
  } finally {
    await queue.close().catch(() => undefined);
  }
}
