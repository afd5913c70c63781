import { createCluster } from '@redis/client';
import { createIORedisClient } from 'bullmq';
import { Cluster } from 'ioredis';

/**
 * REDIS_CLUSTER (issue 34): the stores' commands go to a node-redis cluster client, which routes each one by
 * its key; BullMQ's node-redis client has no cluster support, so queues get an ioredis Cluster, made once per
 * client. Key names keep every multi-key command inside one slot (tenantNamespace, directoryPrefix).
 */
export interface ClusterClientOptions {
  /** As RedisClientOptions: fail at once while disconnected (stores), or queue (BullMQ). */
  failFast: boolean;
  connectTimeoutMs?: number;
  reconnectStrategy: (retries: number) => number;
}

export type NodeRedisCluster = ReturnType<typeof createClusterClient>;

/** Where a cluster-backed client keeps the cluster itself, and its ioredis twin for BullMQ once made. */
const CLUSTER = Symbol('docs-agent.redis-cluster');
const QUEUE_CLUSTER = Symbol('docs-agent.redis-cluster-queues');
const SEED = Symbol('docs-agent.redis-cluster-seed');

/** Credentials and TLS of the seed's URL apply to every node the cluster names (they share them). */
function nodeDefaults(url: string) {
  const parsed = new URL(url);
  return {
    username: parsed.username ? decodeURIComponent(parsed.username) : undefined,
    password: parsed.password ? decodeURIComponent(parsed.password) : undefined,
    tls: parsed.protocol === 'rediss:',
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
  };
}

export function createClusterClient(url: string, options: ClusterClientOptions) {
  const { username, password, tls } = nodeDefaults(url);
  const cluster = createCluster({
    rootNodes: [{ url }],
    defaults: {
      ...(username ? { username } : {}),
      ...(password ? { password } : {}),
      disableOfflineQueue: options.failFast,
      socket: {
        ...(tls ? { tls: true as const } : {}),
        connectTimeout: options.connectTimeoutMs ?? 5_000,
        reconnectStrategy: options.reconnectStrategy,
      },
    },
  });
  Object.assign(cluster, { [CLUSTER]: cluster, [SEED]: url });
  return cluster;
}

/** The cluster behind a client made by createClusterClient; undefined for a single-node client. */
export function clusterOf(client: object): NodeRedisCluster | undefined {
  return (client as Record<symbol, NodeRedisCluster | undefined>)[CLUSTER];
}

/** BullMQ's connection for a cluster-backed client: one ioredis Cluster per client, made on first use. */
export function queueClusterOf(client: object) {
  const owner = client as Record<symbol, ReturnType<typeof createIORedisClient> | undefined>;
  let adapter = owner[QUEUE_CLUSTER];
  if (!adapter) {
    const { host, port, username, password, tls } = nodeDefaults(String(owner[SEED]));
    const ioredis = new Cluster([{ host, port }], {
      // BullMQ's workers wait on blocking commands and must never give up on one.
      redisOptions: {
        maxRetriesPerRequest: null,
        ...(username ? { username } : {}),
        ...(password ? { password } : {}),
        ...(tls ? { tls: {} } : {}),
      },
      clusterRetryStrategy: (times) => Math.min(100 * 2 ** times, 2_000),
      // Each Worker's blocking connection is a copy of this Cluster that reads the slot map when it connects:
      // a replica starts one per kind and shard (issue 43), so many read it at once at boot; ioredis's 1 s
      // default then fails on a busy node ("Failed to refresh slots cache").
      slotsRefreshTimeout: 10_000,
    });
    // Errors are said by the store connection's own listener; an unheard one would crash the process.
    ioredis.on('error', () => undefined);
    adapter = createIORedisClient(ioredis);
    adapter.on('error', () => undefined);
    owner[QUEUE_CLUSTER] = adapter;
  }
  return adapter;
}

/** Closes a cluster client and its BullMQ twin, if one was made. */
export async function closeCluster(cluster: NodeRedisCluster): Promise<void> {
  const queues = (cluster as unknown as Record<symbol, { quit(): Promise<unknown> } | undefined>)[
    QUEUE_CLUSTER
  ];
  await Promise.all([
    queues?.quit().catch(() => undefined),
    cluster.isOpen ? cluster.close().catch(() => cluster.destroy()) : undefined,
  ]);
}
