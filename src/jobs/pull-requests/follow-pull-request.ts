import { describeError } from '../../common/errors.js';
import type { JobRecord } from '../domain/job.js';
import { oweOrLog } from '../use-cases/deps.js';
import type { PullRequestFollowDeps, PullRequestNotice } from './ports.js';
import {
  failedFollowDelay,
  isJobRepository,
  isSettled,
  nextFollowDelay,
  PullRequestReadError,
  type PullRequestState,
  parsePullRequestLink,
} from './pull-request.js';

/**
 * Starts following a job's PR right after its terminal reply: recorded on the job record (version-checked)
 * and put on the `pr-follow` queue. Resolves false when the link is not on the GitHub web host or not in
 * the job's own repository (not followed). The same link again (a retried poll, another replica) changes nothing; a new PR of a later
 * generation replaces the followed one.
 */
export async function startFollowing(
  deps: PullRequestFollowDeps,
  record: JobRecord,
  prLink: string,
): Promise<boolean> {
  const ref = parsePullRequestLink(prLink, deps.webUrl);
  if (!ref) return false;
  // The token may read far more than this job's repository: a link elsewhere is never read or reported.
  if (!isJobRepository(ref, record.repository, deps.webUrl)) {
    deps.logger.warn(
      { jobId: record.jobId },
      "not following a pull request outside the job's own repository",
    );
    return false;
  }
  if (record.pullRequest?.url !== prLink) {
    const now = deps.clock.now();
    record.pullRequest = {
      url: prLink,
      startedAt: now,
      last: null,
      reads: 0,
      failures: 0,
      ended: null,
      noticed: false,
    };
    record.updatedAt = now;
    // The caller's own copy: its version moves on with this save, so the poll's next save still fits. A
    // conflict (another replica changed the job) is thrown: the poll is retried and calls this again.
    await deps.store.saveJob(record);
  }
  // Also when already recorded: a crash between save and schedule must not leave a PR unfollowed (the
  // index is what the reconciler reads to find it again).
  await deps.store.setFollowing(record.jobId, true);
  await deps.queue.schedule(record.jobId, deps.timing.minMs);
  deps.logger.info({ jobId: record.jobId }, 'following the pull request on GitHub');
  return true;
}

/**
 * One read of a followed PR; resolves the delay before the next, or null when following is over. The
 * record is saved version-checked (a conflict is thrown to the caller, which reads again soon).
 */
export async function followPullRequest(deps: PullRequestFollowDeps, jobId: string): Promise<number | null> {
  const { store, logger, timing } = deps;
  const record = await store.getJob(jobId);
  const follow = record?.pullRequest;
  if (!record || !follow) return null;
  if (follow.ended !== null || follow.unreadable) return follow.noticed ? null : finishNotice(deps, record);
  const ref = parsePullRequestLink(follow.url, deps.webUrl);
  if (!ref) return null;
  const now = deps.clock.now();
  if (now - follow.startedAt > timing.maxAgeMs) {
    follow.ended = 'expired';
    record.updatedAt = now;
    await store.saveJob(record);
    logger.info({ jobId }, 'pull request still open after PR_FOLLOW_DAYS; stopped following');
    return finishNotice(deps, record);
  }

  let pr: PullRequestState;
  try {
    pr = await deps.reader.read(ref);
  } catch (error) {
    const code = error instanceof PullRequestReadError ? error.code : undefined;
    if (code === 'github_unreadable') {
      // First, so a failure here reads again rather than losing a health fix's "did it work?".
      await deps.outcomes.unreadable(record);
      follow.unreadable = true;
      follow.noticed = true;
      record.updatedAt = now;
      await store.saveJob(record);
      await oweOrLog(logger, { jobId }, deps.notifier.updateCard(record, now));
      logger.warn({ jobId }, 'pull request cannot be read on GitHub (not found or no access); stopped');
      return null;
    }
    follow.failures += 1;
    record.updatedAt = now;
    await store.saveJob(record);
    logger[follow.failures >= 5 ? 'error' : 'warn'](
      { jobId, failures: follow.failures, error: describeError(error) },
      'reading the pull request failed; will retry',
    );
    const retryAfter = error instanceof PullRequestReadError ? error.retryAfterMs : undefined;
    return failedFollowDelay(follow.failures, timing, retryAfter);
  }

  const changed = JSON.stringify(follow.last) !== JSON.stringify(pr);
  follow.last = pr;
  follow.reads += 1;
  follow.failures = 0;
  if (isSettled(pr)) follow.ended = pr.state === 'merged' ? 'merged' : 'closed';
  record.updatedAt = now;
  await store.saveJob(record);
  if (changed) await oweOrLog(logger, { jobId }, deps.notifier.updateCard(record, now));
  if (follow.ended) return finishNotice(deps, record);
  return nextFollowDelay(follow.reads, timing, deps.random);
}

/**
 * The end of following: "did it work?" scheduled from the merge day (merged), then the one thread notice.
 * Both are idempotent; a failure retries this step (the record already says how it ended).
 */
async function finishNotice(deps: PullRequestFollowDeps, record: JobRecord): Promise<number | null> {
  const follow = record.pullRequest;
  if (!follow?.ended || follow.noticed) return null;
  const pr = follow.last;
  const hasImpact = record.evidenceRef !== undefined;
  let notice: PullRequestNotice;
  if (follow.ended === 'merged' && pr) notice = { kind: 'merged', pr };
  else if (follow.ended === 'closed' && pr) notice = { kind: 'closed', pr, impactCancelled: hasImpact };
  else
    notice = {
      kind: 'still_open',
      days: Math.round(deps.timing.maxAgeMs / 86_400_000),
      impactCancelled: hasImpact,
    };
  try {
    if (notice.kind === 'merged') await deps.outcomes.merged(record, notice.pr);
    await deps.notices.post(record, notice);
  } catch (error) {
    follow.failures += 1;
    await deps.store.saveJob(record);
    deps.logger.warn(
      { jobId: record.jobId, error: describeError(error) },
      'pull request notice failed; will retry',
    );
    return failedFollowDelay(follow.failures, deps.timing);
  }
  follow.noticed = true;
  record.updatedAt = deps.clock.now();
  await deps.store.saveJob(record);
  await oweOrLog(deps.logger, { jobId: record.jobId }, deps.notifier.updateCard(record, record.updatedAt));
  return null;
}
