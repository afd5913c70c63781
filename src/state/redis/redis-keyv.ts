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
  const adapter = keyvRedisOn(client, namespace);
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

const ADAPTER_EVENTS = ['error', 'connect', 'disconnect', 'reconnecting'] as const;

/**
 * `@keyv/redis` hangs four listeners on the client it is given and never takes them off. On the process's
 * shared connection (OAuth mode: scopes built on demand and evicted, each with its stores) they would pile up
 * for the process's life, so they are taken off at once: the connection's own listener says its errors, and
 * with `throwOnErrors` every failed command still rejects.
 */
export function keyvRedisOn(client: RedisClient, namespace: string): KeyvRedis<unknown> {
  const before = new Map(ADAPTER_EVENTS.map((event) => [event, new Set(client.listeners(event))]));
  const adapter = new KeyvRedis(client, { namespace, throwOnErrors: true, throwOnConnectError: true });
  for (const event of ADAPTER_EVENTS)
    for (const listener of client.listeners(event))
      if (!before.get(event)?.has(listener)) client.off(event, listener as (...args: unknown[]) => void);
  return adapter;
}
