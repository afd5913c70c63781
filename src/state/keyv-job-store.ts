import Keyv from 'keyv';
import { AppError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { scrubDeep } from '../common/secret-shapes.js';
import { type JobRecord, JobVersionConflictError, versionOf } from '../jobs/domain/job.js';
import type { JobStore } from '../jobs/ports.js';
import type { KeyValues } from './key-values.js';
import { BoundedMemoryStore } from './memory/bounded-memory-store.js';
import { PLAIN_JSON } from './redis/redis-keyv.js';
import { storeErrorListener } from './store-errors.js';
import { LockedVersionedWrite, threadLinkKey, type VersionedWrite } from './versioned-save.js';

/** Records outlive the watch so follow-ups in old threads still find their job. */
const RECORD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const WATCHED_SET = 'watched';
/** Jobs whose pull request is followed on GitHub. */
export const FOLLOWING_SET = 'following';
/**
 * OAuth mode on Redis: a job watched or a PR followed marks its tenant in the due index this long after the
 * write, so a replica killed before the poll (or the read) was scheduled leaves it found (issue 43).
 */
export const WATCH_RECHECK_MS = 5_000;
/**
 * OAuth mode: how often the due index names a tenant that only follows PRs. Its reads are plane jobs of
 * their own; the look is a net for one nobody holds, so it is longer than a scope's idle time (10 minutes):
 * a followed PR does not keep its tenant resident (BENCHMARKS §14: every 5 s was 23 commands a look).
 */
export const FOLLOW_RECHECK_MS = 15 * 60_000;

/** The tenant's side of the replica-wide due index (OAuth mode on Redis). */
export interface WatchMarker {
  mark(atMs: number): Promise<void>;
}
/** How many of one person's jobs are indexed (Home shows 50 and says how many more). */
export const REQUESTER_INDEX_MAX = 100;

/** The per-person job index, keyed by user only: Slack user ids do not repeat across workspaces. */
export function requesterIndex(userId: string): string {
  return `requester:${userId}`;
}

export class StateUnavailableError extends AppError<'state_unavailable'> {
  constructor(cause: unknown) {
    super('state_unavailable', 'The bot could not reach its state store', { cause });
  }
}

/** Runs a store operation; any failure becomes `state_unavailable` (never "not found"). */
export async function guardState<T>(operation: () => Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    if (error instanceof StateUnavailableError) throw error;
    throw new StateUnavailableError(error);
  }
}

/**
 * Operations Keyv cannot express atomically (it has no set-if-absent and no sets). The in-memory
 * version relies on the single JS thread; a Redis version maps them to SET NX PX and SADD/SREM.
 */
export interface AtomicOps {
  claim(key: string, ttlMs: number): Promise<boolean>;
  release(key: string): Promise<void>;
  addMember(set: string, member: string): Promise<void>;
  removeMember(set: string, member: string): Promise<void>;
  members(set: string): Promise<string[]>;
  /** Adds to a scored index, keeping its `max` highest scores; the index expires `ttlMs` after its last add. */
  index(index: string, member: string, score: number, max: number, ttlMs: number): Promise<void>;
  /** Ids of a scored index (newest = highest score first), at most `limit`. */
  indexed(index: string, limit: number): Promise<string[]>;
  /** Sets a flag with expiry, overwriting; `isMarked` says whether it is set and not expired. */
  mark(key: string, ttlMs: number): Promise<void>;
  isMarked(key: string): Promise<boolean>;
}

