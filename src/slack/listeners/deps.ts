import type { AnalyticsService } from '../../analytics/analytics-service.js';
import type { WeeklyReports } from '../../analytics/weekly-reports.js';
import type { Logger } from '../../logger.js';
import type { AccessPolicy } from '../../services/access-policy.js';
import type { ConversationService } from '../../services/conversation-service.js';
import type { JobService } from '../../services/job-service.js';
import type { HourlyLimits } from '../views/failures.js';

/** What listeners may use: services, never adapters. */
export interface SlackDeps {
  jobs: JobService;
  conversations: ConversationService;
  access: AccessPolicy;
  logger: Logger;
  /** `/docs-views`: page-view reports and weekly posts. */
  views: { analytics: AnalyticsService; weekly: WeeklyReports; siteUrl: string | undefined };
  /** The configured hourly budgets, named in the texts that refuse for them. */
  limits?: HourlyLimits;
  /**
   * Runs work that follows an acknowledgement outside Bolt's middleware chain, so the request's Bolt
   * objects are freed at once instead of living as long as the work (a card post paced behind others in a
   * busy channel can wait minutes). Shutdown still waits for it; a rejection is logged, never unhandled.
   */
  afterAck(work: () => Promise<void>): void;
}
