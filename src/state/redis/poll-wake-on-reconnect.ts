import type { Queue } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { PollData } from './bullmq-poll-queue.js';
import type { RedisClient } from './redis-client.js';

/**
 * Redis is back after an outage. A worker that lost its connection goes back to waiting on the queue's
 * marker for up to 10 s (BullMQ's longest block, as it knows of no due poll), while polls came due during
 * the outage: their replies came 10 s after Redis returned (issue 28). On every reconnect, promoting the
 * earliest overdue poll wakes the worker, and its next fetch promotes every other overdue one; they then
 * run at the worker's concurrency and the queue's rate limit, not all at once. `queue` may give several
 * queues (a kind's shards): one listener wakes each. Returns a detach function.
 */
export function wakeOverduePollsOnReconnect(
  client: RedisClient,
  queue: () => Queue<PollData> | Array<Queue<PollData>>,
  log: Logger,
): () => void {
  const wakeAll = async () => {
    const queues = queue();
    await Promise.all((Array.isArray(queues) ? queues : [queues]).map(wake));
  };
  const wake = async (one: Queue<PollData>) => {
    const [earliest] = await one.getDelayed(0, 0);
    if (!earliest || earliest.data.dueAt > Date.now()) return;
    log.info({ jobId: earliest.data.jobId }, 'Redis is back: running the polls that came due meanwhile');
    // Already promoted or picked up (by another replica): the worker is awake anyway.
    await earliest.promote().catch(() => undefined);
  };
  const onReady = () => {
    wakeAll().catch((error: unknown) =>
      log.warn({ error: describeError(error) }, 'could not wake overdue polls after a reconnect'),
    );
  };
  client.on('ready', onReady);
  return () => client.off('ready', onReady);
}
