import { describeError } from '../common/errors.js';
import { cleanUntrusted } from '../common/untrusted-text.js';
import type { PullRequestReader } from '../jobs/pull-requests/ports.js';
import {
  PullRequestReadError,
  type PullRequestRef,
  type PullRequestState,
} from '../jobs/pull-requests/pull-request.js';
import { type GitHubClient, GitHubClients, type GitHubRequest, type RateLimitView } from './github-client.js';

const PAGE = 100;

/** `PullRequestReader` on GitHub's REST API: the pull, its reviews, and its head commit's checks. */
export class GitHubPullRequests implements PullRequestReader {
  private readonly request: GitHubRequest;
  private readonly rateLimit: RateLimitView;

  constructor(
    options: Parameters<GitHubClients['client']>[0],
    private readonly now: () => number = Date.now,
    /** The process's clients (OAuth mode: one Octokit for every tenant); absent: a set of its own. */
    clients: GitHubClients = new GitHubClients(),
  ) {
    ({ request: this.request, rateLimit: this.rateLimit } = clients.client(options));
  }

  /** The client and its rate-limit view, for other readers of the same token (one limit, one pause). */
  get access(): GitHubClient {
    return { request: this.request, rateLimit: this.rateLimit };
  }

  /**
   * Checks the token once at start with `GET /rate_limit` (free, and readable by fine-grained, classic and
   * GitHub App tokens alike): `ok`, `unauthorized` (401: wrong or revoked token) or `unreachable`.
   */
  async validate(): Promise<'ok' | 'unauthorized' | 'unreachable'> {
    try {
      await this.request('GET /rate_limit');
      return 'ok';
    } catch (error) {
      return (error as { status?: number }).status === 401 ? 'unauthorized' : 'unreachable';
    }
  }

  async read(ref: PullRequestRef): Promise<PullRequestState> {
    // The headers said no requests are left until the reset: wait for it without asking.
    const { remaining, resetAt } = this.rateLimit;
    if (remaining === 0 && resetAt !== undefined && resetAt > this.now())
      throw new PullRequestReadError(
        'github_unavailable',
        'GitHub rate limit used up',
        resetAt - this.now() + 1_000,
      );
    try {
      return await this.readOnce(ref);
    } catch (error) {
      throw toReadError(error);
    }
  }

  private async readOnce(ref: PullRequestRef): Promise<PullRequestState> {
    const params = { owner: ref.owner, repo: ref.repo };
    const { data: pull } = await this.request('GET /repos/{owner}/{repo}/pulls/{pull_number}', {
      ...params,
      pull_number: ref.number,
    });
    const merged = pull.merged === true || Boolean(pull.merged_at);
    const base = {
      draft: pull.draft === true,
      openedAt: Date.parse(pull.created_at),
      mergedAt: merged && pull.merged_at ? Date.parse(pull.merged_at) : null,
      mergedBy: merged ? (pull.merged_by?.login ?? null) : null,
      closedAt: !merged && pull.state === 'closed' && pull.closed_at ? Date.parse(pull.closed_at) : null,
      headSha: pull.head.sha,
      // Same read, no extra call: what the PR is and how big, for the card and the thread reply.
      ...describedPull(pull),
    };
    // A merged or closed PR is over: its reviews and checks no longer matter (and cost calls).
    if (merged)
      return { ...base, state: 'merged', review: 'none', checks: 'none', files: await this.files(ref) };
    if (pull.state === 'closed') return { ...base, state: 'closed', review: 'none', checks: 'none' };
    const [reviews, runs, status] = await Promise.all([
      this.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews', {
        ...params,
        pull_number: ref.number,
        per_page: PAGE,
      }),
      this.request('GET /repos/{owner}/{repo}/commits/{ref}/check-runs', {
        ...params,
        ref: pull.head.sha,
        per_page: PAGE,
      }),
      this.request('GET /repos/{owner}/{repo}/commits/{ref}/status', {
        ...params,
        ref: pull.head.sha,
        per_page: PAGE,
      }),
    ]);
    return {
      ...base,
      state: 'open',
      review: reviewOf(reviews.data),
      checks: checksOf(runs.data.check_runs, status.data),
    };
  }

  /**
   * The files a merged PR changed: one page of 100 (bounded on purpose; docs PRs of an agent are small).
   * A failure leaves them unknown rather than failing the read that saw the merge.
   */
  private async files(ref: PullRequestRef): Promise<string[] | undefined> {
    try {
      const { data } = await this.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/files', {
        owner: ref.owner,
        repo: ref.repo,
        pull_number: ref.number,
        per_page: PAGE,
      });
      return data.map((file) => file.filename).filter((name) => name.length <= MAX_FILE_PATH);
    } catch {
      return undefined;
    }
  }
}

