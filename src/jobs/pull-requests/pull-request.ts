import { AppError } from '../../common/errors.js';

/** A pull request as GitHub reports it, reduced to what the card, the notices and "did it work?" need. */
export interface PullRequestState {
  state: 'open' | 'closed' | 'merged';
  draft: boolean;
  /** The latest review per reviewer, summed up: changes requested wins over approved. */
  review: 'approved' | 'changes_requested' | 'none';
  /** Check runs and commit statuses of the head commit together. */
  checks: 'passing' | 'failing' | 'pending' | 'none';
  /** When the PR was opened (ms). */
  openedAt: number;
  /** When it was merged (ms); null unless merged. */
  mergedAt: number | null;
  /** Login of who merged it; null unless merged (or GitHub does not say). */
  mergedBy: string | null;
  /** When it was closed without merge (ms); null otherwise. */
  closedAt: number | null;
  headSha: string;
  /**
   * Files the PR changed (read once, at its merge, for docs-link unfurls): at most the first 100 GitHub
   * lists, each path at most 300 characters. Absent when not read.
   */
  files?: string[];
  /** The PR's title as GitHub gave it: invisible characters out, at most 200 characters. Absent in old records. */
  title?: string;
  /** Its size, from the same read: lines added and deleted, files changed. Absent when GitHub did not say. */
  additions?: number;
  deletions?: number;
  changedFiles?: number;
}

/** Where a PR lives: parsed strictly from a link on the configured GitHub web host. */
export interface PullRequestRef {
  owner: string;
  repo: string;
  number: number;
}

/** GitHub's own rules: owners are letters, digits and single hyphens; repos add `.` and `_`. */
export const OWNER = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
export const REPO = /^[A-Za-z0-9._-]{1,100}$/;
const NUMBER = /^[1-9][0-9]{0,9}$/;

/**
 * `https://<web host>/<owner>/<repo>/pull/<n>` (optionally followed by `/files`, a query or a fragment) on
 * the configured host only; anything else (another host, markup, a path prefix mismatch) is not followed.
 */
export function parsePullRequestLink(link: string, webUrl: string): PullRequestRef | undefined {
  const path = pathOnWebHost(link, webUrl);
  if (path === undefined) return undefined;
  const [owner, repo, pull, number, ...rest] = path.split('/');
  if (!owner || !repo || pull !== 'pull' || !number) return undefined;
  if (rest.length > 1 || (rest.length === 1 && !['', 'files', 'commits', 'checks'].includes(rest[0] ?? '')))
    return undefined;
  if (!OWNER.test(owner) || owner.includes('--') || !REPO.test(repo) || repo === '.' || repo === '..')
    return undefined;
  if (!NUMBER.test(number)) return undefined;
  return { owner, repo, number: Number(number) };
}

/**
 * Whether a PR is in the job's own repository, as the platform names it (`owner/repo`, or a link on the
 * GitHub web host, `.git` allowed). GitHub compares names case-insensitively. A job with no repository, or
 * one on another host, has no PR the bot may read with its token.
 */
export function isJobRepository(
  ref: PullRequestRef,
  repository: string | null | undefined,
  webUrl: string,
): boolean {
  const named = repository?.trim();
  const path = named?.includes('://') ? pathOnWebHost(named, webUrl) : named;
  if (!path) return false;
  const [owner, repo, ...rest] = path.replace(/\/+$/, '').split('/');
  if (!owner || !repo || rest.length > 0) return false;
  const name = repo.endsWith('.git') ? repo.slice(0, -4) : repo;
  return owner.toLowerCase() === ref.owner.toLowerCase() && name.toLowerCase() === ref.repo.toLowerCase();
}

/**
 * The path of a link below the configured GitHub web URL (same scheme, host and path prefix, no
 * credentials), without the prefix and its slash; undefined for anything else. Nothing past 500 characters
 * is parsed.
 */
function pathOnWebHost(link: string, webUrl: string): string | undefined {
  if (link.length > 500) return undefined;
  let url: URL;
  let base: URL;
  try {
    url = new URL(link);
    base = new URL(webUrl);
  } catch {
    return undefined;
  }
  if (url.protocol !== base.protocol || url.host !== base.host || url.username || url.password)
    return undefined;
  const basePath = base.pathname.replace(/\/+$/, '');
  if (!url.pathname.startsWith(`${basePath}/`)) return undefined;
  return url.pathname.slice(basePath.length + 1);
}

/** What the bot remembers on the job record about the PR it follows. JSON-able. */
export interface PullRequestFollow {
  /** The followed link (the job's PR when following started). */
  url: string;
  startedAt: number;
  /** The last state read; null until the first read. */
  last: PullRequestState | null;
  /** Reads so far (the cadence grows with them). */
  reads: number;
  /** Consecutive failed reads (GitHub down, no access). */
  failures: number;
  /** Why following stopped: merged, closed, still open after PR_FOLLOW_DAYS, or the record's PR changed. */
  ended: 'merged' | 'closed' | 'expired' | null;
  /** The one thread notice for how it ended has been posted. */
  noticed: boolean;
  /** The PR may not be read (404/403): shown on the card, following stops. */
  unreadable?: boolean;
}

export interface FollowTiming {
  minMs: number;
  maxMs: number;
  /** PR_FOLLOW_DAYS in ms. */
  maxAgeMs: number;
}

/**
 * Adaptive cadence: a fresh PR is read every `minMs`, doubling every 6 reads up to `maxMs` (a PR waiting
 * for review for days is read hourly at most), with ±10 % jitter so followed PRs do not fall due together.
 */
export function nextFollowDelay(reads: number, timing: FollowTiming, random: () => number = Math.random) {
  const base = Math.min(timing.maxMs, timing.minMs * 2 ** Math.floor(reads / 6));
  return Math.max(timing.minMs, Math.round(base * (0.9 + 0.2 * random())));
}

/** After failures: back off from the current cadence, doubling per failure, capped at `maxMs`. */
export function failedFollowDelay(failures: number, timing: FollowTiming, retryAfterMs?: number) {
  const backoff = Math.min(timing.maxMs, timing.minMs * 2 ** Math.min(failures, 16));
  return Math.max(backoff, retryAfterMs ?? 0);
}

/** Ended for good: merged or closed. */
export const isSettled = (pr: PullRequestState | null) => pr !== null && pr.state !== 'open';

export type PullRequestReadCode = 'github_unreadable' | 'github_unauthorized' | 'github_unavailable';

/**
 * A PR could not be read. `github_unreadable`: 404/403 on the PR (gone, or the token may not read that
 * repository), following stops; `github_unauthorized`: 401, the token was revoked; `github_unavailable`:
 * GitHub down or rate limited past the client's bounded retries, read again later (`retryAfterMs`).
 */
export class PullRequestReadError extends AppError<PullRequestReadCode> {
  constructor(
    code: PullRequestReadCode,
    message: string,
    readonly retryAfterMs?: number,
  ) {
    super(code, message);
  }
}
