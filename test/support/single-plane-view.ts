import { createLogger } from '../../src/common/logger.js';
import type { PlaneTimings } from '../../src/state/redis/plane-kinds.js';
import type { QueuePlane } from '../../src/state/redis/queue-plane.js';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { SINGLE_WORKSPACE_TENANT, singleWorkspacePlane } from '../../src/state/redis/single-plane.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/**
 * A replica's queues in single-workspace mode, as `redisAdapters` builds them: its plane under the
 * namespace, the one tenant's views (pass `plane` to an adapter); `close` stops its Workers.
 */
export function singlePlaneView(
  client: RedisClient,
  namespace: string,
  o: { pollConcurrency?: number; timings?: PlaneTimings } = {},
): { plane: { plane: QueuePlane; tenant: string }; close(): Promise<void> } {
  const plane = singleWorkspacePlane({
    client,
    logger,
    namespace,
    pollConcurrency: o.pollConcurrency ?? 2,
    ...(o.timings ? { timings: o.timings } : {}),
  });
  return { plane: { plane, tenant: SINGLE_WORKSPACE_TENANT }, close: () => plane.close() };
}
