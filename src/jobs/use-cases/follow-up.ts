import { DocsApiError } from '../../common/docs-api-error.js';
import { describeError } from '../../common/errors.js';
import { type AgentJob, type JobRecord, JobVersionConflictError } from '../domain/job.js';
import { endWatch, startGeneration } from '../domain/lifecycle.js';
import { type JobServiceDeps, projectOf } from './deps.js';
import { budgetUsedUp, refundIfNeverSent } from './job-budget.js';

export interface FollowUpRequest {
  jobId: string;
  /** What the agent receives: plain text with the author attributed. */
  prompt: string;
}

export type FollowUpResult =
  | { ok: true; record: JobRecord }
  | { ok: false; reason: 'unknown_job' }
  /** The docs API (or the bot's own count of its budget) refused the message; `error` says why. */
  | { ok: false; reason: 'refused'; error: unknown; reachedApi: boolean };

/** Saves of a sent follow-up tried against fresh copies before giving up (each conflict is another save). */
const FOLLOW_UP_SAVE_ATTEMPTS = 5;

/**
 * Sends a follow-up message to a job and starts a new generation: tracked again at the fast cadence, with
 * its own terminal reply. The caller serialises it with polls of the same job.
 */
export async function followUp(deps: JobServiceDeps, request: FollowUpRequest): Promise<FollowUpResult> {
  const { store, notifier, queue, clock, logger, poll, metrics } = deps;
  const record: JobRecord | undefined = await store.getJob(request.jobId);
  if (!record) return { ok: false, reason: 'unknown_job' };
  const projectId = projectOf(deps, record);
  const quota = deps.quotaFor(projectId);

  const slot = await quota.take();
  if (!slot.ok) {
    metrics?.followUp('refused');
    return { ok: false, reason: 'refused', error: budgetUsedUp(slot.retryAfterMs), reachedApi: false };
  }
  let job: AgentJob;
  try {
    job = await deps.apiFor(projectId).sendMessage(request.jobId, request.prompt);
  } catch (error) {
    logger.warn({ jobId: request.jobId, error: describeError(error) }, 'follow-up refused');
    const neverSent = await refundIfNeverSent({ quota, logger }, error);
    if (error instanceof DocsApiError && error.code === 'not_found') {
      const now = clock.now();
      endWatch(record, 'gone', now);
      await store.saveJob(record).catch(() => undefined);
      await notifier.updateCard(record, now);
    }
    metrics?.followUp('refused');
    return { ok: false, reason: 'refused', error, reachedApi: !neverSent };
  }
  metrics?.followUp('sent');

  const now = clock.now();
  startGeneration(record, job, now);
  logger.info({ jobId: record.jobId, generation: record.generation }, 'follow-up sent to agent job');
  const saved = await saveFollowUp(deps, record, job, now);
  await notifier.updateCard(saved, now);
  await queue.schedule(record.jobId, poll.minMs);
  return { ok: true, record: saved };
}

/**
 * The agent has the message: its new generation must be saved even when another replica saved the record
 * meanwhile (a poll holding an older copy). On a version conflict, re-read and start the generation on
 * the fresh record; the other replica's stale save is refused in turn and it re-reads this one.
 */
async function saveFollowUp(
  deps: Pick<JobServiceDeps, 'store' | 'logger'>,
  record: JobRecord,
  job: AgentJob,
  now: number,
): Promise<JobRecord> {
  const { store, logger } = deps;
  let current = record;
  for (let attempt = 1; ; attempt++) {
    try {
      await store.saveJob(current);
      return current;
    } catch (error) {
      if (!(error instanceof JobVersionConflictError) || attempt >= FOLLOW_UP_SAVE_ATTEMPTS) {
        // Polling still runs from the previous state and catches up.
        logger.error({ jobId: record.jobId, error: describeError(error) }, 'follow-up sent but not saved');
        return current;
      }
      const fresh = await store.getJob(record.jobId).catch(() => undefined);
      if (!fresh) return current;
      startGeneration(fresh, job, now);
      logger.info(
        { jobId: record.jobId, generation: fresh.generation },
        'job record changed meanwhile; follow-up applied to the fresh record',
      );
      current = fresh;
    }
  }
}
