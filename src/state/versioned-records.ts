import Keyv from 'keyv';
import { KeyedLock } from '../common/keyed-lock.js';
import type { Logger } from '../common/logger.js';
import type { VersionedRecord, VersionedRecords } from '../common/versioned-records.js';
import { BoundedMemoryStore } from './memory/bounded-memory-store.js';
import type { RedisClient } from './redis/redis-client.js';
import { PLAIN_JSON } from './redis/redis-keyv.js';
import { storeErrorListener } from './store-errors.js';

/*
 * Versioned records (shared messages' last state) under `evidence:<key>`, where the evidence store kept them
 * before versions: a record written then reads as version 1 and the next change goes on from it.
 */

/** Shared messages kept in memory mode: far more than one process's alerts and posted reports. */
export const MEMORY_VERSIONED_ENTRIES = 5_000;

const PREFIX = 'evidence:';

/** One process (memory mode): read, compare and write under a per-key lock; every write goes through it. */
export class MemoryVersionedRecords implements VersionedRecords {
  private readonly lock = new KeyedLock();

  constructor(private readonly keyv: Keyv) {}

  async read(key: string): Promise<VersionedRecord | undefined> {
    const stored = await this.keyv.get<VersionedRecord>(`${PREFIX}${key}`);
    return stored && typeof stored.json === 'string'
      ? { json: stored.json, version: stored.version }
      : undefined;
  }

  write(key: string, json: string, expected: number, ttlMs: number): Promise<boolean> {
    return this.lock.run(key, async () => {
      if (((await this.read(key))?.version ?? 0) !== expected) return false;
      await this.keyv.set(`${PREFIX}${key}`, { json, version: expected + 1 }, ttlMs);
      return true;
    });
  }
}

export function createMemoryVersionedRecords(logger: Logger, now?: () => number): MemoryVersionedRecords {
  const keyv = new Keyv({
    store: new BoundedMemoryStore({ maxEntries: MEMORY_VERSIONED_ENTRIES, ...(now ? { now } : {}) }),
    namespace: 'docs-agent-shared',
    ...PLAIN_JSON,
  });
  keyv.on('error', storeErrorListener(logger, 'shared message store error'));
  return new MemoryVersionedRecords(keyv);
}

/**
 * Compare-and-set on the server: the stored envelope's `version` (absent key: 0; written before versions,
 * without one: 1) must still be ARGV[1]; then the new envelope (Keyv's `{ value, expires }`, plus `version`)
 * is written with its time to live, atomically for every replica.
 */
const WRITE_SCRIPT = `
local current = redis.call('GET', KEYS[1])
local version = 0
if current then
  version = 1
  local ok, decoded = pcall(cjson.decode, current)
  if ok and type(decoded) == 'table' and type(decoded.version) == 'number' then version = decoded.version end
end
if version ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
`;

/** In Redis (`<ns>::evidence:<key>`), shared by replicas. Errors throw. */
export class RedisVersionedRecords implements VersionedRecords {
  constructor(
    private readonly client: RedisClient,
    private readonly namespace: string,
  ) {}

  /** The key `@keyv/redis` gives the evidence store's `evidence:<key>` (its namespace, `::`). */
  private keyOf(key: string): string {
    return `${this.namespace}::${PREFIX}${key}`;
  }

  async read(key: string): Promise<VersionedRecord | undefined> {
    const raw = await this.client.get(this.keyOf(key));
    if (typeof raw !== 'string') return undefined;
    // A record that is not ours to read still has a version (1, as the script counts it): overwritten next.
    let envelope: { value?: unknown; version?: unknown } = {};
    try {
      envelope = JSON.parse(raw) as typeof envelope;
    } catch {}
    return {
      json: typeof envelope?.value === 'string' ? envelope.value : '',
      version: typeof envelope?.version === 'number' ? envelope.version : 1,
    };
  }

  async write(key: string, json: string, expected: number, ttlMs: number): Promise<boolean> {
    const ttl = Math.max(1, Math.ceil(ttlMs));
    const envelope = JSON.stringify({ value: json, expires: Date.now() + ttl, version: expected + 1 });
    const reply = await this.client.eval(WRITE_SCRIPT, {
      keys: [this.keyOf(key)],
      arguments: [String(expected), envelope, String(ttl)],
    });
    return Number(reply) === 1;
  }
}
