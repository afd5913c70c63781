import Keyv from 'keyv';
import { deepFreeze } from '../common/frozen.js';
import type { Logger } from '../common/logger.js';
import type { AnalyticsCache } from '../insights/ports.js';
import type { KeyValues } from './key-values.js';
import { BoundedMemoryStore } from './memory/bounded-memory-store.js';
import type { RedisClient } from './redis/redis-client.js';
import { redisKeyv } from './redis/redis-keyv.js';
import { storeErrorListener } from './store-errors.js';

export const MEMORY_ANALYTICS_CACHE_ENTRIES = 500;

interface Entry {
  value: unknown;
  expiresAt: number;
}

/**
 * Fetched analytics (any JSON-able value) with a TTL. The expiry is also checked against the injected
 * clock, so tests with a fake clock see the same TTL the store enforces (Keyv's own expiry uses the wall
 * clock). A caller changing what it got cannot change what others get: in Redis every read is a fresh copy;
 * in memory every read is the same frozen copy, made when stored.
 */
export class KeyvAnalyticsCache implements AnalyticsCache {
  constructor(
    private readonly keyv: KeyValues,
    private readonly now: () => number = Date.now,
    /** Memory mode: values kept as objects, copied as JSON once when stored and frozen (see below). */
    private readonly frozen = false,
  ) {}

  async get(key: string): Promise<unknown> {
    const entry = await this.keyv.get<Entry>(`analytics-cache:${key}`);
    if (!entry || entry.expiresAt <= this.now()) return undefined;
    return entry.value;
  }

  async set(key: string, value: unknown, ttlMs: number): Promise<void> {
    const kept = this.frozen ? deepFreeze(JSON.parse(JSON.stringify(value))) : value;
    await this.keyv.set(`analytics-cache:${key}`, { value: kept, expiresAt: this.now() + ttlMs }, ttlMs);
  }
}

/**
 * Values are plain JSON by the port's contract. In memory they are kept as frozen objects, not strings:
 * Keyv's default serializer read a 10,000-path range back in ~27 ms median, plain JSON in ~3 ms, and even
 * that parse ran on every cached `/docs-views` (twice: the range and the period before; issue 43).
 */
export function createMemoryAnalyticsCache(logger: Logger, now?: () => number): KeyvAnalyticsCache {
  const keyv = new Keyv({
    // Page-view ranges can hold 10,000 rows each: a few hundred, expired ones swept, bound the memory.
    store: new BoundedMemoryStore({ maxEntries: MEMORY_ANALYTICS_CACHE_ENTRIES }),
    namespace: 'docs-agent-analytics',
    serialize: undefined,
    deserialize: undefined,
  });
  keyv.on('error', storeErrorListener(logger, 'analytics cache error'));
  return new KeyvAnalyticsCache(keyv, now, true);
}

/**
 * The analytics cache in Redis (`<ns>::analytics-cache:<endpoint>:<project>:<range>`, Keyv, namespaced,
 * expiring with the TTL), so replicas share fetched analytics and the budget is not spent twice for one
 * read. Errors throw; the analytics source treats them as misses.
 */
export function createRedisAnalyticsCache(
  client: RedisClient,
  namespace: string,
  logger: Logger,
  now?: () => number,
): KeyvAnalyticsCache {
  const keyv = redisKeyv(client, namespace, logger, 'analytics cache', { plainJson: true, level: 'warn' });
  return new KeyvAnalyticsCache(keyv, now);
}
