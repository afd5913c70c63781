import type { JobRecord } from '../domain/job.js';
import { PullRequestReadError } from '../pull-requests/pull-request.js';
import type { DoorbellState, NewestPullRequest } from './ports.js';
import { repositoryKey, repositoryOf } from './repository.js';

export interface DoorbellTiming {
  /** PR_DOORBELL_INTERVAL_MS: each repository with watched jobs is read this often. */
  intervalMs: number;
  /**
   * Reads per second by all replicas together (one reader per repository): more repositories stretch each
   * one's interval, so 304s never add up to GitHub's secondary limit (900 points a minute for REST).
   */
  maxReadsPerSecond: number;
  /** The list of repositories with watched jobs is read again this often (a ring reads it fresh). */
  refreshMs: number;
}

/**
 * GitHub's clock and ours differ, and a PR is opened a moment before the platform says so: a PR opened up to
 * this long before a job became active may still be its own.
 */
export const CLOCK_SKEW_MS = 30_000;
/** A repository the token may not read (404/403), or a refused token (401): asked again this much later. */
export const REFUSED_BACKOFF_MS = 10 * 60_000;
/** Backoff cap after GitHub failures (5xx, timeouts, rate limits without a retry-after). */
export const FAILED_BACKOFF_MAX_MS = 5 * 60_000;

/** Each repository's read interval: the configured one, stretched so all of them fit the read rate. */
export function readIntervalMs(repositories: number, timing: DoorbellTiming): number {
  const spread = Math.ceil((Math.max(1, repositories) * 1000) / Math.max(0.1, timing.maxReadsPerSecond));
  return Math.max(timing.intervalMs, spread);
}

/** How long a lease holds without renewal: a reader that died is replaced within this (and one tick). */
export function leaseMs(intervalMs: number): number {
  return Math.max(10_000, 3 * intervalMs);
}

/**
 * Whether a full answer rings: its newest PR is newer than any seen, and was opened after the earliest of
 * the repository's active jobs became active (a PR from before every one of them cannot be theirs; this also
 * keeps a first read, or one after a long pause, from ringing for old PRs).
 */
export function rings(
  state: DoorbellState | undefined,
  newest: NewestPullRequest | undefined,
  earliestActiveSince: number,
): newest is NewestPullRequest {
  if (!newest) return false;
  if (newest.number <= (state?.newestNumber ?? 0)) return false;
  return newest.createdAt >= earliestActiveSince - CLOCK_SKEW_MS;
}

/**
 * The PR a ring is for, as far as the read can tell: a read sees only the newest PR, so when numbers were
 * skipped since the last one seen (another PR opened in between, or an issue: GitHub numbers both; or nothing
 * was read before), its head
 * branch is dropped and every job that may own the unseen one is rung, not only the newest's. Watched jobs
 * poll on a long backoff and count on the ring.
 */
export function ringFor(state: DoorbellState | undefined, newest: NewestPullRequest): NewestPullRequest {
  // Never read before: nothing tells which numbers were skipped.
  const skipped = state === undefined || newest.number > state.newestNumber + 1;
  return skipped ? { ...newest, headRef: null } : newest;
}

/**
 * The jobs a new PR may belong to: watched, in that repository, active since before it was opened. When the
 * platform reported a job's branch (`ref`) and it is the PR's head branch, only the jobs on that branch: the
 * PR is theirs. Otherwise (no branch reported, or `ref` names the base branch) all of them: the platform's
 * answer tells which one it is.
 */
export function jobsToRing(
  watched: JobRecord[],
  key: string,
  webUrl: string,
  pr: NewestPullRequest,
): JobRecord[] {
  const candidates = watched.filter(
    (record) =>
      record.watching &&
      record.activeSince <= pr.createdAt + CLOCK_SKEW_MS &&
      keyOf(record.repository, webUrl) === key,
  );
  const onBranch = candidates.filter((record) => pr.headRef !== null && record.ref === pr.headRef);
  return onBranch.length > 0 ? onBranch : candidates;
}

/** A job is rung at most this often: the rate of the fixed 5 s poller the adaptive schedule is measured against. */
export const RING_SPACING_MS = 5_000;

/**
 * When a rung job is polled: at once, unless it was rung less than RING_SPACING_MS ago; then that long after
 * its last ring. A busy repository (a PR every few seconds) thus never rings a job more often than a fixed
 * 5 s poller would poll it, and a job's own PR is still seen within that spacing.
 */
export function ringDelayMs(lastRungAt: number | undefined, now: number): number {
  return lastRungAt === undefined ? 0 : Math.max(0, lastRungAt + RING_SPACING_MS - now);
}

/** The repository key of a job's `source.repository`, or undefined when it is not on the GitHub host. */
export function keyOf(repository: string | null, webUrl: string): string | undefined {
  const ref = repositoryOf(repository, webUrl);
  return ref ? repositoryKey(ref) : undefined;
}

/** When a repository may be read again after a failed read (`failures` in a row, this one included). */
export function failedReadDelay(error: unknown, failures: number, intervalMs: number): number {
  if (error instanceof PullRequestReadError) {
    if (error.code === 'github_unreadable' || error.code === 'github_unauthorized') return REFUSED_BACKOFF_MS;
    const backoff = Math.min(FAILED_BACKOFF_MAX_MS, intervalMs * 2 ** Math.min(failures, 16));
    return Math.max(backoff, error.retryAfterMs ?? 0);
  }
  return Math.min(FAILED_BACKOFF_MAX_MS, intervalMs * 2 ** Math.min(failures, 16));
}
