import { KeyedLock } from '../common/keyed-lock.js';
import { type JobRecord, versionOf } from '../jobs/domain/job.js';
import type { KeyValues } from './key-values.js';
import type { AtomicOps } from './keyv-job-store.js';
import type { RedisClient } from './redis/redis-client.js';
import type { RedisKeyValues } from './redis/redis-keyv.js';

/** A scored index the record's first save adds it to (the requester's jobs, by creation time). */
export interface FirstSaveIndex {
  index: string;
  /** Only the newest `max` ids stay. */
  max: number;
}

/** The Keyv key of a thread's link to its job. */
export function threadLinkKey(channelId: string, threadTs: string): string {
  return `thread:${channelId}:${threadTs}`;
}

/** Writes a job record only while the stored one still has `expected` as its version (absent record = 0). */
export interface VersionedWrite {
  /**
   * True when written (record, watched-set membership and, on the first save, `firstSave`'s index);
   * false when the stored version differs. Every save also gives the job's thread link and its index the
   * record's time to live again: both must live as long as the record (follow-ups in an old thread of a
   * job still running, the requester's list), not 30 days from the job's start.
   */
  save(
    record: JobRecord,
    expected: number,
    ttlMs: number,
    watchedSet: string,
    firstSave?: FirstSaveIndex,
  ): Promise<boolean>;
}

/**
 * One process (memory mode): read, compare and write under a per-job lock. Every save of this store goes
 * through here, so nothing can slip in between the read and the write.
 */
export class LockedVersionedWrite implements VersionedWrite {
  private readonly lock = new KeyedLock();

  constructor(
    private readonly keyv: KeyValues,
    private readonly atomics: AtomicOps,
  ) {}

  save(
    record: JobRecord,
    expected: number,
    ttlMs: number,
    watchedSet: string,
    firstSave?: FirstSaveIndex,
  ): Promise<boolean> {
    return this.lock.run(record.jobId, async () => {
      const stored = await this.keyv.get<JobRecord>(`job:${record.jobId}`);
      if (versionOf(stored) !== expected) return false;
      await this.keyv.set(`job:${record.jobId}`, { ...record }, ttlMs);
      if (record.watching) await this.atomics.addMember(watchedSet, record.jobId);
      else await this.atomics.removeMember(watchedSet, record.jobId);
      const linkKey = threadLinkKey(record.channelId, record.threadTs);
      if ((await this.keyv.get<string>(linkKey)) === record.jobId)
        await this.keyv.set(linkKey, record.jobId, ttlMs);
      // In memory an index has no expiry; re-adding keeps it among the recently written ones (bounded LRU).
      if (firstSave)
        await this.atomics.index(firstSave.index, record.jobId, record.createdAt, firstSave.max, ttlMs);
      return true;
    });
  }
}

/**
 * Compare-and-set on the server in one script: the stored record's `version` (inside Keyv's serialized
 * `{ value, expires }`) is checked, the new record written in Keyv's own format (so `keyv.get` reads it) and
 * the watched set updated, atomically for every replica. A record's first save (version 0) also adds it to
 * the requester's index (a sorted set by creation time, trimmed); every save refreshes the index's expiry
 * and, when it still points at this job, the thread link's (rewritten with Keyv's `expires` too, as Keyv
 * checks it on read).
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
local link = redis.call('GET', KEYS[3])
if link then
  local ok, decoded = pcall(cjson.decode, link)
  if ok and type(decoded) == 'table' and decoded.value == ARGV[5] then
    redis.call('SET', KEYS[3], ARGV[8], 'PX', ARGV[3])
  end
end
if KEYS[4] then
  if tonumber(ARGV[1]) == 0 then
    redis.call('ZADD', KEYS[4], tonumber(ARGV[6]), ARGV[5])
    redis.call('ZREMRANGEBYRANK', KEYS[4], 0, -(tonumber(ARGV[7]) + 1))
  end
  redis.call('PEXPIRE', KEYS[4], ARGV[3])
end
return 1
`;

export class RedisVersionedWrite implements VersionedWrite {
  constructor(
    private readonly client: RedisClient,
    /** The job store's keys: their Redis keys and Keyv's stored format. */
    private readonly records: Pick<RedisKeyValues, 'keyOf' | 'serializeData'>,
    /** The key of a named set, as the store's `AtomicOps` names it. */
    private readonly setKey: (set: string) => string,
  ) {}

  async save(
    record: JobRecord,
    expected: number,
    ttlMs: number,
    watchedSet: string,
    firstSave?: FirstSaveIndex,
  ): Promise<boolean> {
    const expires = Date.now() + ttlMs;
    const serialized = await this.records.serializeData({ value: { ...record }, expires });
    const link = await this.records.serializeData({ value: record.jobId, expires });
    const reply = await this.client.eval(CAS_SCRIPT, {
      keys: [
        this.records.keyOf(`job:${record.jobId}`),
        this.setKey(watchedSet),
        this.records.keyOf(threadLinkKey(record.channelId, record.threadTs)),
        ...(firstSave ? [this.setKey(firstSave.index)] : []),
      ],
      arguments: [
        String(expected),
        typeof serialized === 'string' ? serialized : JSON.stringify(serialized),
        String(Math.max(1, Math.ceil(ttlMs))),
        record.watching ? '1' : '0',
        record.jobId,
        String(record.createdAt),
        String(firstSave?.max ?? 0),
        typeof link === 'string' ? link : JSON.stringify(link),
      ],
    });
    return Number(reply) === 1;
  }
}
