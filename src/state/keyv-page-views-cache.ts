import KeyvRedis from '@keyv/redis';
import Keyv from 'keyv';
import type { RangeViews, ViewsCache } from '../insights/ports.js';
import { describeError } from '../shared/errors.js';
import type { Logger } from '../shared/logger.js';
import { BoundedMemoryStore } from './memory/bounded-memory-store.js';
import type { RedisClient } from './redis/redis-client.js';

export const MEMORY_VIEWS_CACHE_ENTRIES = 500;

interface Entry {
  value: RangeViews;
  expiresAt: number;
}

/**
 * Fetched page-view ranges with a TTL, frozen once stored: they are shared, never changed. The expiry is
 * also checked against the injected clock, so tests with a fake clock see the same TTL the store enforces
 * (Keyv's own expiry uses the wall clock).
 */
export class KeyvViewsCache implements ViewsCache {
  constructor(
    private readonly keyv: Keyv,
    private readonly now: () => number = Date.now,
  ) {}

  async get(key: string): Promise<RangeViews | undefined> {
    const entry = await this.keyv.get<Entry>(`views-cache:${key}`);
    if (!entry || entry.expiresAt <= this.now()) return undefined;
    return entry.value;
  }

  async set(key: string, value: RangeViews, ttlMs: number): Promise<void> {
    deepFreeze(value);
    await this.keyv.set(`views-cache:${key}`, { value, expiresAt: this.now() + ttlMs }, ttlMs);
  }
}

/**
 * In one process the cache keeps the fetched objects themselves, frozen, instead of JSON copies: parsing a
 * 10,000-path range back on every report held the event loop for ~4 ms per `/docs-views`. They are frozen,
 * so a report that tried to change a cached range would throw instead of corrupting it.
 */
export function createMemoryViewsCache(logger: Logger, now?: () => number): KeyvViewsCache {
  const keyv = new Keyv({
    // Ranges can hold 10,000 rows each: a few hundred, expired ones swept, bound the memory they take.
    store: new BoundedMemoryStore({ maxEntries: MEMORY_VIEWS_CACHE_ENTRIES }),
    namespace: 'docs-agent-views',
    serialize: undefined,
    deserialize: undefined,
  });
  keyv.on('error', (error: unknown) => logger.error({ err: error }, 'views cache error'));
  return new KeyvViewsCache(keyv, now);
}

/**
 * The range cache in Redis (`<ns>::views-cache:<project>:<range>`, Keyv, namespaced, expiring with the TTL),
 * so replicas share fetched ranges and the analytics budget is not spent twice for one range. Errors throw;
 * the analytics service treats them as misses.
 */
export function createRedisViewsCache(
  client: RedisClient,
  namespace: string,
  logger: Logger,
  now?: () => number,
): KeyvViewsCache {
  const adapter = new KeyvRedis(client, { namespace, throwOnErrors: true, throwOnConnectError: true });
  const keyv = new Keyv({ store: adapter, namespace, useKeyPrefix: false, throwOnErrors: true });
  keyv.on('error', (error: unknown) => logger.warn({ error: describeError(error) }, 'views cache error'));
  return new KeyvViewsCache(keyv, now);
}

function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return;
  Object.freeze(value);
  for (const child of Object.values(value)) deepFreeze(child);
}
