import type { AgentJob, JobRecord } from '../domain/job.js';
import type { JobStore } from '../ports.js';
import { type JobServiceDeps, projectOf } from './deps.js';

export type JobStatusResult =
  | { ok: true; job: AgentJob; record: JobRecord | undefined; projectId: string }
  | { ok: false; error: unknown };

/**
 * A job's current state, fetched fresh from the platform, with what the bot knows about it. The project is
 * the record's when the bot follows the job, else the asking channel's.
 */
export async function jobStatus(
  deps: Pick<JobServiceDeps, 'apiFor' | 'projects' | 'store'>,
  jobId: string,
  channelId?: string,
): Promise<JobStatusResult> {
  try {
    const record = await deps.store.getJob(jobId).catch(() => undefined);
    const projectId = record ? projectOf(deps, record) : deps.projects.projectFor(channelId);
    const job = await deps.apiFor(projectId).getJob(jobId);
    return { ok: true, job, record, projectId };
  } catch (error) {
    return { ok: false, error };
  }
}

/** Jobs of a channel that are still being watched, oldest first. */
export function watchedJobs(deps: { store: JobStore }, channelId: string): Promise<JobRecord[]> {
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
