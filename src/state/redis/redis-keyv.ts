import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import type { Logger } from '../../common/logger.js';
import type { KeyValues } from '../key-values.js';
import { storeErrorListener } from '../store-errors.js';
import type { RedisClient } from './redis-client.js';

/** Keyv's values as plain JSON (no Keyv type tags), for stores whose values are JSON already. */
export const PLAIN_JSON = { serialize: JSON.stringify, deserialize: JSON.parse } as const;

/**
 * One namespace's view of the connection's one Keyv: each key is the one a Keyv namespaced `namespace` on
 * its own `@keyv/redis` adapter would write (`<namespace>::<key>`), so the key space and the stored format
 * are unchanged. A Keyv with its adapter costs about 2 KB (event, hook and stats tables); per store per
 * tenant that was a resident tenant's largest Keyv cost (issue 43 §2), this view is two fields. Errors are
 * told to this namespace's listener (as the Keyv's `error` event did) and still reject.
 */
export class RedisKeyValues implements KeyValues {
  constructor(
    private readonly shared: Keyv,
    private readonly prefix: string,
    private readonly failed: (error: unknown) => void,
  ) {}

  /** The Redis key of one of its keys (for scripts that write what `get` reads). */
  keyOf(key: string): string {
    return this.prefix + key;
  }

  /** A value as Keyv stores it (`{ value, expires }` through its serializer). */
  serializeData<T>(data: { value: T; expires?: number }): Promise<unknown> {
    return this.shared.serializeData(data);
  }

  get<T>(key: string): Promise<T | undefined> {
    return this.told(this.shared.get<T>(this.prefix + key));
  }

  set(key: string, value: unknown, ttl?: number): Promise<boolean> {
    return this.told(this.shared.set(this.prefix + key, value, ttl));
  }

  delete(key: string): Promise<boolean> {
    return this.told(this.shared.delete(this.prefix + key));
  }

  private async told<T>(operation: Promise<T>): Promise<T> {
    try {
      return await operation;
    } catch (error) {
      this.failed(error);
      throw error;
    }
  }
}

/** Where a connection keeps its Keyvs (Keyv's own values, plain JSON), each made on first use. */
const SHARED_KEYVS = Symbol('docs-agent.shared-keyvs');

function sharedKeyv(client: RedisClient, plainJson: boolean): Keyv {
  const holder = client as unknown as { [SHARED_KEYVS]?: { tagged?: Keyv; plain?: Keyv } };
  holder[SHARED_KEYVS] ??= {};
  const shared = holder[SHARED_KEYVS];
  const which = plainJson ? 'plain' : 'tagged';
  let keyv = shared[which];
  if (!keyv) {
    // No namespace ('' keeps Keyv's default `keyv` off): each view prefixes its keys. No error events
    // either: errors are told to each view's listener.
    keyv = new Keyv({
      store: keyvRedisOn(client, undefined),
      namespace: '',
      useKeyPrefix: false,
      throwOnErrors: true,
      emitErrors: false,
      ...(plainJson ? PLAIN_JSON : {}),
    });
    shared[which] = keyv;
  }
  return keyv;
}

/**
 * A store's keys on the bot's Redis connection, in `namespace` (Keyv's `clear()` is never reachable from
 * here) and throwing on every error. Errors are logged as `<what> error` instead of crashing the process.
 */
export function redisKeyv(
  client: RedisClient,
  namespace: string,
  logger: Logger,
  what: string,
  options: { plainJson?: boolean; level?: 'warn' | 'error' } = {},
): RedisKeyValues {
  const keyv = sharedKeyv(client, options.plainJson === true);
  // The prefix `@keyv/redis` gives a namespace's keys (`<namespace>::`), from the adapter itself.
  const prefix = (keyv.store as KeyvRedis<unknown>).createKeyPrefix('', namespace);
  return new RedisKeyValues(keyv, prefix, storeErrorListener(logger, `${what} error`, options.level));
}

const ADAPTER_EVENTS = ['error', 'connect', 'disconnect', 'reconnecting'] as const;

/**
 * `@keyv/redis` hangs four listeners on the client it is given and never takes them off. On the process's
 * shared connection they would stay for the process's life, so they are taken off at once: the
 * connection's own listener says its errors, and with `throwOnErrors` every failed command still rejects.
 */
export function keyvRedisOn(client: RedisClient, namespace: string | undefined): KeyvRedis<unknown> {
  const before = new Map(ADAPTER_EVENTS.map((event) => [event, new Set(client.listeners(event))]));
  const adapter = new KeyvRedis(client, {
    ...(namespace === undefined ? {} : { namespace }),
    throwOnErrors: true,
    throwOnConnectError: true,
  });
  for (const event of ADAPTER_EVENTS)
    for (const listener of client.listeners(event))
      if (!before.get(event)?.has(listener)) client.off(event, listener as (...args: unknown[]) => void);
  return adapter;
}
