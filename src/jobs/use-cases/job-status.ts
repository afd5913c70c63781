import { AppError } from '../../common/errors.js';
import type { AgentJob, JobRecord } from '../domain/job.js';
import type { JobStore } from '../ports.js';
import { type JobServiceDeps, projectOf } from './deps.js';

export type JobStatusResult =
  | { ok: true; job: AgentJob; record: JobRecord | undefined; projectId: string }
  | { ok: false; error: unknown };

/** Who asks for a job's status, and where. */
export interface StatusViewer {
  channelId: string;
  userId: string;
  /** ADMIN_USER_IDS: may look up any job, also one the bot does not follow. */
  isAdmin: boolean;
}

/**
 * A job's status is shown in the job's channel, to its requester, or to an admin; to anyone else the job
 * "is not visible here", whether it exists or not, so an id says nothing about a job elsewhere.
 */
export class JobNotVisibleError extends AppError<'job_not_visible'> {
  constructor() {
    super('job_not_visible', 'The job is not visible to this user in this channel');
  }
}

export function canSee(record: JobRecord | undefined, viewer: StatusViewer): boolean {
  if (viewer.isAdmin) return true;
  return (
    record !== undefined && (record.channelId === viewer.channelId || record.requesterId === viewer.userId)
  );
}

/**
 * A job's current state, fetched fresh from the platform, with what the bot knows about it, for a viewer
 * who may see it (`canSee`; nothing is fetched otherwise). The project is the record's when the bot follows
 * the job, else the asking channel's.
 */
export async function jobStatus(
  deps: Pick<JobServiceDeps, 'apiFor' | 'projects' | 'store'>,
  jobId: string,
  viewer: StatusViewer,
): Promise<JobStatusResult> {
  const { channelId } = viewer;
  try {
    // Only an admin may go on without the record: for anyone else it decides visibility.
    const record = await deps.store.getJob(jobId).catch((error: unknown) => {
      if (viewer.isAdmin) return undefined;
      throw new AppError('state_unavailable', 'could not read the job record', { cause: error });
    });
    if (!canSee(record, viewer)) return { ok: false, error: new JobNotVisibleError() };
    const projectId = record ? projectOf(deps, record) : deps.projects.projectFor(channelId);
    const job = await deps.apiFor(projectId).getJob(jobId);
    return { ok: true, job, record, projectId };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Jobs of a channel that are still being watched, oldest first. */
export function watchedJobs(deps: { store: JobStore }, channelId?: string): Promise<JobRecord[]> {
  return deps.store.listWatched(channelId);
}

/** The job whose thread this is, if any. */
export async function jobOfThread(
  deps: { store: JobStore },
  channelId: string,
  threadTs: string,
): Promise<JobRecord | undefined> {
  const jobId = await deps.store.findJobByThread(channelId, threadTs);
  return jobId ? deps.store.getJob(jobId) : undefined;
}
