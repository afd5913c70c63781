import type { Outbox } from '../delivery/ports.js';
import type { JobRecord } from '../jobs/domain/job.js';
import type { PullRequestNotice, PullRequestNotices } from '../jobs/pull-requests/ports.js';
import { pullRequestNoticeMessage } from './messages/pull-request.js';

/** The record of a PR's end outlives following (PR_FOLLOW_DAYS ≤ 180): no replica or retry owes it twice. */
const NOTICE_KEEP_MS = 200 * 24 * 60 * 60 * 1000;

/** Owes the one thread message when a followed PR is merged, closed without merge, or left open too long. */
export class SlackPullRequestNotices implements PullRequestNotices {
  constructor(private readonly outbox: Outbox) {}

  /** Resolves once the message is recorded in the outbox (which delivers it); rejects when the store failed. */
  async post(record: JobRecord, notice: PullRequestNotice): Promise<void> {
    const url = record.pullRequest?.url;
    if (!url) return;
    // One key per job and PR end: a later PR of the same job (a follow-up) has its own start, so its own key.
    const kind = notice.kind === 'still_open' ? 'open' : notice.kind;
    await this.outbox.owe({
      key: `pr-${kind}:${record.jobId}:${record.pullRequest?.startedAt ?? 0}`,
      target: { kind: 'post', channel: record.channelId, threadTs: record.threadTs },
      payload: pullRequestNoticeMessage(url, notice),
      priority: 'reply',
      keepMs: NOTICE_KEEP_MS,
    });
  }
}
