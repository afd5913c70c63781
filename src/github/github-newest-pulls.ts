import type {
  NewestPullRequestsFeed,
  NewestPullRequestsRead,
  RepositoryRef,
} from '../jobs/doorbell/ports.js';
import { PullRequestReadError } from '../jobs/pull-requests/pull-request.js';
import type { GitHubClient } from './github-client.js';
import { toReadError } from './github-pull-requests.js';

/**
 * `NewestPullRequestsFeed` on GitHub's REST API: `GET /repos/{owner}/{repo}/pulls` sorted by creation, newest
 * first, one per page (the smallest answer, whose ETag changes only when a PR is opened or the newest one
 * changes), sent with the caller's ETag: a 304 is not counted against the rate limit.
 */
export class GitHubNewestPullRequests implements NewestPullRequestsFeed {
  constructor(
    private readonly access: GitHubClient,
    private readonly now: () => number = Date.now,
  ) {}

  async newest(repo: RepositoryRef, etag: string | null): Promise<NewestPullRequestsRead> {
    // A limit in force (the headers said none left, or a retry-after): not asked, not waited here.
    const { remaining, resetAt, pausedUntil } = this.access.rateLimit;
    const now = this.now();
    if (pausedUntil > Date.now())
      throw new PullRequestReadError('github_unavailable', 'GitHub asked to wait', pausedUntil - Date.now());
    if (remaining === 0 && resetAt !== undefined && resetAt > now)
      throw new PullRequestReadError(
        'github_unavailable',
        'GitHub rate limit used up',
        resetAt - now + 1_000,
      );
    try {
      const response = await this.access.request('GET /repos/{owner}/{repo}/pulls', {
        owner: repo.owner,
        repo: repo.repo,
        state: 'all',
        sort: 'created',
        direction: 'desc',
        per_page: 1,
        ...(etag ? { headers: { 'if-none-match': etag } } : {}),
      });
      const newest = response.data
        .map((pull) => ({
          number: pull.number,
          createdAt: Date.parse(pull.created_at),
          headRef: typeof pull.head?.ref === 'string' ? pull.head.ref.slice(0, 300) : null,
        }))
        .filter((pull) => Number.isSafeInteger(pull.number) && Number.isFinite(pull.createdAt));
      const answered = response.headers.etag;
      return { changed: true, etag: typeof answered === 'string' ? answered : null, newest };
    } catch (error) {
      if ((error as { status?: number }).status === 304) return { changed: false };
      throw toReadError(error);
    }
  }
}
