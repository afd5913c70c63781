import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type {
  CheckRun,
  CombinedStatus,
  CoreLimit,
  DiffEntry,
  FakeGitHubRequest,
  FakePull,
  ListedPull,
  PullFields,
  Review,
} from './fake-github-types.js';
import { listen, sendJson } from './http.js';

// The shapes it answers with, typed from GitHub's OpenAPI description.
export type { FakeGitHubRequest, FakePull } from './fake-github-types.js';

export const FAKE_GITHUB_TOKEN = 'github_pat_fake0123456789abcdefghijklmnopqrstuvwxyz';

/**
 * GitHub's REST API as the bot uses it: pulls, reviews, check runs and combined status of a commit,
 * `GET /rate_limit`. It answers as GitHub does: 401 without a token or with a wrong one, 404 for a repository
 * or PR it does not hold, an ETag on every 200 and 304 (not counted against the limit) for a matching
 * If-None-Match, x-ratelimit-* headers, 403 with x-ratelimit-remaining 0 once the hourly limit is used up,
 * and injected secondary rate limits (403 or 429 with retry-after). Also served under `/api/v3` (GHES).
 */
export class FakeGitHub {
  readonly repos = new Map<string, Map<number, FakePull>>();
  readonly requests: FakeGitHubRequest[] = [];
  token = FAKE_GITHUB_TOKEN;
  limit = 5000;
  remaining = 5000;
  /** Epoch seconds when the limit resets. */
  resetAt = Math.floor(Date.now() / 1000) + 3600;
  private secondary: Array<{ status: 403 | 429; retryAfterS: number }> = [];
  private close_: (() => Promise<void>) | undefined;
  url = '';

  static async start(): Promise<FakeGitHub> {
    const fake = new FakeGitHub();
    const server = await listen((req, res) => fake.handle(req, res));
    fake.url = server.url;
    fake.close_ = server.close;
    return fake;
  }

  close(): Promise<void> {
    return this.close_?.() ?? Promise.resolve();
  }

  /** The next `count` requests meet a secondary rate limit. */
  injectSecondaryLimit(count: number, status: 403 | 429, retryAfterS: number): void {
    for (let i = 0; i < count; i += 1) this.secondary.push({ status, retryAfterS });
  }

  addPull(owner: string, repo: string, number: number, fields: Partial<FakePull> = {}): FakePull {
    const key = `${owner}/${repo}`;
    const pulls = this.repos.get(key) ?? new Map<number, FakePull>();
    this.repos.set(key, pulls);
    const now = new Date().toISOString();
    const pull: FakePull = {
      number,
      state: 'open',
      draft: false,
      merged: false,
      merged_at: null,
      merged_by: null,
      created_at: now,
      updated_at: now,
      closed_at: null,
      head: { sha: createHash('sha1').update(`${key}#${number}`).digest('hex'), ref: 'docs-agent/fix' },
      html_url: `https://github.com/${key}/pull/${number}`,
      reviews: [],
      checkRuns: [],
      statuses: [],
      ...fields,
    };
    pulls.set(number, pull);
    return pull;
  }

  pull(owner: string, repo: string, number: number): FakePull {
    const pull = this.repos.get(`${owner}/${repo}`)?.get(number);
    if (!pull) throw new Error(`no fake PR ${owner}/${repo}#${number}`);
    return pull;
  }

  merge(owner: string, repo: string, number: number, by: string, at: string): void {
    Object.assign(this.pull(owner, repo, number), {
      state: 'closed',
      merged: true,
      merged_at: at,
      merged_by: { login: by },
      closed_at: at,
      updated_at: at,
    });
  }

  closeWithoutMerge(owner: string, repo: string, number: number, at: string): void {
    Object.assign(this.pull(owner, repo, number), { state: 'closed', closed_at: at, updated_at: at });
  }

  /** Requests that reached a given path pattern (counting calls per PR). */
  requestsTo(pattern: RegExp): FakeGitHubRequest[] {
    return this.requests.filter((r) => pattern.test(r.path));
  }

  /** Requests to a repository (`owner/repo`) wait unanswered until `release`; counted as they arrive. */
  hold(repo: string): void {
    this.held.set(repo, []);
  }

  /** Requests waiting in a hold now. */
  waitingIn(repo: string): number {
    return this.held.get(repo)?.length ?? 0;
  }

  /** Answers every request waiting in the hold, and the next ones at once. */
  release(repo: string): void {
    const waiting = this.held.get(repo) ?? [];
    this.held.delete(repo);
    for (const answer of waiting) answer();
  }

  private readonly held = new Map<string, Array<() => void>>();

