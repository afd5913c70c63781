import type { Clock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import { type Lazy, lazily } from '../common/lazily.js';
import type { Logger } from '../common/logger.js';
import type { Outbox } from '../delivery/ports.js';
import type { AnalyticsSource } from '../insights/analytics-source.js';
import { HealthImpact } from '../insights/health/health-impact.js';
import type { HealthApi } from '../insights/health/ports.js';
import type { PageViewsReports } from '../insights/page-views/page-views-reports.js';
import type { JobRecord } from '../jobs/domain/job.js';
import { SlackImpactPublisher } from '../slack/impact-publisher.js';
import type { AdapterSet } from '../state/adapters.js';

export interface HealthImpactWiring {
  /**
   * `JobServiceDeps.onPullRequest`: a health-fix job's PR becomes one impact check, counted from the PR's
   * day; unless the PR is followed on GitHub (`followed`), whose merge schedules it (`onMerged`).
   */
  onPullRequest(record: JobRecord, prLink: string, followed?: boolean): Promise<void>;
  /** A followed PR GitHub will not show (404/403): the check counts from the PR's day, as without GitHub. */
  onUnreadable(record: JobRecord): Promise<void>;
  /** The followed PR was merged: one impact check counted from the merge day (closed: none at all). */
  onMerged(record: JobRecord, pr: { mergedAt: number | null; openedAt: number }): Promise<void>;
  start(): void;
  /** Stops running checks (pending ones stay in Redis for the next start). */
  stop(): Promise<void>;
}

/**
 * "Did it work?" (issue 14): the job hook, the impact queue, the shared analytics source, the thread post.
 * The use case (and the reports it measures with) is built when a check is remembered or runs: the start
 * registers the queue's handler, which builds it when the tenant's first check falls due (issue 43 §2).
 */
export function wireHealthImpact(input: {
  config: Config;
  adapters: Pick<AdapterSet, 'impactQueue'>;
  apiFor(projectId: string): HealthApi;
  reports: Lazy<{ source: AnalyticsSource; pageViews: PageViewsReports }>;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
}): HealthImpactWiring {
  const clockNow = () => input.clock.now();
  const queue = input.adapters.impactQueue;
  const built = lazily(() => {
    const { source, pageViews } = input.reports.get();
    return new HealthImpact({
      queue,
      publisher: new SlackImpactPublisher(input.outbox),
      apiFor: input.apiFor,
      pageViews,
      source,
      clock: input.clock,
      logger: input.logger.child({ component: 'health-impact' }),
      defaultProjectId: input.config.docs.projectId,
      maxPages: input.config.analytics.maxPages,
      days: input.config.analytics.healthImpactDays,
    });
  });
  return {
    async onPullRequest(record, prLink, followed = false) {
      if (!record.evidenceRef || followed) return;
      await built.get().remember({ ...checkOf(record, record.evidenceRef), prLink, countedFrom: 'pr' });
    },
    async onMerged(record, pr) {
      if (!record.evidenceRef || !record.pullRequest) return;
      await built.get().remember({
        ...checkOf(record, record.evidenceRef),
        prLink: record.pullRequest.url,
        prSeenAt: pr.mergedAt ?? clockNow(),
        openedAt: pr.openedAt,
        countedFrom: 'merge',
      });
    },
    async onUnreadable(record) {
      if (!record.evidenceRef || !record.pullRequest) return;
      await built.get().remember({
        ...checkOf(record, record.evidenceRef),
        prLink: record.pullRequest.url,
        prSeenAt: record.pullRequest.startedAt,
        countedFrom: 'pr',
      });
    },
    // As HealthImpact's own start and stop, without building it: the handler builds it at a due check.
    start: () => queue.start((check, attempt) => built.get().run(check, attempt)),
    stop: () => queue.close(),
  };
}

/** What every impact check of a job carries: where to post, the evidence, the job's project. */
function checkOf(record: JobRecord, evidenceRef: string) {
  return {
    jobId: record.jobId,
    channelId: record.channelId,
    threadTs: record.threadTs,
    evidenceRef,
    ...(record.projectId === undefined ? {} : { projectId: record.projectId }),
  };
}
