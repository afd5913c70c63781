import Keyv from 'keyv';
import type { Logger } from '../common/logger.js';
import type { EvidenceStore } from '../insights/health/ports.js';
import type { KeyValues } from './key-values.js';
import { BoundedMemoryStore } from './memory/bounded-memory-store.js';
import type { RedisClient } from './redis/redis-client.js';
import { PLAIN_JSON, redisKeyv } from './redis/redis-keyv.js';
import { storeErrorListener } from './store-errors.js';

/** Reports × rows kept in memory mode: 25 rows × 3 sections per report, a few hundred reports. */
export const MEMORY_EVIDENCE_ENTRIES = 20_000;

/** Fix-button evidence (JSON strings) under `evidence:<id>`, expiring with its TTL. */
export class KeyvEvidenceStore implements EvidenceStore {
  constructor(private readonly keyv: KeyValues) {}

  async put(id: string, evidenceJson: string, ttlMs: number): Promise<void> {
    await this.keyv.set(`evidence:${id}`, evidenceJson, ttlMs);
  }

  async get(id: string): Promise<string | undefined> {
    const value = await this.keyv.get<string>(`evidence:${id}`);
    return typeof value === 'string' ? value : undefined;
  }
}

export function createMemoryEvidenceStore(logger: Logger, now?: () => number): KeyvEvidenceStore {
  const keyv = new Keyv({
    store: new BoundedMemoryStore({ maxEntries: MEMORY_EVIDENCE_ENTRIES, ...(now ? { now } : {}) }),
    namespace: 'docs-agent-evidence',
    ...PLAIN_JSON,
  });
  keyv.on('error', storeErrorListener(logger, 'evidence store error'));
  return new KeyvEvidenceStore(keyv);
}

/** In Redis (`<ns>::evidence:<id>`), shared by replicas: a button posted by one opens on any. Errors throw. */
export function createRedisEvidenceStore(
  client: RedisClient,
  namespace: string,
  logger: Logger,
): KeyvEvidenceStore {
  const keyv = redisKeyv(client, namespace, logger, 'evidence store', { plainJson: true, level: 'warn' });
  return new KeyvEvidenceStore(keyv);
}