export class MemoryAtomicOps implements AtomicOps {
  private readonly claims = new Map<string, number>();
  private readonly sets = new Map<string, Set<string>>();
  /** Scored indexes (per-person jobs); bounded: the least recently written index goes first. */
  private readonly indexes = new Map<string, Map<string, number>>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxIndexes = 50_000,
  ) {}

  /** Bounded by `maxIndexes` rather than by expiry: the least recently written index is dropped. */
  async index(index: string, member: string, score: number, max: number, _ttlMs: number): Promise<void> {
    const entries = this.indexes.get(index) ?? new Map<string, number>();
    this.indexes.delete(index);
    entries.set(member, score);
    if (entries.size > max) {
      const kept = [...entries].sort((a, b) => b[1] - a[1]).slice(0, max);
      entries.clear();
      for (const [id, at] of kept) entries.set(id, at);
    }
    this.indexes.set(index, entries);
    if (this.indexes.size > this.maxIndexes) this.indexes.delete(this.indexes.keys().next().value!);
  }

  async indexed(index: string, limit: number): Promise<string[]> {
    const entries = [...(this.indexes.get(index) ?? [])];
    return entries
      .sort((a, b) => b[1] - a[1])
      .slice(0, limit)
      .map(([id]) => id);
  }

  async mark(key: string, ttlMs: number): Promise<void> {
    this.claims.set(key, this.now() + ttlMs);
  }

  async isMarked(key: string): Promise<boolean> {
    const expires = this.claims.get(key);
    return expires !== undefined && expires > this.now();
  }

  async claim(key: string, ttlMs: number): Promise<boolean> {
    const expires = this.claims.get(key);
    const now = this.now();
    if (expires !== undefined && expires > now) return false;
    this.claims.set(key, now + ttlMs);
    if (this.claims.size > 10_000) this.sweep(now);
    return true;
  }

  async release(key: string): Promise<void> {
    this.claims.delete(key);
  }

  async addMember(set: string, member: string): Promise<void> {
    let members = this.sets.get(set);
    if (!members) {
      members = new Set();
      this.sets.set(set, members);
    }
    members.add(member);
  }

  async removeMember(set: string, member: string): Promise<void> {
    this.sets.get(set)?.delete(member);
  }

  async members(set: string): Promise<string[]> {
    return [...(this.sets.get(set) ?? [])];
  }

  private sweep(now: number): void {
    for (const [key, expires] of this.claims) if (expires <= now) this.claims.delete(key);
  }
}

export class KeyvJobStore implements JobStore {
  private readonly writes: VersionedWrite;

  constructor(
    private readonly keyv: KeyValues,
    private readonly atomics: AtomicOps,
    /** How saves check the stored version; by default a per-job lock in this process (memory mode). */
    writes?: VersionedWrite,
    /** OAuth mode on Redis: marks the tenant due when a job is watched or a PR followed. */
    private readonly dueIndex?: WatchMarker,
  ) {
    this.writes = writes ?? new LockedVersionedWrite(keyv, atomics);
  }

  /** Marked before the write (a mark too early costs one look that finds nothing). */
  private markWatched(): Promise<void> {
    return this.dueIndex ? this.dueIndex.mark(Date.now() + WATCH_RECHECK_MS) : Promise.resolve();
  }

  getJob(jobId: string): Promise<JobRecord | undefined> {
    return guardState(async () => {
      const record = await this.keyv.get<JobRecord>(`job:${jobId}`);
      return record ? { ...record } : undefined;
    });
  }

  /**
   * Saves only if the stored record still has the version `record` was read with; on success the caller's
   * copy takes the new version (so it can be saved again). Otherwise throws `version_conflict`.
   */
  async saveJob(record: JobRecord): Promise<void> {
    const expected = versionOf(record);
    // Defensively, whatever the use cases checked: no credential shape is ever kept in a record.
    const next = { ...scrubDeep(record), version: expected + 1 };
    const saved = await guardState(async () => {
      if (record.watching) await this.markWatched();
      return this.writes.save(next, expected, RECORD_TTL_MS, WATCHED_SET, {
        index: requesterIndex(record.requesterId),
        max: REQUESTER_INDEX_MAX,
      });
    });
    if (!saved) throw new JobVersionConflictError(record.jobId, expected);
    record.version = next.version;
  }