/** Longest title kept: it is shown in one line. */
export const MAX_PULL_TITLE = 200;

/** Title and size from a pull GitHub returned; outside text: invisible characters out and capped. */
export function describedPull(pull: {
  title?: unknown;
  additions?: unknown;
  deletions?: unknown;
  changed_files?: unknown;
}): Pick<PullRequestState, 'title' | 'additions' | 'deletions' | 'changedFiles'> {
  const out: Pick<PullRequestState, 'title' | 'additions' | 'deletions' | 'changedFiles'> = {};
  if (typeof pull.title === 'string') {
    const title = cleanUntrusted(pull.title.slice(0, MAX_PULL_TITLE * 4), MAX_PULL_TITLE).text.trim();
    if (title) out.title = title;
  }
  const count = (value: unknown) =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  const additions = count(pull.additions);
  const deletions = count(pull.deletions);
  const changedFiles = count(pull.changed_files);
  if (additions !== undefined) out.additions = additions;
  if (deletions !== undefined) out.deletions = deletions;
  if (changedFiles !== undefined) out.changedFiles = changedFiles;
  return out;
}

/** Longest file path kept: the list lands on the job record. */
const MAX_FILE_PATH = 300;

/** The latest decisive review per reviewer: any "changes requested" wins, else any approval. */
export function reviewOf(
  reviews: Array<{ state: string; user?: { login: string } | null }>,
): PullRequestState['review'] {
  const latest = new Map<string, string>();
  for (const review of reviews) {
    if (!['APPROVED', 'CHANGES_REQUESTED', 'DISMISSED'].includes(review.state)) continue;
    latest.set(review.user?.login ?? '', review.state);
  }
  const states = [...latest.values()];
  if (states.includes('CHANGES_REQUESTED')) return 'changes_requested';
  return states.includes('APPROVED') ? 'approved' : 'none';
}

/** Check runs and commit statuses together: any failure fails, anything unfinished is pending. */
export function checksOf(
  runs: Array<{ status: string; conclusion: string | null }>,
  combined: { state: string; total_count: number },
): PullRequestState['checks'] {
  const failed = ['failure', 'timed_out', 'cancelled', 'action_required', 'startup_failure'];
  if (runs.some((r) => r.status === 'completed' && failed.includes(r.conclusion ?? ''))) return 'failing';
  if (combined.total_count > 0 && ['failure', 'error'].includes(combined.state)) return 'failing';
  if (runs.some((r) => r.status !== 'completed')) return 'pending';
  if (combined.total_count > 0 && combined.state === 'pending') return 'pending';
  return runs.length > 0 || combined.total_count > 0 ? 'passing' : 'none';
}

export function toReadError(error: unknown): PullRequestReadError {
  const status = (error as { status?: number }).status;
  const headers = (error as { response?: { headers?: Record<string, unknown> } }).response?.headers ?? {};
  if (status === 401)
    return new PullRequestReadError('github_unauthorized', 'GitHub refused the token (401)');
  if (
    status === 404 ||
    (status === 403 && headers['x-ratelimit-remaining'] !== '0' && !headers['retry-after'])
  )
    return new PullRequestReadError('github_unreadable', `GitHub answered ${status} for the pull request`);
  const retryAfterS = Number(headers['retry-after']);
  const resetAt = Number(headers['x-ratelimit-reset']) * 1000;
  const retryAfterMs =
    Number.isFinite(retryAfterS) && retryAfterS > 0
      ? retryAfterS * 1000
      : Number.isFinite(resetAt) && resetAt > Date.now()
        ? resetAt - Date.now() + 1_000
        : undefined;
  return new PullRequestReadError(
    'github_unavailable',
    `GitHub did not answer the pull request read: ${describeError(error).slice(0, 200)}`,
    retryAfterMs,
  );
}
