import { type JobRecord, JobVersionConflictError } from '../domain/job.js';
import { endWatch } from '../domain/lifecycle.js';
import type { JobServiceDeps } from './deps.js';

export type StopFollowingResult =
  | { ok: true; record: JobRecord }
  /** Nothing to stop: the job is not known, or its run already ended (or was stopped before). */
  | { ok: false; reason: 'unknown_job' | 'not_watched'; record?: JobRecord };

export type ResumeFollowingResult =
  | { ok: true; record: JobRecord }
  /** Following again makes no sense: unknown job, already followed, or a later run has started since. */
  | { ok: false; reason: 'unknown_job' | 'already_watched' | 'not_stopped'; record?: JobRecord };

/** A save that lost to another replica is redone on a fresh copy, this many times. */
const ATTEMPTS = 5;

/**
 * The requester pressed Stop: the job is no longer watched (saved with the version check, so a poll on any
 * replica that read the record before sees the change at its save and stops) and its pending poll is
 * cancelled. The docs platform has no cancel: the job itself may still run to its end upstream.
 */
export async function stopFollowing(
  deps: Pick<JobServiceDeps, 'store' | 'queue' | 'clock'>,
  jobId: string,
): Promise<StopFollowingResult> {
  const result = await saveFresh(deps, jobId, (record) => {
    if (!record.watching) return { ok: false as const, reason: 'not_watched' as const, record };
    endWatch(record, 'stopped', deps.clock.now());
    return undefined;
  });
  if (result.ok) await deps.queue.cancel(jobId);
  return result;
}

/** "Keep following": the generation that was stopped is watched again (its result will be posted). */
export async function resumeFollowing(
  deps: Pick<JobServiceDeps, 'store' | 'queue' | 'clock' | 'poll'>,
  jobId: string,
  generation: number,
): Promise<ResumeFollowingResult> {
  const result = await saveFresh(deps, jobId, (record) => {
    if (record.watching) return { ok: false as const, reason: 'already_watched' as const, record };
    if (record.watchEnded !== 'stopped' || record.generation !== generation)
      return { ok: false as const, reason: 'not_stopped' as const, record };
    record.watching = true;
    record.watchEnded = null;
    record.consecutiveFailures = 0;
    record.updatedAt = deps.clock.now();
    return undefined;
  });
  if (result.ok) await deps.queue.schedule(jobId, deps.poll.minMs);
  return result;
}

/** Read, change, save with the version check; a conflict re-reads and decides again. */
async function saveFresh<F extends { ok: false; reason: string; record?: JobRecord }>(
  deps: Pick<JobServiceDeps, 'store'>,
  jobId: string,
  change: (record: JobRecord) => F | undefined,
): Promise<{ ok: true; record: JobRecord } | F | { ok: false; reason: 'unknown_job' }> {
  for (let attempt = 1; ; attempt++) {
    const record = await deps.store.getJob(jobId);
    if (!record) return { ok: false, reason: 'unknown_job' };
    const refused = change(record);
    if (refused) return refused;
    try {
      await deps.store.saveJob(record);
      return { ok: true, record };
    } catch (error) {
      if (!(error instanceof JobVersionConflictError) || attempt >= ATTEMPTS) throw error;
    }
  }
}
