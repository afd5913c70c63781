import { createLogger } from '../src/common/logger.js';
import { planeJobId, QueuePlane } from '../src/state/redis/queue-plane.js';
import { closeRedis, connectRedis } from '../src/state/redis/redis-client.js';
import { sized } from './smoke.js';
import { percentile } from './stats.js';

/**
 * Issue 34's fairness goal, on the real shared plane and a real redis-server: two replicas' planes (the
 * production kind options, DOCS_API_MAX_CONCURRENCY's default cap of 4 per tenant), one tenant with 1,000
 * polls due at once, 20 others with 10 polls each coming due over the next 10 s. A poll takes 50 ms (a
 * slow docs API read). Each other poll's delay is when it started against when it was due. Run once with
 * the per-tenant cap and once without it (what one queue per deployment would be with no fairness).
 */
export interface Fairness {
  measured: true;
  others: { count: number; p50: number; p99: number; max: number };
  busyDrainMs: number;
  withoutCap: { p99: number; max: number };
}

const BUSY = sized(1_000, 100);
const OTHERS = sized(20, 3);
const EACH = sized(10, 3);
const SPREAD_MS = sized(10_000, 2_000);
const POLL_MS = 50;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function measureFairness(redisUrl: string): Promise<Fairness> {
  const withCap = await run(redisUrl, 4, 'fair');
  const withoutCap = await run(redisUrl, 1_000_000, 'unfair');
  return {
    measured: true,
    others: withCap.others,
    busyDrainMs: withCap.busyDrainMs,
    withoutCap: { p99: withoutCap.others.p99, max: withoutCap.others.max },
  };
}

async function run(redisUrl: string, perTenantCap: number, name: string) {
  const logger = createLogger({ level: 'silent', secrets: [] });
  const clients = await Promise.all([0, 1].map(() => connectRedis(redisUrl, logger, { failFast: false })));
  const delays: number[] = [];
  let busyLeft = BUSY;
  let busyDoneAt = 0;
  const started = Date.now();
  const planes = clients.map(
    (client) =>
      new QueuePlane({
        ...{ client, logger, wake: async () => 'served', prefix: `bench-fairness-${name}`, perTenantCap },
        // As src/state/tenant-directories.ts makes it for DOCS_API_MAX_CONCURRENCY's default (4).
        concurrency: { polls: 16 },
        shards: 1,
      }),
  );
  const handler = (tenant: string) => async (job: { data: { dueAt: number } }) => {
    if (tenant === 'T0BUSY') {
      busyLeft--;
      if (busyLeft === 0) busyDoneAt = Date.now();
    } else delays.push(Date.now() - job.data.dueAt);
    await sleep(POLL_MS);
  };
  const tenants = ['T0BUSY', ...Array.from({ length: OTHERS }, (_, i) => `T0OTHER${i}`)];
  for (const plane of planes) for (const tenant of tenants) plane.register('polls', tenant, handler(tenant));
  const queue = planes[0]!.queue('polls', 'T0BUSY'); // one shard (below): every tenant's queue
  const now = Date.now();
  await queue.addBulk(
    Array.from({ length: BUSY }, (_, i) => ({
      name: 'poll',
      data: { tenant: 'T0BUSY', jobId: `b${i}`, dueAt: now },
      opts: { jobId: planeJobId('poll', 'T0BUSY', `b${i}`), removeOnComplete: true },
    })),
  );
  await queue.addBulk(
    tenants.slice(1).flatMap((tenant, t) =>
      Array.from({ length: EACH }, (_, i) => {
        const delay = Math.round(((t * EACH + i) / (OTHERS * EACH)) * SPREAD_MS);
        return {
          name: 'poll',
          data: { tenant, jobId: `o${i}`, dueAt: now + delay },
          opts: { jobId: planeJobId('poll', tenant, `o${i}`), delay, removeOnComplete: true },
        };
      }),
    ),
  );
  const deadline = Date.now() + 10 * 60_000;
  while ((delays.length < OTHERS * EACH || busyLeft > 0) && Date.now() < deadline) await sleep(100);
  await queue.obliterate({ force: true }).catch(() => undefined);
  for (const plane of planes) await plane.close();
  for (const client of clients) await closeRedis(client);
  return {
    others: {
      count: delays.length,
      p50: percentile(delays, 50),
      p99: percentile(delays, 99),
      max: Math.max(...delays),
    },
    busyDrainMs: (busyDoneAt || Date.now()) - started,
  };
}
