import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { ImpactCheck } from '../../src/insights/health/ports.js';
import { BullmqImpactQueue } from '../../src/state/redis/bullmq-impact-queue.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });
let redis: RedisServer;
const clients: RedisClient[] = [];
beforeAll(async () => {
  redis = await startRedisServer();
});
afterAll(async () => {
  for (const client of clients.splice(0)) await closeRedis(client);
  await redis?.stop();
});

/** A "replica": its own queueing connection and impact queue, as the app builds them in Redis mode. */
async function replica(namespace: string): Promise<BullmqImpactQueue> {
  const client = await connectRedis(redis.url, logger, { failFast: false });
  clients.push(client);
  return new BullmqImpactQueue({ client, logger, namespace });
}

const check: ImpactCheck = {
  jobId: 'job:1',
  channelId: 'C1',
  threadTs: '1.000',
  evidenceRef: '{}',
  prLink: 'https://github.com/acme/docs/pull/1',
  prSeenAt: 0,
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('BullMQ impact queue', () => {
  it('runs a check enqueued by two replicas once, retries it in place, and never enqueues it again', async () => {
    const a = await replica('ns-impact');
    const b = await replica('ns-impact');
    const runs: Array<{ by: string; attempt: number }> = [];
    // The first try asks to be retried (over budget, docs down); the retry finishes.
    const handler = (by: string) => async (_c: ImpactCheck, attempt: number) => {
      runs.push({ by, attempt });
      return attempt === 0 ? 100 : null;
    };
    a.start(handler('a'));
    b.start(handler('b'));
    await Promise.all([a.enqueue(check, Date.now() + 100), b.enqueue(check, Date.now() + 100)]);
    await waitFor(() => runs.length === 2, { what: 'the try and its retry' });
    expect(runs.map((r) => r.attempt)).toEqual([0, 1]);
    // A later PR of the same job, after the check is done: nothing new runs.
    await a.enqueue(check, Date.now());
    await sleep(500);
    expect(runs).toHaveLength(2);
    await Promise.all([a.close(), b.close()]);
  });
});
