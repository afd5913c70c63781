import { DocsApiError } from '../../common/docs-api-error.js';
import { describeError } from '../../common/errors.js';
import { type AgentJob, isTerminal, type JobRecord, versionOf } from '../domain/job.js';
import { applyJob, endWatch, followUpGraceMs, outcomeOf, trustsTerminal } from '../domain/lifecycle.js';
import { failedPollDelay, nextPollDelay, watchedPollDelay } from '../domain/poll-timing.js';
import type { PollOutcome, ThreadNotice } from '../ports.js';
import { type JobServiceDeps, projectOf } from './deps.js';

/**
 * The reconciler's pass over jobs (start-up is one call of it): every job still watched without a pending
 * poll gets one, so no acknowledged job is left unwatched whoever stopped or died holding it. When many are
 * missing at once (a restart), their first polls are spread over a window that grows with their number
 * (10 ms each, at most the backoff cap). Resolves how many jobs are watched (each now has a poll).
 */
export async function reconcileWatching(
  deps: Pick<JobServiceDeps, 'queue' | 'store' | 'poll' | 'random'>,
): Promise<number> {
  const { queue, store, poll } = deps;
  const random = deps.random ?? Math.random;
  const watched = await store.listWatched();
  const spreadMs = Math.min(poll.maxMs, watched.length * 10);
  await queue.reconcile(
    watched.map((record) => record.jobId),
    () => poll.minMs + Math.round(random() * spreadMs),
  );
  return watched.length;
}

/**
 * One poll of one job; resolves the delay before the next, or null when the job is no longer watched.
 * The caller serialises it with other polls and follow-ups of the same job; a version conflict on save
 * (another replica changed the record) is thrown to the caller.
 */
export async function pollJob(deps: JobServiceDeps, jobId: string): Promise<number | null> {
  const { store, notifier, clock, logger, poll } = deps;
  const polled = (outcome: PollOutcome) => deps.metrics?.polled(outcome);
  logger.debug({ jobId }, 'polling job');
  const record: JobRecord | undefined = await store.getJob(jobId);
  if (!record?.watching) {
    polled('not_watched');
    return null;
  }
  const now = clock.now();

  if (now - record.activeSince > poll.maxAgeMs) {
    await stopWatching(deps, record, { kind: 'watch_expired', maxAgeMs: poll.maxAgeMs }, now);
    logger.info({ jobId }, 'stopped watching job: maximum age reached');
    polled('expired');
    return null;
  }

  let job: AgentJob;
  try {
    job = await deps.apiFor(projectOf(deps, record)).getJob(jobId);
  } catch (error) {
    if (error instanceof DocsApiError && error.code === 'not_found') {
      await stopWatching(deps, record, { kind: 'job_gone' }, now);
      logger.warn({ jobId }, 'job no longer exists upstream; stopped watching');
      polled('gone');
      return null;
    }
    record.consecutiveFailures += 1;
    record.updatedAt = now;
    await store.saveJob(record);
    const level = record.consecutiveFailures >= 5 ? 'error' : 'warn';
    logger[level](
      { jobId, failures: record.consecutiveFailures, error: describeError(error) },
      'poll failed',
    );
    const retryAfter = error instanceof DocsApiError ? error.retryAfterMs : undefined;
    polled('failed');
    return failedPollDelay(record.consecutiveFailures, poll, retryAfter);
  }

  if (
    isTerminal(job.status) &&
    !trustsTerminal(record, now, followUpGraceMs(deps.followUpGraceMs, poll.minMs))
  ) {
    // Probably the previous run's state, read before the platform applied the follow-up: wait for the
    // job to show as running (or for the grace period to pass) before replying for this generation.
    record.consecutiveFailures = 0;
    record.updatedAt = now;
    await store.saveJob(record);
    logger.debug({ jobId, status: job.status }, 'ignoring terminal status seen right after a follow-up');
    polled('stale_terminal');
    return poll.minMs;
  }
  if (!isTerminal(job.status)) record.seenRunningGeneration = record.generation;

  const previousPrLink = record.prLink;
  const changed = applyJob(record, job);
  record.consecutiveFailures = 0;
  record.updatedAt = now;

  if (isTerminal(job.status)) return finish(deps, record, job, previousPrLink, now);

  // Owed before the save: if the store fails in between, the next poll sees the change again and owes it.
  if (changed) await notifier.updateCard(asSaved(record), now);
  await store.saveJob(record);
  polled('running');
  // A store that cannot say whether the doorbell reads the repository: the usual schedule, to be safe.
  const rung = deps.doorbell ? await deps.doorbell.watches(record).catch(() => false) : false;
  return (rung ? watchedPollDelay : nextPollDelay)(now - record.activeSince, poll, deps.random);
}

