import type { Logger } from '../../common/logger.js';
import { SINGLE_NODE_QUEUE_SHARDS } from './plane-shards.js';
import { QueuePlane } from './queue-plane.js';
import type { RedisClient } from './redis-client.js';

/** The one tenant of a single-workspace deployment on the plane (its jobs' `tenant`). */
export const SINGLE_WORKSPACE_TENANT = 'workspace';

/**
 * One tenant: the cap between tenants has nobody to protect, so only each kind's concurrency in the replica
 * limits it (as its own Workers did).
 */
const SINGLE_TENANT_CAP = 10_000;

/**
 * Single-workspace mode on the plane (issue 43 §6): the same queues and Workers as OAuth mode, under the
 * deployment's one key space, one shard, one tenant whose scope is always resident. The concurrencies are
 * the ones its own Workers had.
 */
export function singleWorkspacePlane(o: {
  client: RedisClient;
  logger: Logger;
  namespace: string;
  pollConcurrency: number;
  timings?: { lockDurationMs: number; stalledIntervalMs: number };
}): QueuePlane {
  return new QueuePlane({
    client: o.client,
    logger: o.logger,
    prefix: o.namespace,
    shards: SINGLE_NODE_QUEUE_SHARDS,
    // Its scope is this process: a job before its handlers registered is moved back a moment.
    wake: async () => 'served',
    concurrency: { polls: o.pollConcurrency, 'pr-follow': 2, impact: 1, weekly: 1, alerts: 1 },
    perTenantCap: SINGLE_TENANT_CAP,
    ...(o.timings ? { timings: o.timings } : {}),
  });
}
