import { randomUUID } from 'node:crypto';
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

/** How long one replica holds an old queue's retirement; a replica that died mid-way lets it go after this. */
const RETIRE_LEASE_MS = 60_000;

/**
 * Retires a tenant's old queue of one kind, once it is served from the plane: its pending jobs are handed
 * to `recreate` (which adds them to the plane under ids derived from what they are), then the old queue is
 * removed. One replica at a time does it (a lease): otherwise a job moved by one replica, run on the plane
 * and removed there, could be moved again by another that had read the old queue a moment before. Each job
 * leaves the old queue as soon as it is on the plane, so a replica that dies mid-way leaves only what it
 * had not moved. Kinds whose jobs are re-created from their own records (polls from the watched set,
 * schedules from the schedule store) pass no `recreate`. Resolves how many jobs were handed over.
 */
export async function retireOldQueue(o: {
  client: RedisClient;
  prefix: string;
  name: string;
  logger: Logger;
  recreate?: (job: Job) => Promise<void>;
}): Promise<number> {
  if (!(await oldQueueExists(o.client, o.prefix, o.name))) return 0;
  const lease = `${o.prefix}:${o.name}:retiring`;
  const owner = randomUUID();
  // Another replica is at it: this one's next start looks again (by then the queue is usually gone).
  if (
    (await o.client.set(lease, owner, {
      condition: 'NX',
      expiration: { type: 'PX', value: RETIRE_LEASE_MS },
    })) !== 'OK'
  )
    return 0;
  const queue = new Queue(o.name, { connection: bullConnectionOf(o.client), prefix: o.prefix });
  queue.on('error', () => undefined);
  try {
    let moved = 0;
    if (o.recreate)
      for (const job of await queue.getJobs(['delayed', 'waiting', 'prioritized', 'active'])) {
        if (!job?.id) continue;
        await o.recreate(job);
        await queue.remove(job.id).catch(() => 0); // a job still locked by a dead worker goes with the queue
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
    await o.client.eval(RELEASE_IF_OWNER, { keys: [lease], arguments: [owner] }).catch(() => undefined);
  }
}

const RELEASE_IF_OWNER =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
