import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import type { Logger } from '../../common/logger.js';
import { storeErrorListener } from '../store-errors.js';
import type { RedisClient } from './redis-client.js';

/** Keyv's values as plain JSON (no Keyv type tags), for stores whose values are JSON already. */
export const PLAIN_JSON = { serialize: JSON.stringify, deserialize: JSON.parse } as const;

/**
 * A Keyv on the bot's Redis connection, namespaced (its `clear()` could only touch the bot's own keys) and
 * throwing on every error (`@keyv/redis` swallows them otherwise: a read would look like "not found"). Keyv
 * re-emits its adapter's errors too; they are logged as `<what> error` instead of crashing the process.
 */
export function redisKeyv(
  client: RedisClient,
  namespace: string,
  logger: Logger,
  what: string,
  options: { plainJson?: boolean; level?: 'warn' | 'error' } = {},
): Keyv {
  const adapter = new KeyvRedis(client, { namespace, throwOnErrors: true, throwOnConnectError: true });
  const keyv = new Keyv({
    store: adapter,
    namespace,
    useKeyPrefix: false,
    throwOnErrors: true,
    ...(options.plainJson ? PLAIN_JSON : {}),
  });
  keyv.on('error', storeErrorListener(logger, `${what} error`, options.level));
  return keyv;
}
