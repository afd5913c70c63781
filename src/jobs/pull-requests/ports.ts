import type { Clock } from '../../common/clock.js';
import type { Logger } from '../../common/logger.js';
import type { JobRecord } from '../domain/job.js';
import type { JobNotifier, JobStore, PollQueue } from '../ports.js';
import type { FollowTiming, PullRequestRef, PullRequestState } from './pull-request.js';

/**
 * Reads one PR from GitHub (implemented in src/github). Errors are `PullRequestReadError`s: `unreadable`
 * (404/403: no such PR, or the token may not read it) ends following; anything else is retried later.
 */
export interface PullRequestReader {
  read(ref: PullRequestRef): Promise<PullRequestState>;
}

export type PullRequestNotice =
  | { kind: 'merged'; pr: PullRequestState }
  /** `impactCancelled`: the job was a /docs-health fix whose "did it work?" will not be posted. */
  | { kind: 'closed'; pr: PullRequestState; impactCancelled: boolean }
  | { kind: 'still_open'; days: number; impactCancelled: boolean };

/** The one thread message for how a followed PR ended (src/slack); idempotent per job. */
export interface PullRequestNotices {
  /** Rejects for failures worth retrying; resolves once posted, already posted or refused for good. */
  post(record: JobRecord, notice: PullRequestNotice): Promise<void>;
}

/** What follows from a PR's end outside this module ("did it work?" scheduling); must be idempotent. */
export interface PullRequestOutcomes {
  merged(record: JobRecord, pr: PullRequestState): Promise<void>;
  /** The PR cannot be read (404/403): what waited for its merge falls back to the PR's day. */
  unreadable(record: JobRecord): Promise<void>;
}

export interface PullRequestFollowDeps {
  reader: PullRequestReader;
  store: JobStore;
  /** The second poll queue (`pr-follow`): one pending read per followed job. */
  queue: PollQueue;
  notices: PullRequestNotices;
  /** Card refreshes (`updateCard`) and Home refreshes go through the job notifier. */
  notifier: Pick<JobNotifier, 'updateCard'>;
  outcomes: PullRequestOutcomes;
  clock: Clock;
  logger: Logger;
  timing: FollowTiming;
  /** GITHUB_WEB_URL: links elsewhere are not followed. */
  webUrl: string;
  random?: () => number;
}
