import { Queue } from 'bullmq';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { shardOf, unshardedPrefix } from '../../src/state/redis/plane-shards.js';
import { planeJobId, QueuePlane } from '../../src/state/redis/queue-plane.js';
import { bullConnectionOf, type RedisClient } from '../../src/state/redis/redis-client.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const TENANTS = ['T0ONE', 'T0TWO', 'T0THREE', 'T0FOUR', 'T0FIVE', 'T0SIX'];

/**
 * Issue 43: jobs and job schedulers left in an earlier layout (one queue per kind, or another
 * QUEUE_SHARDS) are moved to their tenant's shard once, and run there once.
 */
describe('re-homing queued jobs to their shards', () => {
  const redis = redisForReplicas();
  let client: RedisClient;
  const planes: QueuePlane[] = [];
  let run = 0;

  beforeAll(async () => {
    client = await redis.replica({ failFast: false });
  });
  afterEach(async () => {
    for (const plane of planes.splice(0)) await plane.close();
  });

  const makePlane = (prefix: string, shards: number) => {
    const plane = new QueuePlane({ client, logger, prefix, shards, wake: async () => 'served' });
    planes.push(plane);
    return plane;
  };
  const poll = (tenant: string, id: string, delay: number) =>
    [
      'poll',
      { tenant, jobId: id, dueAt: Date.now() + delay },
      { jobId: planeJobId('poll', tenant, id), delay, removeOnComplete: true },
    ] as const;

  it('moves the one queue of before: its polls (due times kept) and its schedulers, which then fire in the shard', async () => {
    const prefix = `rehome-${++run}`;
    const connection = bullConnectionOf(client);
    const oldPolls = new Queue('polls', { connection, prefix: unshardedPrefix(prefix, 'polls') });
    const oldAlerts = new Queue('alerts', { connection, prefix: unshardedPrefix(prefix, 'alerts') });
    for (const tenant of TENANTS) await oldPolls.add(...poll(tenant, 'now', 0));
    await oldPolls.add(...poll('T0LATER', 'later', 60 * 60_000));
    await oldAlerts.upsertJobScheduler(
      planeJobId('alerts', 'T0ALERT', 'check'),
      { every: 300 },
      { name: 'check', data: { tenant: 'T0ALERT' } },
    );
    await Promise.all([oldPolls.close(), oldAlerts.close()]);

    const plane = makePlane(prefix, 4);
    const ran: string[] = [];
    for (const tenant of TENANTS) plane.register('polls', tenant, async () => void ran.push(tenant));
    let checks = 0;
    plane.register('alerts', 'T0ALERT', async () => void checks++);
    plane.start();
    await waitFor(() => ran.length === TENANTS.length && checks >= 2, {
      what: 'the moved polls and two checks',
      timeoutMs: 15_000,
    });
    expect(ran.sort()).toEqual([...TENANTS].sort());
    // The later poll waits in its tenant's shard, still an hour away.
    const later = await plane.queue('polls', 'T0LATER').getJob(planeJobId('poll', 'T0LATER', 'later'));
    expect(await later?.getState()).toBe('delayed');
    expect((later?.timestamp ?? 0) + (later?.delay ?? 0) - Date.now()).toBeGreaterThan(50 * 60_000);
    expect(await plane.queue('alerts', 'T0ALERT').getJobSchedulersCount()).toBe(1);
    expect(await client.keys(`${prefix}:{plane-polls}:*`)).toEqual([]);
    expect(await client.keys(`${prefix}:{plane-alerts}:*`)).toEqual([]);
    // Nothing is left to move, and the jobs ran once each.
    expect(await plane.rehome()).toEqual({ jobs: 0, schedulers: 0, held: 0 });
    expect(ran).toHaveLength(TENANTS.length);
  });

  it('after QUEUE_SHARDS changed, moves each job to its new shard; the shards beyond the count are emptied', async () => {
    const prefix = `rehome-${++run}`;
    const before = makePlane(prefix, 8);
    await before.rehome(); // records the count its queues were laid out with
    for (const tenant of TENANTS) await before.queue('polls', tenant).add(...poll(tenant, 'x', 200));
    await before.close();
    planes.splice(0);

    const after = makePlane(prefix, 3);
    const ran: string[] = [];
    for (const tenant of TENANTS) after.register('polls', tenant, async () => void ran.push(tenant));
    after.start();
    await waitFor(() => ran.length === TENANTS.length, { what: 'every moved poll', timeoutMs: 15_000 });
    expect(ran.sort()).toEqual([...TENANTS].sort());
    expect(TENANTS.some((t) => shardOf(t, 8) >= 3)).toBe(true); // some did live beyond the new count
    // The pass ends by recording the new count (it goes on through the other kinds meanwhile).
    // Five kinds by eight shards, each old shard opened, read and emptied: slow on a loaded CI machine.
    await waitFor(async () => (await client.get(`${prefix}:{plane}:shards`)) === '3', {
      what: 'the pass done',
      timeoutMs: 30_000,
    });
    for (let shard = 3; shard < 8; shard++)
      expect(await client.keys(`${prefix}:{plane-polls-${shard}}:*`)).toEqual([]);
    expect(await after.rehome()).toEqual({ jobs: 0, schedulers: 0, held: 0 });
  }, 60_000);
});
