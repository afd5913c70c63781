import type { RedisClient } from './redis-client.js';

/** A tenant over its per-second ceiling is moved back at most this far (then counted again). */
const RATE_DEFER_MAX_MS = 30_000;

/**
 * The tenant's starts of a kind in the current second, counted in Redis under `keyPrefix` (its shard's tag)
 * so the ceiling holds across replicas (as BullMQ's queue-wide limiter did when each tenant had its own
 * queue). Over it: how long until the second this start fits in (the n-th over the ceiling waits n / max
 * seconds more), else 0.
 */
export async function rateDeferral(
  client: RedisClient,
  keyPrefix: string,
  tenant: string,
  max: number | undefined,
): Promise<number> {
  if (!max || max <= 0) return 0;
  const now = Date.now();
  const second = Math.floor(now / 1000);
  const key = `${keyPrefix}:rate:${encodeURIComponent(tenant)}:${second}`;
  const [count] = (await client.multi().incr(key).pExpire(key, 2_000).exec()) as [number, unknown];
  if (count <= max) return 0;
  const secondsLater = 1 + Math.floor((count - max - 1) / max);
  return Math.min(RATE_DEFER_MAX_MS, (second + secondsLater) * 1000 - now);
}
