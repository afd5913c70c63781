import type { Clock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import type { Outbox } from '../delivery/ports.js';
import { HealthAlerts } from '../insights/alerts/health-alerts.js';
import type { AnalyticsSource } from '../insights/analytics-source.js';
import { encodeEvidenceRef } from '../insights/health/evidence-ref.js';
import type { HealthEvidence } from '../insights/health/health-evidence.js';
import type { HealthApi } from '../insights/health/ports.js';
import type { AnalyticsProjects } from '../insights/page-views/page-views-reports.js';
import type { PageViewsApi } from '../insights/ports.js';
import { SlackAlertPublisher } from '../slack/alert-publisher.js';
import type { AdapterSet } from '../state/adapters.js';

export interface HealthAlertsWiring {
  config: Config;
  adapters: Pick<AdapterSet, 'alertStore' | 'alertScheduler' | 'deliveryStore'>;
  projects: AnalyticsProjects;
  outbox: Outbox;
  clock: Clock;
  logger: Logger;
}

export interface HealthAlertsParts {
  apiFor(projectId: string): HealthApi & PageViewsApi;
  /** The scope's analytics source and evidence (stand-ins: a check's first read builds the reports). */
  source: AnalyticsSource;
  evidence: Pick<HealthEvidence, 'save'>;
}

/**
 * Docs-health alerts: the use case on the shared analytics source, its store, scheduler and the outbox.
 * Its start reads the subscriptions and registers the check; the reports it checks with are built when a
 * check first runs (issue 43 §2).
 */
export function wireHealthAlerts(w: HealthAlertsWiring, p: HealthAlertsParts): HealthAlerts {
  return new HealthAlerts({
    store: w.adapters.alertStore,
    scheduler: w.adapters.alertScheduler,
    publisher: new SlackAlertPublisher(w.outbox, w.adapters.deliveryStore, w.config.docs.siteUrl),
    source: p.source,
    healthApiFor: p.apiFor,
    viewsApiFor: p.apiFor,
    projects: w.projects,
    evidence: p.evidence,
    encodeEvidence: encodeEvidenceRef,
    clock: w.clock,
    logger: w.logger.child({ component: 'health-alerts' }),
    intervalMs: w.config.analytics.healthAlertIntervalMs,
    maxPages: w.config.analytics.maxPages,
  });
}
