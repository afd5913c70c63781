import { KeyedLock } from '../../common/keyed-lock.js';
import { type JobRecord, JobVersionConflictError } from '../domain/job.js';
import { followPullRequest, startFollowing } from './follow-pull-request.js';
import type { PullRequestFollowDeps } from './ports.js';

/**
 * Follows each job's PR on GitHub to its merge or close (issue 23), on its own poll queue (`pr-follow`):
 * in memory mode in this process, with Redis shared by replicas and kept across restarts. Reads of one job
 * are serialised here; across replicas the store's version check refuses a stale save.
 */
export class PullRequestFollower {
  private readonly lock = new KeyedLock();

  constructor(private readonly deps: PullRequestFollowDeps) {}

  /** Registers the read handler; pending follows in Redis resume on their own. */
  start(): void {
    this.deps.queue.start((jobId) => this.follow(jobId));
  }

  stop(): Promise<void> {
    return this.deps.queue.close();
  }

  /** After a job's terminal reply with a PR: true when the link is followed (on the GitHub web host). */
  onPullRequest(record: JobRecord, prLink: string): Promise<boolean> {
    return startFollowing(this.deps, record, prLink);
  }

  /**
   * The reconciler's pass: every followed PR (the store's index) without a pending read gets one; an index
   * entry whose following is over (or whose job is gone) is dropped. Resolves how many are followed.
   */
  async reconcile(): Promise<number> {
    const following: string[] = [];
    for (const jobId of await this.deps.store.listFollowing()) {
      const record = await this.deps.store.getJob(jobId);
      if (record?.pullRequest && !(record.pullRequest.ended && record.pullRequest.noticed))
        following.push(jobId);
      else await this.deps.store.setFollowing(jobId, false);
    }
    await this.deps.queue.reconcile(following, () => this.deps.timing.minMs);
    return following.length;
  }

  /** One read of one job's PR; resolves the delay before the next, or null when following is over. */
  follow(jobId: string): Promise<number | null> {
    return this.lock.run(jobId, async () => {
      try {
        const next = await followPullRequest(this.deps, jobId);
        if (next === null) await this.deps.store.setFollowing(jobId, false);
        return next;
      } catch (error) {
        if (!(error instanceof JobVersionConflictError)) throw error;
        // The job changed meanwhile (a poll, a follow-up, another replica's read): read again soon.
        return this.deps.timing.minMs;
      }
    });
  }
}
