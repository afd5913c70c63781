import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import type { Logger } from '../common/logger.js';
import { type CacheView, ProcessLru } from '../common/process-lru.js';

const GitHub = Octokit.plugin(throttling, retry);
type GitHubOctokit = InstanceType<typeof GitHub>;
/** A scope's way into the process's Octokit: `request('GET /repos/{owner}/{repo}/pulls', …)`. */
export type GitHubRequest = GitHubOctokit['request'];
/** What a scope reads GitHub with: its requests and its token's rate-limit view (one limit, one pause). */
export interface GitHubClient {
  request: GitHubRequest;
  rateLimit: RateLimitView;
}

/** A primary or secondary limit is waited out (retry-after / x-ratelimit-reset) this often per request, then given up. */
export const LIMIT_RETRIES = 2;
/** A limit asking for a longer wait is not waited in-process: the follow queue reads again after it. */
export const LIMIT_MAX_WAIT_S = 120;
/** Requests of one scope (a tenant) under way at once; the others' slots are theirs (issue 43). */
export const SLOTS_PER_SCOPE = 10;
/** Bounded ETag memory: the least recently stored URL goes first. */
const ETAG_ENTRIES = 5_000;
const REQUEST_TIMEOUT_MS = 10_000;
/** Where a scope's context rides on each request's options, for the process's one set of hooks. */
const SCOPE = 'docsAgentScope';

export interface GitHubClientOptions {
  token: string;
  apiUrl: string;
  logger: Logger;
  /** Counts each HTTP answer by status class: `ok`, `not_modified`, `error` (benchmarks, metrics). */
  onResponse?: (kind: 'ok' | 'not_modified' | 'error') => void;
  /**
   * The repository owners (users, orgs; lower case) this token may be used for; absent: any. A request for
   * another owner's repository is refused before it is sent (OAuth mode: the operator's token only for
   * GITHUB_TOKEN_OWNERS, whatever repository a tenant's docs data names).
   */
  owners?: readonly string[];
  /**
   * Looked up on every request instead of `token`/`owners` (a tenant's token connected in Slack: a change
   * or a disconnect takes effect at the next request); undefined: nothing is sent.
   */
  credentials?: () => { token: string; owners?: readonly string[] | undefined } | undefined;
  /** The process's cache for this tenant (OAuth mode: one bound for every tenant's caches). */
  etags?: CacheView<{ etag: string; data: unknown }> | undefined;
}

/** What the rate-limit headers last said: reads wait when none are left. */
export interface RateLimitView {
  remaining: number | undefined;
  resetAt: number | undefined;
  /** Until when a limit holds every request of this client back (ms; 0 when none). */
  pausedUntil: number;
}

/** One scope's side of the process's Octokit: its credentials, ETags, limit view and request slots. */
interface ScopeContext {
  options: GitHubClientOptions;
  rateLimit: RateLimitView;
  etags: CacheView<{ etag: string; data: unknown }>;
  slots: Slots;
}

/**
 * The process's GitHub clients: one Octokit per API URL, whatever the number of tenants, each scope reaching
 * it through `client()` with its own credentials, ETags, rate-limit view and request slots. The throttling
 * plugin's one process-wide group of 10 concurrent requests is replaced by SLOTS_PER_SCOPE per scope, so a
 * tenant whose reads are slow holds only its own slots.
 */
export class GitHubClients {
  private readonly octokits = new Map<string, GitHubOctokit>();

  client(options: GitHubClientOptions): GitHubClient {
    // A limit holds back every request of this client, not only the one that met it (GitHub's advice: no
    // further requests until retry-after has passed), so parallel and later reads do not make a storm.
    const rateLimit: RateLimitView = { remaining: undefined, resetAt: undefined, pausedUntil: 0 };
    const etags =
      options.etags ?? new ProcessLru(ETAG_ENTRIES).view<{ etag: string; data: unknown }>('etags');
    const scope: ScopeContext = { options, rateLimit, etags, slots: new Slots(SLOTS_PER_SCOPE) };
    const octokit = this.octokitFor(options.apiUrl);
    return { request: octokit.request.defaults({ request: { [SCOPE]: scope } }), rateLimit };
  }

  /** Octokits built so far (one per API URL). */
  get size(): number {
    return this.octokits.size;
  }

  private octokitFor(apiUrl: string): GitHubOctokit {
    let octokit = this.octokits.get(apiUrl);
    if (!octokit) {
      octokit = buildOctokit(apiUrl);
      this.octokits.set(apiUrl, octokit);
    }
    return octokit;
  }
}

const scopeOf = (options: { request?: object | undefined }): ScopeContext => {
  const scope = (options.request as Record<string, unknown> | undefined)?.[SCOPE] as ScopeContext | undefined;
  if (!scope) throw new Error('a GitHub request without its scope');
  return scope;
};

/**
 * Octokit with GitHub's recommended throttling (primary and secondary limits honoured, bounded retries)
 * and retries of 5xx, plus conditional requests: the ETag of each GET is kept and sent back as
 * If-None-Match, and a 304 (which GitHub does not count against the rate limit) yields the kept body.
 */
