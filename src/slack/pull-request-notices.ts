import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { JobRecord } from '../jobs/domain/job.js';
import type { PullRequestNotice, PullRequestNotices } from '../jobs/pull-requests/ports.js';
import type { OnceClaims } from './impact-publisher.js';
import { pullRequestNoticeMessage } from './messages/pull-request.js';
import { isPermanentSlackError } from './slack-errors.js';
import { SlackDeliveryError, type SlackGateway } from './slack-gateway.js';

/** A PR ends once: the claim outlives following (PR_FOLLOW_DAYS ≤ 180) so no replica or retry posts twice. */
const NOTICE_CLAIM_MS = 200 * 24 * 60 * 60 * 1000;

/** The one thread message when a followed PR is merged, closed without merge, or left open too long. */
export class SlackPullRequestNotices implements PullRequestNotices {
  constructor(
    private readonly gateway: SlackGateway,
    private readonly claims: OnceClaims,
    private readonly logger: Logger,
  ) {}

  async post(record: JobRecord, notice: PullRequestNotice): Promise<void> {
    const url = record.pullRequest?.url;
    if (!url) return;
    // One key per job and PR end: a later PR of the same job (a follow-up) has its own URL, so its own key.
    const key = `pr-${notice.kind === 'still_open' ? 'open' : notice.kind}:${record.jobId}:${record.pullRequest?.startedAt ?? 0}`;
    if (!(await this.claims.claim(key, NOTICE_CLAIM_MS))) return;
    await this.postOnce(record, url, notice, key);
  }

  /** One post, kept in one function: the delivery outbox takes it over when merged (dedupe key as is). */
  private async postOnce(record: JobRecord, url: string, notice: PullRequestNotice, key: string) {
    try {
      await this.gateway.post({
        channel: record.channelId,
        threadTs: record.threadTs,
        message: pullRequestNoticeMessage(url, notice),
        dedupeKey: key,
        priority: 'reply',
      });
    } catch (error) {
      await this.claims.release(key).catch(() => undefined);
      if (error instanceof SlackDeliveryError && isPermanentSlackError(error.code)) {
        this.logger.error(
          { jobId: record.jobId, code: error.code },
          'Slack refused the pull request notice; not retried',
        );
        return;
      }
      this.logger.warn({ jobId: record.jobId, error: describeError(error) }, 'pull request notice failed');
      throw error;
    }
  }
}
