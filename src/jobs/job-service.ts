import { KeyedLock } from '../common/keyed-lock.js';
import { LazySet } from '../common/lazy-collections.js';
import { type JobRecord, JobVersionConflictError } from './domain/job.js';
import type { JobServiceDeps } from './use-cases/deps.js';
import { type FollowUpRequest, type FollowUpResult, followUp } from './use-cases/follow-up.js';
import {
  type JobStatusResult,
  jobOfThread,
  jobStatus,
  type StatusViewer,
  watchedJobs,
} from './use-cases/job-status.js';
import { pollJob, reconcileWatching } from './use-cases/poll-job.js';
import { takeOverStarts } from './use-cases/start-handover.js';
import { type StartJobRequest, type StartJobResult, startJob } from './use-cases/start-job.js';
import {
  type ResumeFollowingResult,
  resumeFollowing,
  type StopFollowingResult,
  stopFollowing,
} from './use-cases/stop-following.js';

// The facade's callers (composition root, Slack listeners, metrics) import these from here.
export { applyJob, outcomeOf } from './domain/lifecycle.js';
export type { JobMetrics, JobStartOutcome, PollOutcome } from './ports.js';
export type { JobServiceDeps } from './use-cases/deps.js';
export type { FollowUpRequest, FollowUpResult } from './use-cases/follow-up.js';
export type { JobStatusResult, StatusViewer } from './use-cases/job-status.js';
export { type StartJobRequest, type StartJobResult, UntrackedJobError } from './use-cases/start-job.js';
export type { ResumeFollowingResult, StopFollowingResult } from './use-cases/stop-following.js';

/** How long a confirmed once-only key holds: a message reacted to again within a week starts nothing. */
const ONCE_TTL_MS = 7 * 24 * 60 * 60 * 1000;
/** How long a claim holds before it is confirmed: a replica that died meanwhile does not block a retry. */
const ONCE_IN_PROGRESS_MS = 2 * 60 * 1000;

/**
 * Starts agent jobs from Slack and follows them to their terminal reply: the use cases of src/jobs/use-cases
 * behind one object. Follow-ups and polls of one job are serialised here (in-process lock); across replicas
 * the store's version check refuses a save from a stale copy.
 */
export class JobService {
  private readonly lock = new KeyedLock();
  /** Handed-over starts this process is finishing. */
  private readonly takingOver = new LazySet<Promise<void>>();

  constructor(private readonly deps: JobServiceDeps) {}

  /** Registers the poll handler and gives every watched job without a pending poll one (start-up). */
  startWatching(): Promise<number> {
    this.deps.queue.start((jobId) => this.poll(jobId));
    return this.reconcileWatching();
  }

  /** The reconciler's pass: watched jobs without a pending poll get one; stranded wake-ups are applied. */
  reconcileWatching(): Promise<number> {
    return reconcileWatching(this.deps);
  }

  start(request: StartJobRequest): Promise<StartJobResult> {
    return startJob(this.deps, request);
  }

  /** The reconciler's pass: job starts a stopping replica handed over are finished here. */
  takeOverStarts(): Promise<number> {
    return takeOverStarts(this.deps, (request) => this.start(request), this.takingOver);
  }

  /**
   * Sends a follow-up message to a job and starts a new generation: tracked again at the fast cadence, with
   * its own terminal reply. Serialised with polls of the same job.
   */
  followUp(request: FollowUpRequest): Promise<FollowUpResult> {
    return this.lock.run(request.jobId, () => followUp(this.deps, request));
  }

  /**
   * Claims a once-only key (a reacted message: `reactionDedupeKey`) across replicas: true for the first
   * caller only. The claim is short ("in progress") until `confirmOnce` makes it hold for a week (the job
   * started); `releaseOnce` gives it back when nothing was started, so the user may retry.
   */
  claimOnce(key: string): Promise<boolean> {
    return this.deps.store.claim(key, ONCE_IN_PROGRESS_MS);
  }

  confirmOnce(key: string): Promise<void> {
    return this.deps.store.mark(key, ONCE_TTL_MS);
  }

  releaseOnce(key: string): Promise<void> {
    return this.deps.store.release(key);
  }

  /**
   * A job's current state, fresh from the platform (its record's project, else the channel's), if the
   * viewer may see it: in its channel, its requester, or an admin.
   */
  status(jobId: string, viewer: StatusViewer): Promise<JobStatusResult> {
    return jobStatus(this.deps, jobId, viewer);
  }

  /** Jobs of a channel (absent: of every channel) that are still being watched, oldest first. */
  listWatched(channelId?: string): Promise<JobRecord[]> {
    return watchedJobs(this.deps, channelId);
  }

  /** The jobs one person started (any surface), newest first: the assistant's `list`. */
  listRequested(teamId: string | null, userId: string, limit = 10): Promise<JobRecord[]> {
    return this.deps.store.listByRequester(teamId, userId, limit);
  }

  /** The job whose thread this is, if any. */
  jobOfThread(channelId: string, threadTs: string): Promise<JobRecord | undefined> {
    return jobOfThread(this.deps, channelId, threadTs);
  }

  /**
   * The requester pressed Stop: the job is no longer followed, on every replica (the record's version check
   * stops a poll that read it before). Serialised with polls of the same job here.
   */
  stopFollowing(jobId: string): Promise<StopFollowingResult> {
    return this.lock.run(jobId, () => stopFollowing(this.deps, jobId));
  }

  /** A job's record as stored, if known (Home's ⋯ menu checks who may stop it). */
  job(jobId: string): Promise<JobRecord | undefined> {
    return this.deps.store.getJob(jobId);
  }

  /**
   * Stop following from outside the job's thread (Home's ⋯ menu): the same use case, then the card owes its
   * new state ("Stopped following"), which also refreshes the requester's Home.
   */
  async stopFollowingAndShow(jobId: string): Promise<StopFollowingResult> {
    const result = await this.stopFollowing(jobId);
    if (result.ok) await this.deps.notifier.updateCard(result.record, this.deps.clock.now());
    return result;
  }

  /** "Keep following" after a Stop: the stopped generation is watched again, its result posted. */
  resumeFollowing(jobId: string, generation: number): Promise<ResumeFollowingResult> {
    return this.lock.run(jobId, () => resumeFollowing(this.deps, jobId, generation));
  }

  /** One poll of one job; resolves the delay before the next, or null when the job is no longer watched. */
  poll(jobId: string): Promise<number | null> {
    return this.lock.run(jobId, async () => {
      try {
        return await pollJob(this.deps, jobId);
      } catch (error) {
        if (!(error instanceof JobVersionConflictError)) throw error;
        // Another replica saved the record since this poll read it (a follow-up's new generation): drop
        // this poll's stale view and poll again soon from the fresh record.
        this.deps.logger.info({ jobId }, 'job record changed during the poll; polling again');
        this.deps.metrics?.polled('superseded');
        return this.deps.poll.minMs;
      }
    });
  }
}
