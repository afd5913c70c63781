import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { planeJobId, QueuePlane, type WakeResult } from '../../src/state/redis/queue-plane.js';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 34: one BullMQ Queue and Worker per kind per replica, the tenant in each job's data. A job finds its
 * tenant's handler, or wakes its scope; the directory saying "not installed" drops it; one tenant's backlog
 * never holds up another's jobs.
 */
describe('the shared queue plane', () => {
  const redis = redisForReplicas();
  let client: RedisClient;
  let plane: QueuePlane | undefined;
  let run = 0;

  beforeAll(async () => {
    client = await redis.replica({ failFast: false });
  });
  afterEach(async () => {
    await plane?.close();
    plane = undefined;
  });

  const makePlane = (wake: (tenant: string) => Promise<WakeResult>, perTenantCap = 4) => {
    run++;
    plane = new QueuePlane({
      client,
      logger,
      wake,
      prefix: `plane-test-${run}`,
      concurrency: { polls: 8 },
      perTenantCap,
    });
    return plane;
  };
  const add = (p: QueuePlane, tenant: string, id: string, delay = 0) =>
    p.queue('polls', tenant).add(
      'poll',
      { tenant, jobId: id, dueAt: Date.now() + delay },
      {
        jobId: planeJobId('poll', tenant, id),
        delay,
        removeOnComplete: true,
      },
    );

  it("runs each job with its tenant's handler, and wakes a tenant that has none here first", async () => {
    const ran: string[] = [];
    const woken: string[] = [];
    const p = makePlane(async (tenant) => {
      woken.push(tenant);
      p.register('polls', tenant, async (job) => void ran.push(`${tenant}:${job.data.jobId}`));
      return 'served';
    });
    p.register('polls', 'T0AAA', async (job) => void ran.push(`T0AAA:${job.data.jobId}`));
    await add(p, 'T0AAA', 'one');
    await add(p, 'T0BBB', 'two');
    await waitFor(() => ran.length === 2, { what: 'both jobs', timeoutMs: 10_000 });
    expect(ran.sort()).toEqual(['T0AAA:one', 'T0BBB:two']);
    expect(woken).toEqual(['T0BBB']);
  });

  it('drops the job of a tenant the directory says is gone, and its schedule with it; holds one on hold', async () => {
    const p = makePlane(async (tenant) => (tenant === 'T0GONE' ? 'gone' : 'held'));
    p.start();
    const queue = p.queue('alerts', 'T0GONE');
    await queue.upsertJobScheduler(
      planeJobId('alerts', 'T0GONE', 'check'),
      { every: 200 },
      {
        name: 'check',
        data: { tenant: 'T0GONE' },
      },
    );
    await add(p, 'T0HELD', 'waits');
    await waitFor(async () => (await queue.getJobSchedulers()).length === 0, {
      what: 'the gone tenant’s schedule removed',
      timeoutMs: 10_000,
    });
    const held = await p.queue('polls', 'T0HELD').getJob(planeJobId('poll', 'T0HELD', 'waits'));
    await waitFor(async () => (await held?.getState()) === 'delayed', {
      what: 'held job moved back',
      timeoutMs: 5_000,
    });
    expect(await queue.getJobSchedulers()).toEqual([]);
    expect(await held?.getState()).toBe('delayed');
  });

  it('makes no Worker and opens no connection per tenant', async () => {
    const p = makePlane(async () => 'served');
    const connections = async () =>
      String(await client.sendCommand(['CLIENT', 'LIST']))
        .split('\n')
        .filter((line) => line.trim() !== '').length;
    const ran = new Set<string>();
    const registerAndRun = async (tenants: string[]) => {
      for (const tenant of tenants) {
        p.register('polls', tenant, async () => void ran.add(tenant));
        await add(p, tenant, 'x');
      }
      await waitFor(() => tenants.every((t) => ran.has(t)), {
        what: 'every tenant’s job',
        timeoutMs: 10_000,
      });
      await sleep(500);
    };
    await registerAndRun(['T0P1', 'T0P2']);
    const two = { workers: p.workerCount(), connections: await connections() };
    await registerAndRun(Array.from({ length: 20 }, (_, i) => `T0Q${i}`));
    expect({ workers: p.workerCount(), connections: await connections() }).toEqual(two);
  });

  it("runs another tenant's jobs before one tenant's backlog of 1,000 is drained", async () => {
    const order: string[] = [];
    const p = makePlane(async () => 'served', 2);
    const handler = (tenant: string) => async () => {
      order.push(tenant);
      await sleep(5);
    };
    p.register('polls', 'T0BUSY', handler('T0BUSY'));
    p.register('polls', 'T0CALM', handler('T0CALM'));
    await p.queue('polls', 'T0BUSY').addBulk(
      Array.from({ length: 1_000 }, (_, i) => ({
        name: 'poll',
        data: { tenant: 'T0BUSY', jobId: `b${i}`, dueAt: Date.now() },
        opts: { jobId: planeJobId('poll', 'T0BUSY', `b${i}`), removeOnComplete: true },
      })),
    );
    await waitFor(() => order.length >= 20, { what: 'the backlog under way', timeoutMs: 10_000 });
    for (let i = 0; i < 5; i++) await add(p, 'T0CALM', `c${i}`);
    await waitFor(() => order.filter((t) => t === 'T0CALM').length === 5, {
      what: 'calm jobs',
      timeoutMs: 30_000,
    });
    const busyDone = order.filter((t) => t === 'T0BUSY').length;
    // All five ran while most of the backlog still waited.
    expect(busyDone).toBeLessThan(500);
  });
  it("holds a tenant to its own polls-per-second ceiling without slowing another tenant's", async () => {
    const started: Array<{ tenant: string; at: number }> = [];
    const p = makePlane(async () => 'served');
    const handler = (tenant: string) => async () => void started.push({ tenant, at: Date.now() });
    p.register('polls', 'T0RATE', { process: handler('T0RATE'), maxPerSecond: 4 });
    p.register('polls', 'T0FREE', handler('T0FREE'));
    for (let i = 0; i < 16; i++) {
      await add(p, 'T0RATE', `r${i}`);
      await add(p, 'T0FREE', `f${i}`);
    }
    await waitFor(() => started.length === 32, { what: 'every poll', timeoutMs: 20_000 });
    const perSecond = new Map<number, number>();
    for (const s of started.filter((s) => s.tenant === 'T0RATE')) {
      const second = Math.floor(s.at / 1000);
      perSecond.set(second, (perSecond.get(second) ?? 0) + 1);
    }
    expect(Math.max(...perSecond.values())).toBeLessThanOrEqual(4);
    // The other tenant's polls all ran before the limited tenant's last one.
    const lastFree = started.findLastIndex((s) => s.tenant === 'T0FREE');
    const lastRate = started.findLastIndex((s) => s.tenant === 'T0RATE');
    expect(lastFree).toBeLessThan(lastRate);
  });
});
