import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { TenantMetrics } from '../../src/metrics/tenant-metrics.js';
import { planeJobId, QueuePlane } from '../../src/state/redis/queue-plane.js';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisDueIndex } from '../../src/state/redis/redis-due-index.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/**
 * Issue 43: /metrics says each kind's backlog (waiting + delayed, every shard), how long its oldest ready
 * job has waited, the jobs moved back instead of run (by kind and reason) and the due index's size, with
 * the kind as the only label: never a tenant.
 */
describe('the queue plane’s metrics', () => {
  const redis = redisForReplicas();
  let client: RedisClient;
  let plane: QueuePlane | undefined;
  /** Ends the running poll, pass or fail, so the plane can close. */
  let release = () => {};

  beforeAll(async () => {
    client = await redis.replica({ failFast: false });
  });
  afterEach(async () => {
    release();
    await plane?.close();
  });

  it('reports depth, oldest waiting age, deferrals and due-index size by kind, never by tenant', async () => {
    const metrics = new TenantMetrics({ defaultMetrics: false });
    const dueIndex = new RedisDueIndex(client);
    const queues = metrics.watchQueues({
      stats: () => p.queues.stats(),
      dueIndexSize: () => dueIndex.size(),
    });
    const p = new QueuePlane({
      client,
      logger,
      prefix: `plane-metrics-${Date.now()}`,
      perTenantCap: 1,
      wake: async () => 'served',
      deferred: (kind, reason) => queues.deferred(kind, reason),
    });
    plane = p;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let started = 0;
    p.register('polls', 'T0BUSY', async () => {
      started++;
      await released;
    });
    // Three polls due now for a tenant at a cap of one: two wait for its turn while the first runs (the
    // fair take skips a tenant at its cap: nothing is taken and moved back).
    for (const id of ['a', 'b', 'c'])
      await p
        .queue('polls', 'T0BUSY')
        .add('poll', { tenant: 'T0BUSY', jobId: id }, { jobId: planeJobId('poll', 'T0BUSY', id) });
    // Impact checks nobody takes here (no Worker for the kind): two ready, one a day away.
    for (const [tenant, delay] of [
      ['T0ONE', 0],
      ['T0TWO', 0],
      ['T0THREE', 86_400_000],
    ] as const)
      await p
        .queue('impact', tenant)
        .add('check', { tenant }, { jobId: planeJobId('impact', tenant, 'c'), delay });
    await dueIndex.mark('T0DUE1', Date.now());
    await dueIndex.mark('T0DUE2', Date.now());

    const scrape = async () => (await metrics.render()).body;
    await waitFor(
      async () => started === 1 && /^docs_agent_queue_depth\{kind="polls"\} 2$/m.test(await scrape()),
      {
        what: 'one poll running, two waiting for their tenant’s turn',
        timeoutMs: 10_000,
      },
    );
    const body = await scrape();
    expect(started).toBe(1);
    expect(body).toMatch(/^docs_agent_queue_depth\{kind="impact"\} 3$/m);
    expect(body).toMatch(/^docs_agent_queue_depth\{kind="polls"\} 2$/m);
    expect(body).toMatch(/^docs_agent_queue_depth\{kind="weekly"\} 0$/m);
    const oldest = /^docs_agent_queue_oldest_waiting_seconds\{kind="impact"\} ([\d.e-]+)$/m.exec(body);
    expect(Number(oldest?.[1])).toBeGreaterThan(0);
    const oldestPoll = /^docs_agent_queue_oldest_waiting_seconds\{kind="polls"\} ([\d.e-]+)$/m.exec(body);
    expect(Number(oldestPoll?.[1])).toBeGreaterThan(0);
    expect(body).not.toMatch(/^docs_agent_queue_deferrals_total\{kind="polls",reason="(cap|rate)"\} [1-9]/m);
    expect(body).toMatch(/^docs_agent_due_index_size 2$/m);
    // The kind (and reason) only: no tenant names a queue series.
    expect(
      body.split('\n').filter((line) => /^docs_agent_(queue|due)_/.test(line) && /T0/.test(line)),
    ).toEqual([]);
  });
});