  linkThread(channelId: string, threadTs: string, jobId: string): Promise<void> {
    return guardState(async () => {
      await this.keyv.set(threadLinkKey(channelId, threadTs), jobId, RECORD_TTL_MS);
    });
  }

  findJobByThread(channelId: string, threadTs: string): Promise<string | undefined> {
    return guardState(
      async () => (await this.keyv.get<string>(threadLinkKey(channelId, threadTs))) ?? undefined,
    );
  }

  listWatched(channelId?: string): Promise<JobRecord[]> {
    return guardState(async () => {
      const ids = await this.atomics.members(WATCHED_SET);
      const records = await Promise.all(ids.map((id) => this.keyv.get<JobRecord>(`job:${id}`)));
      // A member whose record is gone (expired or evicted: a save writes both at once) would keep its tenant
      // due in the due index for nothing; it leaves the set.
      const gone = ids.filter((_, i) => !records[i]);
      await Promise.all(gone.map((id) => this.atomics.removeMember(WATCHED_SET, id)));
      return records
        .filter((r): r is JobRecord => r?.watching === true)
        .filter((r) => channelId === undefined || r.channelId === channelId)
        .sort((a, b) => a.createdAt - b.createdAt);
    });
  }

  listByRequester(teamId: string | null, userId: string, limit: number): Promise<JobRecord[]> {
    return guardState(async () => {
      // The whole index (bounded) is read, so records of another workspace cannot crowd out the limit.
      const ids = await this.atomics.indexed(requesterIndex(userId), REQUESTER_INDEX_MAX);
      const records = await Promise.all(ids.map((id) => this.keyv.get<JobRecord>(`job:${id}`)));
      return records
        .filter((r): r is JobRecord => r !== undefined && r !== null && r.requesterId === userId)
        .filter((r) => teamId === null || r.teamId === null || r.teamId === teamId)
        .map((r) => ({ ...r }))
        .sort((a, b) => b.createdAt - a.createdAt || b.jobId.localeCompare(a.jobId))
        .slice(0, Math.max(0, limit));
    });
  }

  setFollowing(jobId: string, following: boolean): Promise<void> {
    return guardState(async () => {
      if (!following) return this.atomics.removeMember(FOLLOWING_SET, jobId);
      await this.markWatched();
      await this.atomics.addMember(FOLLOWING_SET, jobId);
    });
  }

  listFollowing(): Promise<string[]> {
    return guardState(() => this.atomics.members(FOLLOWING_SET));
  }

  mark(key: string, ttlMs: number): Promise<void> {
    return guardState(() => this.atomics.mark(`mark:${key}`, ttlMs));
  }

  isMarked(key: string): Promise<boolean> {
    return guardState(() => this.atomics.isMarked(`mark:${key}`));
  }

  claim(key: string, ttlMs: number): Promise<boolean> {
    return guardState(() => this.atomics.claim(`claim:${key}`, ttlMs));
  }

  release(key: string): Promise<void> {
    return guardState(() => this.atomics.release(`claim:${key}`));
  }
}

/** The embedded store: state lives in this process and is gone on restart. */
export function createMemoryJobStore(logger: Logger, now?: () => number): KeyvJobStore {
  // Records and thread links of 30 days of jobs (~2,400 a day at the platform's hourly budget, two entries
  // each) fit; watched jobs are read at every poll, so the least recently used are long-finished ones.
  // Plain JSON (records are JSON; nothing of this process's memory outlives it, so no stored format to keep):
  // Keyv's default reviver made `/docs-agent list`, which reads every watched record, several times slower.
  const keyv = new Keyv({
    store: new BoundedMemoryStore({ maxEntries: 200_000 }),
    namespace: 'docs-agent',
    ...PLAIN_JSON,
  });
  keyv.on('error', storeErrorListener(logger, 'state store error'));
  return new KeyvJobStore(keyv, new MemoryAtomicOps(now));
}
