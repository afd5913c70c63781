import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { planeJobId, QueuePlane, type WakeResult } from '../../src/state/redis/queue-plane.js';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisParkedJobs } from '../../src/state/redis/redis-parked-jobs.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/**
 * Issue 43: a held tenant's queued jobs are parked under it (not moved back every minute) and released at
 * once, each once, when its hold lifts, however many replicas see the lift.
 */
describe('the shared queue plane parks a held tenant’s jobs', () => {
  const redis = redisForReplicas();
  let client: RedisClient;
  const planes: QueuePlane[] = [];
  let run = 0;

  beforeAll(async () => {
    client = await redis.replica({ failFast: false });
  });
  afterEach(async () => {
    await Promise.all(planes.splice(0).map((p) => p.close()));
  });

  it('parks the job, wakes nothing more, then runs it once when two replicas release it', async () => {
    run++;
    const prefix = `plane-parked-${run}-${Date.now()}`;
    const parked = new RedisParkedJobs(client, prefix);
    let held = true;
    const wakes: string[] = [];
    const ran: string[] = [];
    const make = () => {
      const plane: QueuePlane = new QueuePlane({
        client,
        logger,
        prefix,
        parked,
        wake: async (tenant): Promise<WakeResult> => {
          wakes.push(tenant);
          if (held) return 'held';
          plane.register('polls', tenant, async (job) => void ran.push(job.data.jobId));
          return 'served';
        },
      });
      planes.push(plane);
      return plane;
    };
    const [a, b] = [make(), make()];
    a.start();
    const id = planeJobId('poll', 'T0HELD', 'waits');
    await a
      .queue('polls', 'T0HELD')
      .add('poll', { tenant: 'T0HELD', jobId: 'waits', dueAt: Date.now() }, { jobId: id });

    await waitFor(() => parked.has('T0HELD'), { what: 'the job parked', timeoutMs: 10_000 });
    const job = await a.queue('polls', 'T0HELD').getJob(id);
    expect(await job?.getState()).toBe('delayed');
    // Parked far ahead (not the minute it used to be moved back by).
    expect((job?.timestamp ?? 0) + (job?.delay ?? 0) - Date.now()).toBeGreaterThan(30 * 60_000);
    expect(wakes).toEqual(['T0HELD']);

    held = false;
    const released = await Promise.all([a.releaseParked('T0HELD'), b.releaseParked('T0HELD')]);
    expect(released.sort()).toEqual([0, 1]);
    await waitFor(() => ran.length > 0, { what: 'the released job run', timeoutMs: 10_000 });
    await waitFor(async () => (await a.queue('polls', 'T0HELD').getJob(id)) === undefined, {
      what: 'it completed',
    });
    expect(ran).toEqual(['waits']);
    expect(await parked.has('T0HELD')).toBe(false);
  });
});
