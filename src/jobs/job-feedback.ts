import type { Clock } from '../common/clock.js';
import type { JobStore } from './ports.js';

/** A person's verdict on a job's result (Slack's feedback buttons: 👍 / 👎). */
export type FeedbackVote = 'useful' | 'not_useful';

export function isFeedbackVote(value: unknown): value is FeedbackVote {
  return value === 'useful' || value === 'not_useful';
}

/** The votes on one job. */
export interface FeedbackTally {
  jobId: string;
  useful: number;
  notUseful: number;
}

/**
 * Votes on jobs' results: one per person per job, a new vote replacing the person's earlier one. A vote
 * files its job under the month it was cast in. Failures throw `state_unavailable`.
 */
export interface JobFeedbackStore {
  /**
   * Records `userId`'s vote on `jobId` and files the job under `month` (`YYYY-MM`, UTC), as one atomic
   * step (replicas and double clicks race here); resolves the vote it replaced, or null for a first vote.
   */
  vote(jobId: string, userId: string, vote: FeedbackVote, month: string): Promise<FeedbackVote | null>;
  /** Every job voted on in `month`, with all its votes. */
  tallies(month: string): Promise<FeedbackTally[]>;
}

/** What a vote did: a first vote, a changed one, or the same vote again. */
export type FeedbackChange = 'new' | 'changed' | 'same';

/** Counts votes (implemented by src/metrics). Optional. */
export interface FeedbackMetrics {
  feedbackRecorded(vote: FeedbackVote, change: FeedbackChange): void;
}

/** Pull requests rated this month: each rated job counts once, as useful when 👍 outnumber 👎. */
export interface MonthFeedback {
  month: string;
  rated: number;
  useful: number;
}

export type RateResult =
  | { ok: true; change: FeedbackChange }
  /** No such job in this conversation (records expire after 30 days): nothing recorded. */
  | { ok: false; reason: 'unknown_job' };

/** The calendar month of an instant, UTC: `YYYY-MM`. */
export function monthOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 7);
}

export interface JobFeedbackDeps {
  store: JobFeedbackStore;
  jobs: Pick<JobStore, 'getJob'>;
  clock: Clock;
  metrics?: FeedbackMetrics;
}

/** Feedback on jobs' results: recorded per person per job, summed per month for Home and /metrics. */
export class JobFeedback {
  constructor(private readonly deps: JobFeedbackDeps) {}

  /** One person's vote on a job whose reply is in `channelId`; their earlier vote is replaced. */
  async rate(input: {
    jobId: string;
    channelId: string;
    userId: string;
    vote: FeedbackVote;
  }): Promise<RateResult> {
    const record = await this.deps.jobs.getJob(input.jobId);
    // The reply's channel must be the job's: a vote is about the result people saw there.
    if (!record || record.channelId !== input.channelId) return { ok: false, reason: 'unknown_job' };
    const month = monthOf(this.deps.clock.now());
    const previous = await this.deps.store.vote(input.jobId, input.userId, input.vote, month);
    const change: FeedbackChange = previous === null ? 'new' : previous === input.vote ? 'same' : 'changed';
    this.deps.metrics?.feedbackRecorded(input.vote, change);
    return { ok: true, change };
  }

  /** This month's rated pull requests and how many of them were rated useful. */
  async thisMonth(): Promise<MonthFeedback> {
    const month = monthOf(this.deps.clock.now());
    const tallies = await this.deps.store.tallies(month);
    const useful = tallies.filter((t) => t.useful > t.notUseful).length;
    return { month, rated: tallies.filter((t) => t.useful + t.notUseful > 0).length, useful };
  }
}
