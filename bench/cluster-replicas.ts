import { createCluster } from '@redis/client';
import { primariesOf, startRedisCluster } from '../test/support/redis-cluster.js';
import { type Replica, spawnReplica } from './replica-process.js';
import { sized } from './smoke.js';

const SETTLE_MS = sized(15_000, 500);
const IDLE_MS = sized(30_000, 1_000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface ClusterReplicas {
  /** ms from spawn to /readyz 200, per replica. */
  readyMs: Array<number | undefined>;
  /** The replicas' connections on each primary (CLIENT LIST, less the probe's own). */
  connectionsPerNode: number[];
  /** Commands a second on each primary while nobody uses the bot. */
  idleCommandsPerS: number[];
}

/**
 * Two replicas (`dist/main.js`, OAuth mode, REDIS_CLUSTER) as processes on a three-primary Redis Cluster,
 * nobody using the bot: what each node sees. On one node the goals are at most 16 connections per replica
 * and 50 idle commands a second for the deployment; on a cluster both are spread over the primaries.
 */
export async function measureClusterReplicas(env: Record<string, string>, readyTimeoutMs: number) {
  const cluster = await startRedisCluster();
  const probe = createCluster({ rootNodes: [{ url: cluster.seedUrl }] });
  await probe.connect();
  const replicas: Replica[] = [];
  const nodes = () => primariesOf(probe);
  const processed = async () =>
    Promise.all(
      (await nodes()).map(async (node) =>
        Number(/total_commands_processed:(\d+)/.exec(await node.info('stats'))?.[1] ?? 0),
      ),
    );
  try {
    const clusterEnv = { ...env, REDIS_URL: cluster.seedUrl, REDIS_CLUSTER: 'true' };
    for (const name of ['CA', 'CB']) replicas.push(await spawnReplica(name, clusterEnv, readyTimeoutMs));
    const result: ClusterReplicas = {
      readyMs: replicas.map((r) => r.readyMs),
      connectionsPerNode: [],
      idleCommandsPerS: [],
    };
    if (replicas.some((r) => r.readyMs === undefined)) return result;
    await sleep(SETTLE_MS);
    result.connectionsPerNode = await Promise.all(
      (await nodes()).map(async (node) => {
        const lines = String(await node.sendCommand(['CLIENT', 'LIST']))
          .trim()
          .split('\n');
        return lines.length - 1;
      }),
    );
    const before = await processed();
    const started = performance.now();
    await sleep(IDLE_MS);
    const after = await processed();
    const seconds = (performance.now() - started) / 1000;
    // Less the probe's own INFO on each node (one per read).
    result.idleCommandsPerS = after.map((count, i) => (count - before[i]! - 1) / seconds);
    return result;
  } finally {
    for (const replica of replicas) await replica.stop();
    probe.destroy();
    await cluster.stop();
  }
}
