import type { RingTurn } from './ring-turns.js';

/** A repository on the GitHub host, as the doorbell reads it. */
export interface RepositoryRef {
  owner: string;
  repo: string;
}

/** A pull request as the doorbell sees it: only enough to know that it is new. Never posted. */
export interface NewestPullRequest {
  number: number;
  /** When GitHub says it was opened (ms). */
  createdAt: number;
  /** The branch it was opened from (matched against the jobs' reported `ref`), when GitHub says. */
  headRef: string | null;
}

export type NewestPullRequestsRead =
  /** GitHub answered 304 to the ETag: nothing changed (not counted against the rate limit). */
  | { changed: false }
  /** A full answer (counted): the newest pull requests, newest first, and the ETag to send next time. */
  | { changed: true; etag: string | null; newest: NewestPullRequest[] };

/**
 * The newest pull requests of a repository, asked conditionally (implemented in src/github). Errors are
 * `PullRequestReadError`s: `github_unreadable` (404/403: no such repository, or the token may not read it),
 * `github_unauthorized` (401), `github_unavailable` (down or rate limited; `retryAfterMs` when known).
 */
export interface NewestPullRequestsFeed {
  newest(repo: RepositoryRef, etag: string | null): Promise<NewestPullRequestsRead>;
}

/** What the reader of a repository remembers between reads (shared by replicas with Redis). */
export interface DoorbellState {
  /** The ETag of the last full answer: sent as If-None-Match. */
  etag: string | null;
  /** The highest pull request number seen (0: none yet). */
  newestNumber: number;
  /** Not read again before this (a 404, a rate limit): whoever holds the lease next honours it too. */
  notBefore: number;
  /** New PRs whose candidate jobs are being rung in turn (`ring-turns.ts`); none when absent. */
  turns?: RingTurn[];
}

/**
 * One reader per repository across replicas: a lease with a fencing token, kept in the shared store (Redis
 * with REDIS_URL). The store itself checks the token on every save, so a reader that lost its lease (paused
 * past it, another replica took over) can neither move the repository's state nor ring for it.
 */
export interface DoorbellLeases {
  /**
   * Takes the lease of `repoKey` for `ttlMs`, or renews it when `holder` holds it; resolves the fencing
   * token (a new, higher one on each taking; the same one on a renewal), or null when another holder has it.
   */
  acquire(repoKey: string, holder: string, ttlMs: number): Promise<number | null>;
  state(repoKey: string): Promise<DoorbellState | undefined>;
  /** Saves the state only while `token` is the lease's current token (atomically): false when it is not. */
  save(repoKey: string, token: number, state: DoorbellState): Promise<boolean>;
  /** Gives the lease back when `token` still holds it (a stopping replica), so another takes over at once. */
  release(repoKey: string, token: number): Promise<void>;
}
