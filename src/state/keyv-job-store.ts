import Keyv from 'keyv';
import { AppError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { type JobRecord, JobVersionConflictError, versionOf } from '../jobs/domain/job.js';
import type { JobStore } from '../jobs/ports.js';
import { BoundedMemoryStore } from './memory/bounded-memory-store.js';
import { LockedVersionedWrite, type VersionedWrite } from './versioned-save.js';

/** Records outlive the watch so follow-ups in old threads still find their job. */
const RECORD_TTL_MS = 30 * 24 * 60 * 60 * 1000;
const WATCHED_SET = 'watched';

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
}

export class MemoryAtomicOps implements AtomicOps {
  private readonly claims = new Map<string, number>();
  private readonly sets = new Map<string, Set<string>>();

  constructor(private readonly now: () => number = Date.now) {}

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
    private readonly keyv: Keyv,
    private readonly atomics: AtomicOps,
    /** How saves check the stored version; by default a per-job lock in this process (memory mode). */
    writes?: VersionedWrite,
  ) {
    this.writes = writes ?? new LockedVersionedWrite(keyv, atomics);
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
    const next = { ...record, version: expected + 1 };
    const saved = await guardState(() => this.writes.save(next, expected, RECORD_TTL_MS, WATCHED_SET));
    if (!saved) throw new JobVersionConflictError(record.jobId, expected);
    record.version = next.version;
  }

  linkThread(channelId: string, threadTs: string, jobId: string): Promise<void> {
    return guardState(async () => {
      await this.keyv.set(`thread:${channelId}:${threadTs}`, jobId, RECORD_TTL_MS);
    });
  }

  findJobByThread(channelId: string, threadTs: string): Promise<string | undefined> {
    return guardState(
      async () => (await this.keyv.get<string>(`thread:${channelId}:${threadTs}`)) ?? undefined,
    );
  }

  listWatched(channelId?: string): Promise<JobRecord[]> {
    return guardState(async () => {
      const ids = await this.atomics.members(WATCHED_SET);
      const records = await Promise.all(ids.map((id) => this.keyv.get<JobRecord>(`job:${id}`)));
      return records
        .filter((r): r is JobRecord => r?.watching === true)
        .filter((r) => channelId === undefined || r.channelId === channelId)
        .sort((a, b) => a.createdAt - b.createdAt);
    });
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
  const keyv = new Keyv({ store: new BoundedMemoryStore({ maxEntries: 200_000 }), namespace: 'docs-agent' });
  keyv.on('error', (error: unknown) => logger.error({ err: error }, 'state store error'));
  return new KeyvJobStore(keyv, new MemoryAtomicOps(now));
}
