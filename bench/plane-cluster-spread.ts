import { createCluster } from '@redis/client';
import { PLANE_KINDS } from '../src/state/redis/plane-kinds.js';
import { QueuePlane } from '../src/state/redis/queue-plane.js';
import { createSharedRedisConnections } from '../src/state/redis/redis-job-store.js';
import { addNowAndLater } from '../test/support/plane-seed.js';
import { commandsProcessed, primariesOf, startRedisCluster } from '../test/support/redis-cluster.js';
import { createLogger } from './product.js';
import { table } from './stats.js';

/*
 * Issue 43's goal "Cluster, 8 shards per kind: no primary carries more than 50% of the queue traffic"
 * (BENCHMARKS §13). A three-primary Redis Cluster (real redis-server processes, slots split evenly as
 * `redis-cli --cluster create` does), the product's queue plane with QUEUE_SHARDS=8 (REDIS_CLUSTER's
 * default), BENCH_SPREAD_TENANTS tenants (1,000). For each kind in turn: every tenant gets a job due now and
 * one an hour away; once every tenant's job ran, each primary's share of the commands it processed meanwhile
 * (`INFO stats`, the probe's own INFO calls included, a few against thousands). Then the same over all kinds.
 *
 *   npx tsx bench/plane-cluster-spread.ts
 */

const TENANTS = Number(process.env.BENCH_SPREAD_TENANTS ?? 1_000);
const SHARDS = 8;
const GOAL = 0.5;
const logger = createLogger({ level: 'silent', secrets: [] });

async function main(): Promise<void> {
  const cluster = await startRedisCluster();
  const probe = createCluster({ rootNodes: [{ url: cluster.seedUrl }] });
  await probe.connect();
  const shared = createSharedRedisConnections(cluster.seedUrl, logger, { cluster: true });
  await shared.connect();
  const tenants = Array.from({ length: TENANTS }, (_, i) => `T0SPREAD${i.toString(36).toUpperCase()}`);
  const nodes = await primariesOf(probe);
  const processed = () => commandsProcessed(nodes);
  const rows: Array<Record<string, string | number>> = [];
  const total = nodes.map(() => 0);
  try {
    for (const kind of PLANE_KINDS) {
      const traffic = await oneKind(kind, tenants, shared, processed);
      traffic.forEach((n, i) => {
        total[i] = (total[i] ?? 0) + n;
      });
      rows.push(row(kind, traffic));
    }
    rows.push(row('all kinds', total));
  } finally {
    await shared.close();
    probe.destroy();
    await cluster.stop();
  }
  console.log(
    `Queue plane on a three-primary Redis Cluster, ${SHARDS} shards per kind, ${TENANTS} tenants, ` +
      'a job due now and one an hour away each, per kind',
  );
  console.log(table(rows));
}

/** Commands each primary processed while every tenant's job of `kind` was added and ran. */
async function oneKind(
  kind: (typeof PLANE_KINDS)[number],
  tenants: string[],
  shared: ReturnType<typeof createSharedRedisConnections>,
  processed: () => Promise<number[]>,
): Promise<number[]> {
  const ran = new Set<string>();
  const plane = new QueuePlane({
    client: shared.queueClient,
    logger,
    prefix: `spread-${kind}`,
    shards: SHARDS,
    wake: async () => 'served',
  });
  try {
    for (const tenant of tenants) plane.register(kind, tenant, async () => void ran.add(tenant));
    const before = await processed();
    await addNowAndLater(plane, kind, kind, tenants);
    const deadline = Date.now() + 120_000;
    while (ran.size < tenants.length) {
      if (Date.now() > deadline) throw new Error(`${kind}: ${ran.size} of ${tenants.length} jobs ran`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const after = await processed();
    return after.map((n, i) => n - (before[i] ?? 0));
  } finally {
    await plane.close();
  }
}

function row(kind: string, traffic: number[]): Record<string, string | number> {
  const sum = traffic.reduce((a, b) => a + b, 0);
  const shares = traffic.map((n) => n / sum);
  const worst = Math.max(...shares);
  return {
    kind,
    'commands per primary': traffic.join(' / '),
    'share per primary': shares.map((s) => `${(100 * s).toFixed(1)}%`).join(' / '),
    'busiest primary': `${(100 * worst).toFixed(1)}% (goal ≤ ${100 * GOAL}%)`,
    verdict: worst <= GOAL ? '✓ met' : '✗ missed',
  };
}

await main();
process.exit(0);
