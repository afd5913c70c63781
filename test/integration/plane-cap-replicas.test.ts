import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { planeJobId, QueuePlane } from '../../src/state/redis/queue-plane.js';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 43: a tenant's cap (jobs of a kind running at once) holds for the deployment, not per replica:
 * three replicas' planes never run more of one tenant's jobs together than its cap.
 */
describe('the per-tenant cap across replicas', () => {
  const redis = redisForReplicas();
  let client: RedisClient;
  const planes: QueuePlane[] = [];

  beforeAll(async () => {
    client = await redis.replica({ failFast: false });
  });
  afterEach(async () => {
    for (const plane of planes.splice(0)) await plane.close();
  });

  it('runs at most the cap of one tenant’s jobs at once over three replicas, and all of them', async () => {
    const prefix = `plane-cap-${Date.now()}`;
    let running = 0;
    let most = 0;
    let done = 0;
    for (let i = 0; i < 3; i++) {
      const plane = new QueuePlane({
        client,
        logger,
        prefix,
        perTenantCap: 2,
        concurrency: { polls: 8 },
        wake: async () => 'served',
      });
      plane.register('polls', 'T0BUSY', async () => {
        running++;
        most = Math.max(most, running);
        await sleep(40); // the poll's work: long enough for the replicas' runs to overlap
        running--;
        done++;
      });
      planes.push(plane);
    }
    await planes[0]!.queue('polls', 'T0BUSY').addBulk(
      Array.from({ length: 30 }, (_, i) => ({
        name: 'poll',
        data: { tenant: 'T0BUSY', jobId: `j${i}` },
        opts: { jobId: planeJobId('poll', 'T0BUSY', `j${i}`), removeOnComplete: true },
      })),
    );
    await waitFor(() => done === 30, { what: 'every poll', timeoutMs: 30_000 });
    expect(most).toBeLessThanOrEqual(2);
    expect(most).toBeGreaterThanOrEqual(1);
  });
});
