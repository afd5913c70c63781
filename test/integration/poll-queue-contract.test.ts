import { randomUUID } from 'node:crypto';
import { Job } from 'bullmq';
import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { MemoryPollQueue } from '../../src/state/memory/memory-poll-queue.js';
import { BullmqPollQueue } from '../../src/state/redis/bullmq-poll-queue.js';
import { QueuePlane } from '../../src/state/redis/queue-plane.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { gate, PollRecorder, pollQueueContract, sleep } from '../contract/poll-queue.contract.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';
import { singlePlaneView } from '../support/single-plane-view.js';

const logger = createLogger({ level: 'silent', secrets: [] });

describe('memory poll queue', () => {
  pollQueueContract(async ({ concurrency }) => {
    const queue = new MemoryPollQueue({ logger, concurrency });
    return { queue, close: () => queue.close() };
  });
});

describe('bullmq poll queue', () => {
  // Only the server: each replica closes its own connection, as the contract's restarts require.
  const redis = redisForReplicas();

  /** One replica in single-workspace mode: its own connection, its plane under `namespace`, the view. */
  async function replica(namespace: string, concurrency = 2) {
    const client = await connectRedis(redis.url(), logger, { failFast: false });
    const timings = { lockDurationMs: 2_000, stalledIntervalMs: 1_000 };
    const own = singlePlaneView(client, namespace, { pollConcurrency: concurrency, timings });
    const queue = new BullmqPollQueue({ client, logger, namespace, plane: own.plane });
    return {
      queue,
      async close() {
        await queue.close();
        await own.close();
        await closeRedis(client);
      },
    };
  }

  pollQueueContract(({ concurrency }) => replica(`t-${randomUUID()}`, concurrency));

  it('keeps a pending poll in Redis across a restart', async () => {
    const namespace = `t-${randomUUID()}`;
    const first = await replica(namespace);
    const before = new PollRecorder(async () => null);
    first.queue.start(before.handler);
    await first.queue.schedule('job:restart', 400);
    await first.close();

    const second = await replica(namespace);
    try {
      const after = new PollRecorder(async () => null);
      second.queue.start(after.handler);
      await waitFor(() => after.callsOf('job:restart') === 1, { what: 'poll after restart' });
      expect(before.calls).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('on close, lets a running poll finish and hands the job back for the next replica', async () => {
    const namespace = `t-${randomUUID()}`;
    const first = await replica(namespace);
    const release = gate();
    const started = gate();
    const before = new PollRecorder(async () => {
      started.open();
      await release.promise;
      return 50;
    });
    first.queue.start(before.handler);
    await first.queue.schedule('job:handover', 0);
    await started.promise;
    const closing = first.close();
    await sleep(50);
    release.open();
    await closing;
    expect(before.callsOf('job:handover')).toBe(1);

    const second = await replica(namespace);
    try {
      const after = new PollRecorder(async () => null);
      second.queue.start(after.handler);
      await waitFor(() => after.callsOf('job:handover') === 1, { what: 'poll on the next replica' });
    } finally {
      await second.close();
    }
  });

  it('shares the work between two replicas, each job polled by one replica at a time', async () => {
    const namespace = `t-${randomUUID()}`;
    const a = await replica(namespace);
    const b = await replica(namespace);
    try {
      // One recorder behind both replicas: it sees every poll of a job whichever replica runs it.
      const polls = new PollRecorder(async (_id, call) => {
        await sleep(15);
        return call < 6 ? 5 : null;
      });
      const byReplica = { a: 0, b: 0 };
      a.queue.start((id) => {
        byReplica.a += 1;
        return polls.handler(id);
      });
      b.queue.start((id) => {
        byReplica.b += 1;
        return polls.handler(id);
      });
      const ids = ['r1', 'r2', 'r3', 'r4'];
      for (const id of ids) await (id < 'r3' ? a : b).queue.schedule(id, 0);
      await waitFor(() => ids.every((id) => polls.callsOf(id) === 6), { what: 'six polls per job' });
      await sleep(300);
      expect(ids.map((id) => polls.callsOf(id))).toEqual([6, 6, 6, 6]);
      expect(polls.maxActivePerJob).toBe(1);
      expect(byReplica.a + byReplica.b).toBe(24);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('a poll that failed after its handler is retried by the queue, not by the replica that saw it', async () => {
    const namespace = `t-${randomUUID()}`;
    const a = await replica(namespace);
    // Re-delaying the poll fails once (Redis dropped the command), and this replica cannot re-queue the
    // job itself either (as if it died right after): only BullMQ's own retry can bring the poll back.
    const moveToDelayed = vi
      .spyOn(Job.prototype, 'moveToDelayed')
      .mockRejectedValueOnce(new Error('Connection lost while re-delaying'));
    const schedule = vi.spyOn(a.queue, 'schedule');
    try {
      const polls = new PollRecorder(async (_id, call) => (call === 1 ? 50 : null));
      a.queue.start(polls.handler);
      await a.queue.schedule('job:retried', 0);
      schedule.mockRejectedValue(new Error('this replica is gone'));
      await waitFor(() => polls.callsOf('job:retried') === 2, {
        what: 'the poll retried',
        timeoutMs: 10_000,
      });
      // The handler ran again, brought back by the queue alone (this replica's re-queue was refused).
      expect(polls.callsOf('job:retried')).toBe(2);
      expect(moveToDelayed).toHaveBeenCalled();
    } finally {
      moveToDelayed.mockRestore();
      schedule.mockRestore();
      await a.close();
    }
  });
});

/**
 * OAuth mode on Redis (issue 34): a tenant's poll queue is a view of the replica's shared plane. The same
 * contract holds, `concurrency` being the tenant's cap on a plane that would run more.
 */
describe('bullmq poll queue as a view of the shared plane', () => {
  // Only the server: each replica closes its own connection, as the contract's restarts require.
  const redis = redisForReplicas();

  /** One replica: its connection, its plane (under a test prefix), and the tenant's view of it. */
  async function replica(tenant: string, concurrency = 2) {
    const client = await connectRedis(redis.url(), logger, { failFast: false });
    const plane = new QueuePlane({
      client,
      logger,
      wake: async () => 'served',
      prefix: `plane-${tenant}`,
      concurrency: { polls: 8 },
      perTenantCap: concurrency,
    });
    const queue = new BullmqPollQueue({
      client,
      logger,
      namespace: `docs-agent:t:${tenant}`,
      plane: { plane, tenant },
    });
    // As at a replica's start: every shard's Worker is made before any tenant's poll is queued.
    plane.start();
    await plane.queues.ready();
    return {
      queue,
      async close() {
        await queue.close();
        await plane.close();
        await closeRedis(client);
      },
    };
  }

  pollQueueContract(({ concurrency }) => replica(`T${randomUUID().slice(0, 8).toUpperCase()}`, concurrency));
});
