import type { PageViewsReports } from '../../insights/page-views/page-views-reports.js';
import type { WeeklyReports } from '../../insights/weekly/weekly-reports.js';
import type { ConversationService } from '../../jobs/conversation-service.js';
import type { JobService } from '../../jobs/job-service.js';
import type { AccessPolicy } from '../../shared/access-policy.js';
import type { Logger } from '../../shared/logger.js';
import type { HourlyLimits } from '../messages/failures.js';

/** What listeners may use: services, never adapters. */
export interface SlackDeps {
  jobs: JobService;
  conversations: ConversationService;
  access: AccessPolicy;
  logger: Logger;
  /** `/docs-views`: page-view reports and weekly posts. */
  views: { analytics: PageViewsReports; weekly: WeeklyReports; siteUrl: string | undefined };
  /** The configured hourly budgets, named in the texts that refuse for them. */
  limits?: HourlyLimits;
  /**
   * Runs work that follows an acknowledgement outside Bolt's middleware chain, so the request's Bolt
   * objects are freed at once instead of living as long as the work (a card post paced behind others in a
   * busy channel can wait minutes). Shutdown still waits for it; a rejection is logged, never unhandled.
   */
  afterAck(work: () => Promise<void>): void;
}
