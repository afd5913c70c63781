import { createClient } from '@redis/client';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';

function newClient(url: string, options: RedisClientOptions) {
  return createClient({
    url,
    disableOfflineQueue: options.failFast,
    socket: {
      connectTimeout: options.connectTimeoutMs ?? 5_000,
      // Keep retrying forever with a capped backoff: a Redis restart must not need a bot restart.
      reconnectStrategy: (retries: number) => Math.min(100 * 2 ** retries, 2_000),
    },
  });
}

/** A node-redis client (the project's one Redis client library; @keyv/redis and BullMQ use it too). */
export type RedisClient = ReturnType<typeof newClient>;

export interface RedisClientOptions {
  /**
   * Fail commands at once while disconnected instead of queueing them until Redis is back: state reads must
   * turn into an explicit `state_unavailable`, not hang a Slack request. BullMQ wants the queueing default.
   */
  failFast: boolean;
  connectTimeoutMs?: number;
}

/** Creates a client that logs its errors (an unhandled `error` event would crash the process); not connected. */
export function createRedisClient(url: string, logger: Logger, options: RedisClientOptions): RedisClient {
  const client = newClient(url, options);
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

/** Closes a client, falling back to dropping the socket when Redis is not answering. */
export async function closeRedis(client: RedisClient): Promise<void> {
  if (!client.isOpen) return;
  try {
    await client.close();
  } catch {
    client.destroy();
  }
}