/** A trusted terminal status: the generation's one reply, then the job is no longer watched. */
async function finish(
  deps: JobServiceDeps,
  record: JobRecord,
  job: AgentJob,
  previousPrLink: string | null,
  now: number,
): Promise<number | null> {
  const { store, notifier, logger, poll } = deps;
  const jobId = record.jobId;
  // Saved before the reply is owed and marked unwatched only after: a crash or a store failure leads to
  // another poll, and the reply is recorded once per (job, generation) in the outbox, which delivers it
  // apart from this poll (no poll waits on Slack), so it is neither lost nor posted twice.
  await store.saveJob(record);
  if (record.repliedGeneration < record.generation) {
    logger.debug({ jobId, generation: record.generation }, 'owing terminal reply');
    try {
      const outcome = outcomeOf(job, previousPrLink);
      await notifier.postTerminalReply(record, outcome);
      // Inside the try: if remembering fails, the poll is retried (the reply is owed once all the same).
      if (outcome.kind === 'pull_request' && deps.onPullRequest)
        await deps.onPullRequest(record, outcome.prLink);
    } catch (error) {
      record.consecutiveFailures += 1;
      await store.saveJob(record);
      logger.warn(
        { jobId, error: describeError(error) },
        'could not record the terminal reply (or what follows it); will retry',
      );
      deps.metrics?.polled('reply_failed');
      return failedPollDelay(record.consecutiveFailures, poll);
    }
    record.repliedGeneration = record.generation;
  }
  record.watching = false;
  // After the reply (a person waits for the reply; the card refresh queues behind it) and even when
  // unchanged by this poll: an earlier poll of this state may have failed to reply before refreshing.
  // Owed before the job stops being watched: if the store fails, this throws and the poll is retried
  // (the record in the store is still watched), so the card never stays on "Working".
  await notifier.updateCard(asSaved(record), now);
  await store.saveJob(record);
  logger.info(
    { jobId, status: job.status, pullRequest: job.prLink !== null },
    'job reached a terminal state',
  );
  deps.metrics?.polled('terminal');
  deps.metrics?.jobFinished(job.status);
  return null;
}

/**
 * Stops watching a job early (too old, or gone upstream): its final card state and its notice are owed
 * first, then the record saved unwatched. A store failure throws before the save, so the poll is retried
 * and owes them again (each is recorded once by its key): the job is never left unwatched without them.
 */
async function stopWatching(
  deps: JobServiceDeps,
  record: JobRecord,
  notice: ThreadNotice,
  now: number,
): Promise<void> {
  endWatch(record, notice.kind === 'job_gone' ? 'gone' : 'expired', now);
  await deps.notifier.updateCard(asSaved(record), now);
  await deps.notifier.postNotice(record, notice);
  await deps.store.saveJob(record);
}

/**
 * The record as the save that follows will store it: a card state owed before its save is ordered by the
 * version that save makes, or it would tie with the state owed after the previous save and be dropped.
 */
function asSaved(record: JobRecord): JobRecord {
  return { ...record, version: versionOf(record) + 1 };
}
