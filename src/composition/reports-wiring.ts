import type { Clock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import type { HourlyQuota } from '../common/hourly-quota.js';
import type { Logger } from '../common/logger.js';
import type { ProjectDirectory } from '../common/projects.js';
import type { Outbox } from '../delivery/ports.js';
import { AnalyticsSource } from '../insights/analytics-source.js';
import { ChartFill } from '../insights/chart-fill.js';
import { HealthEvidence } from '../insights/health/health-evidence.js';
import { HealthReports } from '../insights/health/health-reports.js';
import type { EvidenceStore } from '../insights/health/ports.js';
import { PageViewsReports } from '../insights/page-views/page-views-reports.js';
import type { AnalyticsCache } from '../insights/ports.js';
import type { DocsApiClient } from '../platform/docs-client.js';
import { SlackReportPublisher } from '../slack/report-publisher.js';
import type { SlackGateway } from '../slack/slack-gateway.js';

export interface ReportsWiring {
  config: Config;
  adapters: { analyticsCache: AnalyticsCache; analyticsBudget: HourlyQuota; evidenceStore: EvidenceStore };
  gateway: SlackGateway;
  outbox: Outbox;
  apiFor: (projectId: string) => DocsApiClient;
  projects: ProjectDirectory;
  clock: Clock;
  logger: Logger;
}

/**
 * The reports: one analytics source for every endpoint (one budget, one cache; with REDIS_URL both shared
 * by every replica), page views and docs health over it, published to Slack through the outbox, and the
 * evidence behind Fix buttons (short ids; the evidence waits in the state store for 7 days).
 */
export function wireReports(w: ReportsWiring) {
  const { config, adapters, apiFor, projects, clock } = w;
  const logger = w.logger.child({ component: 'analytics' });
  const source = new AnalyticsSource({
    cache: adapters.analyticsCache,
    budget: adapters.analyticsBudget,
    logger,
    cacheTtlMs: config.analytics.cacheTtlMs,
    hourlyLimit: config.analytics.hourlyBudget,
  });
  // Charts too big to draw with their report are read after it, within the budget (one queue per runtime).
  const fill = new ChartFill({ source, logger });
  const publisher = new SlackReportPublisher(w.gateway, w.outbox, config.docs.siteUrl);
  const shared = { apiFor, source, publisher, clock, logger, projects, maxPages: config.analytics.maxPages };
  const charts = { charts: config.analytics.charts, fill };
  const pageViews = new PageViewsReports({ ...shared, ...charts });
  const evidence = new HealthEvidence(adapters.evidenceStore);
  const health = new HealthReports({ ...shared, evidence, ...charts });
  return { source, publisher, pageViews, evidence, health, chartFill: fill };
}

/** What the reports step builds (once, on first use: `InsightsWiring.reports`). */
export type ReportsParts = ReturnType<typeof wireReports>;