  private handle(req: IncomingMessage, res: ServerResponse): undefined {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname.replace(/^\/api\/v3(?=\/)/, '');
    const repo = /^\/repos\/([^/]+\/[^/]+)\//.exec(path)?.[1];
    const hold = repo === undefined ? undefined : this.held.get(repo);
    if (hold) {
      hold.push(() => this.handle(req, res));
      return undefined;
    }
    const conditional = typeof req.headers['if-none-match'] === 'string';
    const at = Date.now();
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}): undefined => {
      const auth = req.headers.authorization;
      this.requests.push({ method: req.method ?? 'GET', path, status, conditional, at, auth });
      const limits = {
        'x-ratelimit-limit': String(this.limit),
        'x-ratelimit-remaining': String(this.remaining),
        'x-ratelimit-reset': String(this.resetAt),
        'x-ratelimit-used': String(this.limit - this.remaining),
      };
      if (status === 304) {
        res.writeHead(304, { ...limits, ...headers });
        res.end();
        return undefined;
      }
      sendJson(res, status, body, { ...limits, ...headers });
      return undefined;
    };
    const auth = req.headers.authorization;
    if (!auth) return answer(401, { message: 'Requires authentication', status: '401' });
    if (auth !== `token ${this.token}` && auth !== `Bearer ${this.token}`)
      return answer(401, { message: 'Bad credentials', status: '401' });
    const secondary = this.secondary.shift();
    if (secondary)
      return answer(
        secondary.status,
        {
          message:
            'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        },
        { 'retry-after': String(secondary.retryAfterS) },
      );
    if (path === '/rate_limit')
      return answer(200, {
        resources: { core: { limit: this.limit, remaining: this.remaining } satisfies CoreLimit },
      });
    // The hourly window rolls over at x-ratelimit-reset.
    if (Date.now() / 1000 >= this.resetAt) {
      this.remaining = this.limit;
      this.resetAt = Math.floor(Date.now() / 1000) + 3600;
    }
    if (this.remaining <= 0)
      return answer(403, { message: 'API rate limit exceeded for user.', status: '403' });
    const body = this.route(req.method ?? 'GET', path, url.searchParams);
    if (body === undefined) return answer(404, { message: 'Not Found', status: '404' });
    const etag = `"${createHash('sha1').update(JSON.stringify(body)).digest('hex')}"`;
    // A matching conditional request costs nothing against the limit.
    if (req.headers['if-none-match'] === etag) return answer(304, undefined, { etag });
    this.remaining -= 1;
    return answer(200, body, { etag });
  }

  /** A repository with no pull requests yet (GitHub lists it as `[]`; an unknown one is a 404). */
  addRepo(owner: string, repo: string): void {
    const key = `${owner}/${repo}`;
    if (!this.repos.has(key)) this.repos.set(key, new Map());
  }

  private route(method: string, path: string, query: URLSearchParams): unknown {
    if (method !== 'GET') return undefined;
    const list = /^\/repos\/([^/]+)\/([^/]+)\/pulls$/.exec(path);
    if (list) return this.list(`${list[1]}/${list[2]}`, query);
    const m =
      /^\/repos\/([^/]+)\/([^/]+)\/(pulls\/(\d+)(\/reviews|\/files)?|commits\/([0-9a-f]+)\/(check-runs|status))$/.exec(
        path,
      );
    if (!m) return undefined;
    const pulls = this.repos.get(`${m[1]}/${m[2]}`);
    if (!pulls) return undefined;
    if (m[4]) {
      const pull = pulls.get(Number(m[4]));
      if (!pull) return undefined;
      const { reviews, checkRuns: _c, statuses: _s, files, ...fields } = pull;
      if (m[5] === '/files')
        return (files ?? []).map((filename): DiffEntry => ({ filename, status: 'modified' }));
      return m[5] ? (reviews satisfies Review[]) : (fields satisfies PullFields);
    }
    const pull = [...pulls.values()].find((p) => p.head.sha === m[6]);
    if (!pull) return undefined;
    if (m[7] === 'check-runs')
      return { total_count: pull.checkRuns.length, check_runs: pull.checkRuns satisfies CheckRun[] };
    const failing = pull.statuses.some((s) => s.state === 'failure' || s.state === 'error');
    const pending = pull.statuses.some((s) => s.state === 'pending');
    const state = failing ? 'failure' : pending || pull.statuses.length === 0 ? 'pending' : 'success';
    const combined: CombinedStatus = {
      state,
      total_count: pull.statuses.length,
      statuses: pull.statuses,
      sha: pull.head.sha,
    };
    return combined;
  }

  /** `GET /repos/{o}/{r}/pulls`: state, sort (created), direction and per_page as GitHub reads them. */
  private list(key: string, query: URLSearchParams): unknown {
    const pulls = this.repos.get(key);
    if (!pulls) return undefined;
    const state = query.get('state') ?? 'open';
    const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 30) || 30));
    const ascending = query.get('direction') === 'asc';
    return (
      [...pulls.values()]
        .filter((p) => state === 'all' || p.state === state)
        .sort(
          (a, b) =>
            (Date.parse(a.created_at) - Date.parse(b.created_at) || a.number - b.number) *
            (ascending ? 1 : -1),
        )
        .slice(0, perPage)
        // The list holds pull-request-simple: no `merged` nor `merged_by` (only a full read has them).
        .map(
          (p): ListedPull => ({
            number: p.number,
            state: p.state,
            draft: p.draft,
            merged_at: p.merged_at,
            created_at: p.created_at,
            updated_at: p.updated_at,
            closed_at: p.closed_at,
            html_url: p.html_url,
            head: p.head,
          }),
        )
    );
  }
}
