import type KeyvRedis from '@keyv/redis';
import type Keyv from 'keyv';
import { KeyedLock } from '../common/keyed-lock.js';
import { type JobRecord, versionOf } from '../jobs/domain/job.js';
import type { AtomicOps } from './keyv-job-store.js';
import type { RedisClient } from './redis/redis-client.js';

/** Writes a job record only while the stored one still has `expected` as its version (absent record = 0). */
export interface VersionedWrite {
  /** True when written (record and watched-set membership); false when the stored version differs. */
  save(record: JobRecord, expected: number, ttlMs: number, watchedSet: string): Promise<boolean>;
}

/**
 * One process (memory mode): read, compare and write under a per-job lock. Every save of this store goes
 * through here, so nothing can slip in between the read and the write.
 */
export class LockedVersionedWrite implements VersionedWrite {
  private readonly lock = new KeyedLock();

  constructor(
    private readonly keyv: Keyv,
    private readonly atomics: AtomicOps,
  ) {}

  save(record: JobRecord, expected: number, ttlMs: number, watchedSet: string): Promise<boolean> {
    return this.lock.run(record.jobId, async () => {
      const stored = await this.keyv.get<JobRecord>(`job:${record.jobId}`);
      if (versionOf(stored) !== expected) return false;
      await this.keyv.set(`job:${record.jobId}`, { ...record }, ttlMs);
      if (record.watching) await this.atomics.addMember(watchedSet, record.jobId);
      else await this.atomics.removeMember(watchedSet, record.jobId);
      return true;
    });
  }
}

/**
 * Compare-and-set on the server in one script: the stored record's `version` (inside Keyv's serialized
 * `{ value, expires }`) is checked, the new record written in Keyv's own format (so `keyv.get` reads it) and
 * the watched set updated, atomically for every replica.
 */
const CAS_SCRIPT = `
local current = redis.call('GET', KEYS[1])
local version = 0
if current then
  local ok, decoded = pcall(cjson.decode, current)
  if ok and type(decoded) == 'table' and type(decoded.value) == 'table' then
    version = tonumber(decoded.value.version) or 0
  end
end
if version ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if ARGV[4] == '1' then redis.call('SADD', KEYS[2], ARGV[5]) else redis.call('SREM', KEYS[2], ARGV[5]) end
return 1
`;

export class RedisVersionedWrite implements VersionedWrite {
  constructor(
    private readonly client: RedisClient,
    private readonly keyv: Keyv,
    private readonly adapter: KeyvRedis<unknown>,
    private readonly namespace: string,
    /** The key of a named set, as the store's `AtomicOps` names it. */
    private readonly setKey: (set: string) => string,
  ) {}

  async save(record: JobRecord, expected: number, ttlMs: number, watchedSet: string): Promise<boolean> {
    const serialized = await this.keyv.serializeData({ value: { ...record }, expires: Date.now() + ttlMs });
    const reply = await this.client.eval(CAS_SCRIPT, {
      keys: [this.adapter.createKeyPrefix(`job:${record.jobId}`, this.namespace), this.setKey(watchedSet)],
      arguments: [
        String(expected),
        typeof serialized === 'string' ? serialized : JSON.stringify(serialized),
        String(Math.max(1, Math.ceil(ttlMs))),
        record.watching ? '1' : '0',
        record.jobId,
      ],
    });
    return Number(reply) === 1;
  }
}
