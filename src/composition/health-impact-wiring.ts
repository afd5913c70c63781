import type { Clock } from '../common/clock.js';
import type { Config } from '../common/config.js';
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
  /** `JobServiceDeps.onPullRequest`: a health-fix job's PR becomes one impact check. */
  onPullRequest(record: JobRecord, prLink: string): Promise<void>;
  start(): void;
  /** Stops running checks (pending ones stay in Redis for the next start). */
  stop(): Promise<void>;
}

/** "Did it work?" (issue 14): the job hook, the impact queue, the shared analytics source, the thread post. */
export function wireHealthImpact(input: {
  config: Config;
  adapters: Pick<AdapterSet, 'impactQueue'>;
  apiFor(projectId: string): HealthApi;
  source: AnalyticsSource;
  pageViews: PageViewsReports;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
}): HealthImpactWiring {
  const logger = input.logger.child({ component: 'health-impact' });
  const impact = new HealthImpact({
    queue: input.adapters.impactQueue,
    publisher: new SlackImpactPublisher(input.outbox),
    apiFor: input.apiFor,
    pageViews: input.pageViews,
    source: input.source,
    clock: input.clock,
    logger,
    defaultProjectId: input.config.docs.projectId,
    maxPages: input.config.analytics.maxPages,
    days: input.config.analytics.healthImpactDays,
  });
  return {
    async onPullRequest(record, prLink) {
      if (!record.evidenceRef) return;
      await impact.remember({
        jobId: record.jobId,
        channelId: record.channelId,
        threadTs: record.threadTs,
        evidenceRef: record.evidenceRef,
        ...(record.projectId === undefined ? {} : { projectId: record.projectId }),
        prLink,
      });
    },
    start: () => impact.start(),
    stop: () => impact.stop(),
  };
}