function buildOctokit(apiUrl: string): GitHubOctokit {
  const waitOrGiveUp =
    (kind: string) =>
    (retryAfter: number, request: { url: string; request?: object }, _o: unknown, retryCount: number) => {
      const { rateLimit, options } = scopeOf(request);
      rateLimit.pausedUntil = Math.max(rateLimit.pausedUntil, Date.now() + retryAfter * 1000);
      const retrying = retryCount < LIMIT_RETRIES && retryAfter <= LIMIT_MAX_WAIT_S;
      options.logger.warn(
        { limit: kind, retryAfterS: retryAfter, retrying, url: request.url },
        'GitHub rate limit hit',
      );
      return retrying;
    };
  const octokit = new GitHub({
    baseUrl: apiUrl,
    userAgent: 'docs-agent',
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
    request: { fetch: timedFetch },
    throttle: {
      // Concurrency is each scope's own (its slots, below): the plugin's process-wide group (10 at once for
      // every tenant, keyed by a throttle id fixed per Octokit) is replaced by one that lets every job through.
      ...({ global: passThroughGroup } as object),
      onRateLimit: waitOrGiveUp('primary'),
      onSecondaryRateLimit: waitOrGiveUp('secondary'),
    },
    retry: { retries: 2 },
  });
  octokit.hook.wrap('request', async (request, endpoint) => {
    const { options, rateLimit, etags, slots } = scopeOf(endpoint);
    return slots.run(async () => {
      const now = options.credentials
        ? options.credentials()
        : { token: options.token, ...(options.owners ? { owners: options.owners } : {}) };
      if (!now) throw notConnected();
      if (now.owners) refuseOtherOwners(now.owners, octokit.request.endpoint(endpoint).url);
      endpoint.headers = { ...endpoint.headers, authorization: `token ${now.token}` };
      const pause = rateLimit.pausedUntil - Date.now();
      if (pause > LIMIT_MAX_WAIT_S * 1000) throw limitedFor(pause);
      if (pause > 0) await new Promise((resolve) => setTimeout(resolve, pause));
      const isGet = (endpoint.method ?? 'GET') === 'GET';
      // A caller that keeps its own ETag (the doorbell: in the shared store) sends it and gets the 304 itself.
      const ownEtag = endpoint.headers?.['if-none-match'] !== undefined;
      const key = isGet && !ownEtag ? octokit.request.endpoint(endpoint).url : undefined;
      const kept = key ? etags.get(key) : undefined;
      if (kept) endpoint.headers = { ...endpoint.headers, 'if-none-match': kept.etag };
      try {
        const response = await request(endpoint);
        noteRateLimit(rateLimit, response.headers);
        options.onResponse?.('ok');
        const etag = response.headers.etag;
        if (key && etag) etags.set(key, { etag, data: response.data });
        return response;
      } catch (error) {
        const status = (error as { status?: number }).status;
        const headers = (error as { response?: { headers?: Record<string, string | number | undefined> } })
          .response?.headers;
        if (headers) noteRateLimit(rateLimit, headers);
        if (status === 304) options.onResponse?.('not_modified');
        if (status === 304 && kept) {
          return { status: 200, url: key ?? '', headers: headers ?? {}, data: kept.data } as Awaited<
            ReturnType<typeof request>
          >;
        }
        if (status !== 304) options.onResponse?.('error');
        throw error;
      }
    });
  });
  return octokit;
}

/** A Bottleneck group's shape as the throttling plugin uses it, running each job at once. */
const passThroughGroup = {
  key: () => ({
    schedule: (...args: unknown[]) => {
      const [first, ...rest] = args;
      const [job, ...jobArgs] = typeof first === 'function' ? [first, ...rest] : rest;
      return (job as (...a: unknown[]) => Promise<unknown>)(...jobArgs);
    },
  }),
};

/** At most `limit` jobs at once; the rest wait in order. */
class Slots {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly limit: number) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.running += 1;
    try {
      return await job();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

/** A request not sent because a limit is in force for longer than is worth waiting in-process. */
/** A repository read for an owner not on the token's list: refused like a repository it cannot see (403). */
function refuseOtherOwners(owners: readonly string[], url: string): void {
  const owner = /\/repos\/([^/?#]+)\//.exec(new URL(url).pathname)?.[1];
  if (owner === undefined || owners.some((o) => o.toLowerCase() === decodeURIComponent(owner).toLowerCase()))
    return;
  throw Object.assign(new Error('this GitHub token is not used for that repository owner; not sent'), {
    status: 403,
    code: 'github_owner_not_allowed',
  });
}

/** No token is connected (any more): nothing is sent, and the read is refused like an unreadable repository. */
function notConnected() {
  return Object.assign(new Error('no GitHub token is connected for this workspace; not sent'), {
    status: 403,
    code: 'github_not_connected',
  });
}

function limitedFor(pauseMs: number) {
  return Object.assign(new Error('GitHub rate limit in force; not sent'), {
    status: 429,
    response: { headers: { 'retry-after': String(Math.ceil(pauseMs / 1000)) } },
  });
}

function noteRateLimit(view: RateLimitView, headers: Record<string, string | number | undefined>): void {
  const remaining = Number(headers['x-ratelimit-remaining']);
  const reset = Number(headers['x-ratelimit-reset']);
  if (Number.isFinite(remaining) && headers['x-ratelimit-remaining'] !== undefined)
    view.remaining = remaining;
  if (Number.isFinite(reset) && reset > 0) view.resetAt = reset * 1000;
}

/** Every GitHub call ends within REQUEST_TIMEOUT_MS (Octokit has no timeout of its own). */
const timedFetch: typeof fetch = (input, init) =>
  fetch(input, { ...init, signal: init?.signal ?? AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
