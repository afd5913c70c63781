import type { FeedbackTally, FeedbackVote, JobFeedbackStore } from '../../jobs/job-feedback.js';
import { isFeedbackVote } from '../../jobs/job-feedback.js';
import { guardState } from '../keyv-job-store.js';
import type { RedisClient } from './redis-client.js';

/** Votes outlive the job records (30 days) so a month's count stays whole. */
const VOTES_TTL_MS = 100 * 24 * 60 * 60 * 1000;
/** A month's set of rated jobs is read during that month only; kept a while after for the turn. */
const MONTH_TTL_MS = 62 * 24 * 60 * 60 * 1000;
/** Jobs read per month for a tally (Home, /metrics): a bound on one read, far above real use. */
const MONTH_READ_MAX = 5_000;

/**
 * One vote per person per job, atomically: read the person's previous vote, write the new one and file the
 * job under the month, in one script (replicas and double clicks cannot interleave).
 * KEYS: votes hash, month set. ARGV: user, vote, job id, votes ttl, month ttl.
 */
const VOTE = `
local previous = redis.call('HGET', KEYS[1], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('SADD', KEYS[2], ARGV[3])
redis.call('PEXPIRE', KEYS[2], ARGV[5])
return previous
`;

/**
 * Votes in Redis, shared by replicas: `<ns>:feedback:votes:<jobId>` (hash user → vote) and
 * `<ns>:feedback:month:<YYYY-MM>` (set of job ids). Redis errors become `state_unavailable`.
 */
export class RedisFeedbackStore implements JobFeedbackStore {
  constructor(
    private readonly client: RedisClient,
    private readonly prefix: string,
  ) {}

  vote(jobId: string, userId: string, vote: FeedbackVote, month: string): Promise<FeedbackVote | null> {
    return guardState(async () => {
      const previous = await this.client.eval(VOTE, {
        keys: [this.votesKey(jobId), this.monthKey(month)],
        arguments: [userId, vote, jobId, String(VOTES_TTL_MS), String(MONTH_TTL_MS)],
      });
      return isFeedbackVote(previous) ? previous : null;
    });
  }

  tallies(month: string): Promise<FeedbackTally[]> {
    return guardState(async () => {
      const jobIds = (await this.client.sMembers(this.monthKey(month))).slice(0, MONTH_READ_MAX);
      const votes = await Promise.all(jobIds.map((id) => this.client.hVals(this.votesKey(id))));
      return jobIds.flatMap((jobId, i) => {
        const cast = (votes[i] ?? []).filter(isFeedbackVote);
        if (cast.length === 0) return [];
        const useful = cast.filter((v) => v === 'useful').length;
        return [{ jobId, useful, notUseful: cast.length - useful }];
      });
    });
  }

  private votesKey(jobId: string): string {
    return `${this.prefix}feedback:votes:${jobId}`;
  }

  private monthKey(month: string): string {
    return `${this.prefix}feedback:month:${month}`;
  }
}
