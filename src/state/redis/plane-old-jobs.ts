import type { Job } from 'bullmq';
import type { RedisClient } from './redis-client.js';

/**
 * When a pending job of an old per-tenant queue is due: a delayed job's score in `<prefix>:<name>:delayed`
 * holds its time (BullMQ: ms * 0x1000 + a counter; `job.delay` is relative to a time not kept after a
 * move back); a waiting or active one is due now.
 */
export async function oldJobDueAt(
  client: RedisClient,
  prefix: string,
  name: string,
  job: Job,
): Promise<number> {
  const score = job.id === undefined ? null : await client.zScore(`${prefix}:${name}:delayed`, job.id);
  return score === null ? Date.now() : Math.floor(score / 0x1000);
}
