import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { KeyvJobStore } from './keyv-job-store.js';
import { RedisAtomicOps } from './redis-atomic-ops.js';
import { closeRedis, connectRedis, type RedisClient } from './redis-client.js';

/** Every key the bot writes starts with this (Keyv's records as `docs-agent::…`, the rest as `docs-agent:…`). */
export const DEFAULT_REDIS_NAMESPACE = 'docs-agent';

export interface RedisJobStore {
  store: KeyvJobStore;
  /** The store's fail-fast client, for other Redis adapters (the hourly quota) to share. */
  client: RedisClient;
  close(): Promise<void>;
}

/**
 * The production store: job records and thread links through Keyv on `@keyv/redis`, claims and the watched
 * set through `RedisAtomicOps`, all on one connection. Keyv is namespaced (its `clear()` could only ever
 * delete the bot's own keys; nothing here calls it) and `throwOnErrors` is on, so a Redis failure rejects and
 * the store reports `state_unavailable` instead of an empty read ("no job for this thread").
 */
export async function createRedisJobStore(
  redisUrl: string,
  logger: Logger,
  options: { namespace?: string } = {},
): Promise<RedisJobStore> {
  const namespace = options.namespace ?? DEFAULT_REDIS_NAMESPACE;
  const log = logger.child({ component: 'redis-store' });
  const client = await connectRedis(redisUrl, log, { failFast: true });
  const adapter = new KeyvRedis(client, { namespace, throwOnErrors: true, throwOnConnectError: true });
  const keyv = new Keyv({ store: adapter, namespace, useKeyPrefix: false, throwOnErrors: true });
  // Keyv re-emits its adapter's errors; without a listener an error event would crash the process.
  keyv.on('error', (error: unknown) => log.error({ error: describeError(error) }, 'state store error'));
  const store = new KeyvJobStore(keyv, new RedisAtomicOps(client, `${namespace}:`));
  return {
    store,
    client,
    async close() {
      await closeRedis(client);
    },
  };
}
