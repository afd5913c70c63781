import type { AgentJob, JobRecord } from '../domain/job.js';
import type { AgentJobsApi, JobStore } from '../ports.js';

export type JobStatusResult =
  | { ok: true; job: AgentJob; record: JobRecord | undefined }
  | { ok: false; error: unknown };

/** A job's current state, fetched fresh from the platform, with what the bot knows about it. */
export async function jobStatus(
  deps: { api: AgentJobsApi; store: JobStore },
  jobId: string,
): Promise<JobStatusResult> {
  try {
    const job = await deps.api.getJob(jobId);
    const record = await deps.store.getJob(jobId).catch(() => undefined);
    return { ok: true, job, record };
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
