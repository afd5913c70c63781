import { afterAll, beforeAll } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { type RedisServer, startRedisServer } from './redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/**
 * A redis-server for the enclosing file (or describe block) and a connection per replica on it, every
 * connection closed and the server stopped after its tests. Call at the top of the file or the block.
 */
export function redisForReplicas() {
  let redis: RedisServer | undefined;
  const clients: RedisClient[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    for (const client of clients) await closeRedis(client);
    await redis?.stop();
  });
  return {
    url: () => redis!.url,
    /** A connection of its own (fail-fast unless told): one replica. */
    async replica(options: { failFast: boolean } = { failFast: true }): Promise<RedisClient> {
      const client = await connectRedis(redis!.url, logger, options);
      clients.push(client);
      return client;
    },
  };
}
