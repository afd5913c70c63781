import { DocsApiError } from '../../common/docs-api-error.js';
import { describeError } from '../../common/errors.js';
import { findSecret, type SecretKind } from '../../common/secret-shapes.js';
import { type AgentJob, type JobRecord, JobVersionConflictError } from '../domain/job.js';
import { endWatch, startGeneration } from '../domain/lifecycle.js';
import { type JobServiceDeps, oweOrLog, projectOf } from './deps.js';
import { refundIfNeverSent, takeJobBudget } from './job-budget.js';

export interface FollowUpRequest {
  jobId: string;
  /** What the agent receives: plain text with the author attributed. */
  prompt: string;
  /** Who sent it: counted against their share of the project's budget. */
  userId?: string;
}

export type FollowUpResult =
  | { ok: true; record: JobRecord }
  | { ok: false; reason: 'unknown_job' }
  /** The message holds a credential: nothing was read, stored or sent; the text is dropped. */
  | { ok: false; reason: 'secret'; kind: SecretKind }
  /** The docs API (or the bot's own count of its budget) refused the message; `error` says why. */
  | { ok: false; reason: 'refused'; error: unknown; reachedApi: boolean }
  /**
   * The agent has the message but its new run could not be recorded (the store kept failing or conflicting):
   * a poll is scheduled anyway, and the author must be told the bot may not report this run.
   */
  | { ok: false; reason: 'not_recorded'; error: unknown; record: JobRecord };

/**
 * Saves of a sent follow-up: a conflict (another replica saved meanwhile) is retried on a fresh copy, a
 * store error on the same one, with backoff so a busy poll or a Redis failover can pass: ~5.75 s in all.
 */
const FOLLOW_UP_SAVE_ATTEMPTS = 6;
const FOLLOW_UP_SAVE_RETRY_MS = 250;
const FOLLOW_UP_SAVE_RETRY_MAX_MS = 2_000;

const realWait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Sends a follow-up message to a job and starts a new generation: tracked again at the fast cadence, with
 * its own terminal reply. The caller serialises it with polls of the same job.
 */
export async function followUp(deps: JobServiceDeps, request: FollowUpRequest): Promise<FollowUpResult> {
  const { store, notifier, queue, clock, logger, poll, metrics } = deps;
  const secret = findSecret(request.prompt);
  if (secret) {
    logger.info({ jobId: request.jobId, kind: secret.kind }, 'follow-up holds a credential; nothing sent');
    return { ok: false, reason: 'secret', kind: secret.kind };
  }
  const record: JobRecord | undefined = await store.getJob(request.jobId);
  if (!record) return { ok: false, reason: 'unknown_job' };
  const projectId = projectOf(deps, record);
  const slot = await takeJobBudget(deps, projectId, request.userId);
  if (!slot.ok) {
    metrics?.followUp('refused');
    return { ok: false, reason: 'refused', error: slot.error, reachedApi: false };
  }
  const quota = slot.refund;
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
      await oweOrLog(logger, { jobId: record.jobId }, notifier.updateCard(record, now));
    }
    metrics?.followUp('refused');
    return { ok: false, reason: 'refused', error, reachedApi: !neverSent };
  }
  metrics?.followUp('sent');

  const now = clock.now();
  const before = record.generation;
  startGeneration(record, job, now);
  logger.info({ jobId: record.jobId, generation: record.generation }, 'follow-up sent to agent job');
  const saved = await saveFollowUp(deps, record, before, job, now);
  // The message reached the agent: a poll is due whether or not the new run could be recorded.
  await queue.schedule(record.jobId, poll.minMs);
  await oweOrLog(logger, { jobId: record.jobId }, notifier.updateCard(saved.record, now));
  if (!saved.ok) return { ok: false, reason: 'not_recorded', error: saved.error, record: saved.record };
  return { ok: true, record: saved.record };
}

type SaveOutcome = { ok: true; record: JobRecord } | { ok: false; record: JobRecord; error: unknown };

/**
 * The agent has the message: its new generation must be saved even when another replica saved the record
 * meanwhile (a poll holding an older copy) or the store failed for a moment. On a version conflict, re-read
 * and start the generation on the fresh record (unless it is this follow-up's own write, which landed
 * although its reply was lost); the other replica's stale save is refused in turn and it re-reads this one.
 */
async function saveFollowUp(
  deps: Pick<JobServiceDeps, 'store' | 'logger' | 'wait'>,
  record: JobRecord,
  generationBefore: number,
  job: AgentJob,
  now: number,
): Promise<SaveOutcome> {
  const { store, logger } = deps;
  const wait = deps.wait ?? realWait;
  let current = record;
  for (let attempt = 1; ; attempt++) {
    let failure: unknown;
    try {
      await store.saveJob(current);
      return { ok: true, record: current };
    } catch (error) {
      failure = error;
    }
    if (attempt >= FOLLOW_UP_SAVE_ATTEMPTS) {
      logger.error(
        { jobId: record.jobId, attempts: attempt, error: describeError(failure) },
        'follow-up sent but its new run could not be saved',
      );
      return { ok: false, record: current, error: failure };
    }
    await wait(Math.min(FOLLOW_UP_SAVE_RETRY_MAX_MS, FOLLOW_UP_SAVE_RETRY_MS * 2 ** (attempt - 1)));
    if (!(failure instanceof JobVersionConflictError)) continue; // the store failed: same copy again
    const fresh = await store.getJob(record.jobId).catch(() => undefined);
    if (!fresh) continue;
    if (fresh.generation > generationBefore && fresh.activeSince === now) return { ok: true, record: fresh };
    startGeneration(fresh, job, now);
    logger.info(
      { jobId: record.jobId, generation: fresh.generation },
      'job record changed meanwhile; follow-up applied to the fresh record',
    );
    current = fresh;
  }
}
