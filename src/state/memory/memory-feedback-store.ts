import type { FeedbackTally, FeedbackVote, JobFeedbackStore } from '../../jobs/job-feedback.js';

/**
 * Votes in this process: one per person per job (a Map per job, so a new vote replaces the old one; the
 * single JS thread makes each vote atomic). Bounded: past `maxJobs` the job voted on longest ago is dropped.
 */
export class MemoryFeedbackStore implements JobFeedbackStore {
  private readonly votes = new Map<string, Map<string, FeedbackVote>>();
  private readonly months = new Map<string, Set<string>>();

  constructor(private readonly maxJobs = 10_000) {}

  async vote(jobId: string, userId: string, vote: FeedbackVote, month: string): Promise<FeedbackVote | null> {
    const votes = this.votes.get(jobId) ?? new Map<string, FeedbackVote>();
    const previous = votes.get(userId) ?? null;
    votes.set(userId, vote);
    // Re-inserted: the Map's order is "least recently voted on first".
    this.votes.delete(jobId);
    this.votes.set(jobId, votes);
    if (this.votes.size > this.maxJobs) this.votes.delete(this.votes.keys().next().value!);
    const jobs = this.months.get(month) ?? new Set<string>();
    jobs.add(jobId);
    this.months.set(month, jobs);
    // Two months are enough for "this month" around a month's turn.
    if (this.months.size > 2) this.months.delete(this.months.keys().next().value!);
    return previous;
  }

  async tallies(month: string): Promise<FeedbackTally[]> {
    const tallies: FeedbackTally[] = [];
    for (const jobId of this.months.get(month) ?? []) {
      const votes = [...(this.votes.get(jobId)?.values() ?? [])];
      if (votes.length === 0) continue;
      const useful = votes.filter((v) => v === 'useful').length;
      tallies.push({ jobId, useful, notUseful: votes.length - useful });
    }
    return tallies;
  }
}
