import { type Lazy, lazily, lazyPart } from '../common/lazily.js';
import type { Outbox } from '../delivery/ports.js';
import type { HealthAlerts } from '../insights/alerts/health-alerts.js';
import { WeeklyReports } from '../insights/weekly/weekly-reports.js';
import type { SlackGateway } from '../slack/slack-gateway.js';
import { wireHealthAlerts } from './alerts-wiring.js';
import { type HealthImpactWiring, wireHealthImpact } from './health-impact-wiring.js';
import { type ReportsParts, wireReports } from './reports-wiring.js';
import type { ScopeBase, ScopeState } from './scope-wiring.js';
import { type UnfurlWiring, wireUnfurls } from './unfurl-wiring.js';

export interface InsightsWiring {
  /**
   * The one analytics source, page views, docs health, the evidence behind Fix buttons, the chart fill:
   * built when a report, a preview, a check or Home's summary first needs them.
   */
  reports: Lazy<ReportsParts>;
  /** Stand-ins for the parts built at once (weekly posts, alerts, the listeners): the first read builds them. */
  onUse: Pick<ReportsParts, 'source' | 'pageViews' | 'health' | 'evidence'>;
  /** "Did it work?": a health-fix job's PR becomes one impact check. */
  impact: HealthImpactWiring;
  /** Docs-link and PR previews, and the PR index behind them. */
  unfurls: UnfurlWiring;
  weekly: WeeklyReports;
  alerts: HealthAlerts;
}

/**
 * A scope's insights, all on its one analytics source (one budget, one cache): reports, "did it work?",
 * link previews, weekly posts and docs-health alerts, each posted through the outbox. Weekly posts and
 * alerts are built at once (their start reads the schedules and subscriptions and registers their plane
 * handlers); what they post with, the impact check and the previews are built when first used (issue 43 §2).
 */
export function wireInsights(
  { config, logger, clock }: ScopeBase,
  { adapters, apiFor, projects }: ScopeState,
  p: { gateway: SlackGateway; outbox: Outbox },
): InsightsWiring {
  const { outbox } = p;
  const reports = lazily(() =>
    wireReports({
      ...{ config, adapters, gateway: p.gateway, outbox, apiFor },
      projects,
      clock,
      logger,
    }),
  );
  const impact = wireHealthImpact({ ...{ config, adapters, apiFor, reports }, ...{ outbox, clock, logger } });
  const unfurls = wireUnfurls({
    ...{ config, adapters, store: adapters.jobStore, apiFor, reports },
    ...{ projects, clock, logger },
  });
  // Stand-ins, not getters on the parts' options (an options object with getters is a dictionary in V8).
  const onUse = {
    source: lazyPart(reports, 'source'),
    pageViews: lazyPart(reports, 'pageViews'),
    health: lazyPart(reports, 'health'),
    evidence: lazyPart(reports, 'evidence'),
  };
  // A tenant with no schedule (no post, no catch-up) never builds the reports.
  const weekly = new WeeklyReports({
    ...{ analytics: onUse.pageViews, health: onUse.health },
    ...{ clock, envDefault: config.analytics.weeklyReport },
    ...{ store: adapters.scheduleStore, scheduler: adapters.weeklyScheduler },
    logger: logger.child({ component: 'weekly-reports' }),
  });
  const alerts = wireHealthAlerts(
    { config, adapters, clock, logger, projects, outbox },
    { apiFor, ...onUse },
  );
  return { reports, onUse, impact, unfurls, weekly, alerts };
}
