import { createClient } from '@redis/client';
import { createNodeRedisClient } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { closeCluster, clusterOf, createClusterClient, queueClusterOf } from './redis-cluster.js';

// Keep retrying forever with a capped backoff: a Redis restart must not need a bot restart.
const reconnectStrategy = (retries: number) => Math.min(100 * 2 ** retries, 2_000);

function newClient(url: string, options: RedisClientOptions) {
  return createClient({
    url,
    disableOfflineQueue: options.failFast,
    socket: { connectTimeout: options.connectTimeoutMs ?? 5_000, reconnectStrategy },
  });
}

/**
 * A node-redis client (the project's one Redis client library for stores; @keyv/redis and BullMQ use it
 * too). With `cluster`, a node-redis cluster client stands in for it: it answers every keyed command the
 * stores send, routed by key, and the few places that differ (a purge, BullMQ) ask `clusterOf`. The
 * Redis Cluster contract test holds every store to that.
 */
export type RedisClient = ReturnType<typeof newClient>;

export interface RedisClientOptions {
  /**
   * Fail commands at once while disconnected instead of queueing them until Redis is back: state reads must
   * turn into an explicit `state_unavailable`, not hang a Slack request. BullMQ wants the queueing default.
   */
  failFast: boolean;
  connectTimeoutMs?: number;
  /** REDIS_CLUSTER: `url` is one node of a Redis Cluster. */
  cluster?: boolean;
}

/** Creates a client that logs its errors (an unhandled `error` event would crash the process); not connected. */
export function createRedisClient(url: string, logger: Logger, options: RedisClientOptions): RedisClient {
  const client = options.cluster
    ? (createClusterClient(url, { ...options, reconnectStrategy }) as unknown as RedisClient)
    : newClient(url, options);
  let lastLogged = 0;
  client.on('error', (error: unknown) => {
    // A down Redis errors on every reconnect attempt; one line per 5 s is enough.
    const now = Date.now();
    if (now - lastLogged < 5_000) return;
    lastLogged = now;
    logger.error({ error: describeError(error) }, 'redis connection error');
  });
  return client;
}

/** Creates and connects a client. */
export async function connectRedis(
  url: string,
  logger: Logger,
  options: RedisClientOptions,
): Promise<RedisClient> {
  const client = createRedisClient(url, logger, options);
  await client.connect();
  return client;
}

/** How long a close waits for answers to commands already sent before it drops the connection. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Closes a client: commands already sent get their answers first (Redis answers in order, so a PING
 * answered means none is pending), within a bound; then the connection is dropped. A client that is not
 * connected (Redis down, reconnecting) is dropped at once, its queued commands refused: waiting for them
 * would hang shutdown until Redis came back, if ever.
 */
export async function closeRedis(client: RedisClient, graceMs = CLOSE_GRACE_MS): Promise<void> {
  const cluster = clusterOf(client);
  if (cluster) return closeCluster(cluster);
  if (!client.isOpen) return;
  if (client.isReady) {
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([client.ping().catch(() => undefined), late]);
    clearTimeout(timer);
  }
  if (client.isOpen) client.destroy();
}

/** `host:port` of a Redis URL, without credentials (for log lines). */
export function redisAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname}:${parsed.port || '6379'}`;
  } catch {
    return 'the REDIS_URL host';
  }
}

/**
 * Start-up: waits until Redis answers PING, one log line per failed attempt with a growing wait (0.5 s up
 * to 30 s), so the process can serve /healthz meanwhile. Resolves false when `signal` aborts (shutdown).
 */
export async function waitForRedis(
  url: string,
  logger: Logger,
  signal: AbortSignal,
  /** REDIS_CLUSTER: whether `url` must be a cluster node (a mismatch fails at the first key elsewhere). */
  cluster = false,
): Promise<boolean> {
  const where = redisAddress(url);
  for (let attempt = 1; !signal.aborted; attempt++) {
    // A throw-away probe without reconnects: the real clients connect once it answered, so a down Redis
    // is reported here once per attempt instead of by every client.
    const probe = createClient({ url, socket: { connectTimeout: 5_000, reconnectStrategy: false } });
    probe.on('error', () => undefined);
    try {
      await probe.connect();
      await probe.ping();
      const clusterNode = /cluster_enabled:1/.test(await probe.info('cluster'));
      await probe.close();
      if (clusterNode !== cluster) throw new ClusterMismatch(where, clusterNode);
      if (attempt > 1) logger.info({ redis: where, attempt }, `Redis at ${where} answers; starting work`);
      return true;
    } catch (error) {
      if (probe.isOpen) probe.destroy();
      const retryInMs = Math.min(500 * 2 ** (attempt - 1), 30_000);
      logger.warn(
        { redis: where, attempt, retryInMs, error: describeError(error) },
        `Redis at ${where} is not answering (${errorSummary(error)}); alive but not ready (/readyz 503), retrying in ${retryInMs / 1000} s`,
      );
      await new Promise<void>((done) => {
        const timer = setTimeout(done, retryInMs);
        const abort = () => {
          clearTimeout(timer);
          done();
        };
        signal.addEventListener('abort', abort, { once: true });
      });
    }
  }
  return false;
}

/** REDIS_URL's node and REDIS_CLUSTER disagree: every attempt says so, with the fix, until it is fixed. */
class ClusterMismatch extends Error {
  readonly code = 'redis_cluster_mismatch';
  constructor(where: string, clusterNode: boolean) {
    super(
      clusterNode
        ? `${where} is a node of a Redis Cluster: set REDIS_CLUSTER=true (OAuth mode)`
        : `REDIS_CLUSTER=true, but ${where} is not a cluster node: point REDIS_URL at one, or remove REDIS_CLUSTER`,
    );
  }
}

function errorSummary(error: unknown): string {
  if (error instanceof ClusterMismatch) return error.message;
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : 'no answer';
}

/**
 * What BullMQ is given for a client: one adapter per client for the whole process. BullMQ wraps a raw
 * node-redis client anew for every queue and worker, and each wrapper stays subscribed to the client for
 * good and re-emits its errors: once its queue has closed (a tenant uninstalled, OAuth mode) nobody listens,
 * and a Redis blip would crash the process. One wrapper, whose errors are already logged by the client's
 * own listener, subscribes once.
 */
export function bullConnectionOf(client: RedisClient): BullConnection {
  const cluster = clusterOf(client);
  if (cluster) return queueClusterOf(cluster) as unknown as BullConnection;
  const owner = client as RedisClient & { [BULL_CONNECTION]?: BullConnection };
  let adapter = owner[BULL_CONNECTION];
  if (!adapter) {
    adapter = createNodeRedisClient(client);
    adapter.on('error', () => undefined);
    owner[BULL_CONNECTION] = adapter;
  }
  return adapter;
}

type BullConnection = ReturnType<typeof createNodeRedisClient>;
/** Where a client keeps its BullMQ adapter (on the client itself: nothing is kept per module). */
const BULL_CONNECTION = Symbol('docs-agent.bullmq-connection');
