import type { Outbox } from '../delivery/ports.js';
import type { HealthAlerts } from '../insights/alerts/health-alerts.js';
import { WeeklyReports } from '../insights/weekly/weekly-reports.js';
import type { SlackGateway } from '../slack/slack-gateway.js';
import { wireHealthAlerts } from './alerts-wiring.js';
import { type HealthImpactWiring, wireHealthImpact } from './health-impact-wiring.js';
import { wireReports } from './reports-wiring.js';
import type { ScopeBase, ScopeState } from './scope-wiring.js';
import { type UnfurlWiring, wireUnfurls } from './unfurl-wiring.js';

export interface InsightsWiring {
  /** The one analytics source, page views, docs health, the evidence behind Fix buttons, the chart fill. */
  reports: ReturnType<typeof wireReports>;
  /** "Did it work?": a health-fix job's PR becomes one impact check. */
  impact: HealthImpactWiring;
  /** Docs-link and PR previews, and the PR index behind them. */
  unfurls: UnfurlWiring;
  weekly: WeeklyReports;
  alerts: HealthAlerts;
}

/**
 * A scope's insights, all on its one analytics source (one budget, one cache): reports, "did it work?",
 * link previews, weekly posts and docs-health alerts, each posted through the outbox.
 */
export function wireInsights(
  { config, logger, clock }: ScopeBase,
  { adapters, apiFor, projects }: ScopeState,
  p: { gateway: SlackGateway; outbox: Outbox },
): InsightsWiring {
  const { outbox } = p;
  const reports = wireReports({
    ...{ config, adapters, gateway: p.gateway, outbox, apiFor },
    projects,
    clock,
    logger,
  });
  const { source, pageViews: analytics, evidence, health } = reports;
  const impact = wireHealthImpact({
    ...{ config, adapters, apiFor, source, pageViews: analytics },
    ...{ outbox, clock, logger },
  });
  const unfurls = wireUnfurls({
    ...{ config, adapters, store: adapters.jobStore, apiFor, source, pageViews: analytics },
    ...{ evidence, projects, clock, logger },
  });
  const weekly = new WeeklyReports({
    ...{ analytics, health, clock, envDefault: config.analytics.weeklyReport },
    ...{ store: adapters.scheduleStore, scheduler: adapters.weeklyScheduler },
    logger: logger.child({ component: 'weekly-reports' }),
  });
  const alerts = wireHealthAlerts(
    { config, adapters, clock, logger, projects, outbox },
    { apiFor, source, evidence },
  );
  return { reports, impact, unfurls, weekly, alerts };
}
