import type { Clock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import type { HourlyQuota } from '../common/hourly-quota.js';
import { jobPageUrl } from '../common/job-links.js';
import type { Lazy } from '../common/lazily.js';
import type { Logger } from '../common/logger.js';
import type { ProjectDirectory } from '../common/projects.js';
import type { Outbox } from '../delivery/ports.js';
import type { HealthAlerts } from '../insights/alerts/health-alerts.js';
import { kindOf } from '../insights/ports.js';
import { ThisWeek } from '../insights/weekly/this-week.js';
import type { WeeklyReports } from '../insights/weekly/weekly-reports.js';
import type { JobFeedback } from '../jobs/job-feedback.js';
import type { JobStore } from '../jobs/ports.js';
import { AppHomePublisher, type AppHomeSources } from '../slack/app-home-publisher.js';
import { homeThisWeekSource } from '../slack/home-this-week-source.js';
import type { HomeBudget, HomeSchedule } from '../slack/messages/app-home.js';
import type { HomeSettings } from '../slack/messages/project-settings.js';
import type { SlackGateway } from '../slack/slack-gateway.js';
import type { ReportsParts } from './reports-wiring.js';
import type { ScopeBase, ScopeState } from './scope-wiring.js';
import { type WiredSettings, wireProjectSettings } from './settings-wiring.js';

/** Home's Settings section and the listeners' project settings are wired together (settings-wiring.ts). */
export { accessPolicyFor, wireProjectSettings } from './settings-wiring.js';

export interface AppHomeWiring {
  config: Config;
  gateway: Pick<SlackGateway, 'publishHome'>;
  store: JobStore;
  weekly: Pick<WeeklyReports, 'list'>;
  /** Channels the user subscribed to docs-health alerts (absent: Home shows no alert section). */
  alerts?: Pick<HealthAlerts, 'subscribedBy'>;
  agentJobQuotaFor(projectId: string): HourlyQuota;
  analyticsBudget: HourlyQuota;
  feedback?: Pick<JobFeedback, 'thisMonth'>;
  projects: Pick<ProjectDirectory, 'all' | 'isMulti' | 'defaultProjectId'>;
  /** OAuth mode: Home's Settings section (settings-wiring.ts). */
  settings?: ((userId: string) => Promise<HomeSettings | undefined>) | undefined;
  clock: Clock;
  logger: Logger;
  /** OAuth mode: the tenant's part of the process's one bounded cache. */
  hashes?: AppHomeSources['hashes'];
  seen?: AppHomeSources['seen'];
  /** ADMIN_USER_IDS: who sees the hourly budgets in single-workspace mode (OAuth mode: the tenant's managers). */
  isAdmin(userId: string): boolean;
  /** "This week in your docs" (absent: no such section). */
  thisWeek?: AppHomeSources['thisWeek'];
}

/** The App Home publisher: the user's jobs from the store, their schedules, the two hourly budgets. */
export function createAppHome(w: AppHomeWiring): AppHomePublisher {
  const budget = async (label: string, quota: HourlyQuota, limit: number): Promise<HomeBudget> => {
    const left = await quota.remaining();
    const wait = left === 0 ? await quota.waitTime() : 0;
    return { label, left, limit, ...(wait > 0 ? { resetsAt: w.clock.now() + wait } : {}) };
  };
  const budgets = () =>
    Promise.all([
      // One job budget per project (the platform counts them apart), then the organisation's analytics.
      ...w.projects
        .all()
        .map((id) =>
          budget(`Agent jobs in project ${id}`, w.agentJobQuotaFor(id), w.config.docs.jobsPerHour),
        ),
      budget(
        'Analytics requests (/docs-views, /docs-health)',
        w.analyticsBudget,
        w.config.analytics.hourlyBudget,
      ),
    ]);
  return new AppHomePublisher({
    store: w.store,
    async schedules(userId) {
      const all = await w.weekly.list();
      return all
        .filter((s) => s.createdBy === userId)
        .map(
          (s): HomeSchedule => ({
            channelId: s.channelId,
            cron: s.cron,
            timeZone: s.timeZone,
            ...(s.nextRun === undefined ? {} : { nextRunAt: s.nextRun }),
            kind: kindOf(s) === 'health' ? 'Docs health' : 'Page views',
            scheduleKind: kindOf(s),
          }),
        );
    },
    ...(w.alerts
      ? {
          alerts: async (userId: string) =>
            (await w.alerts!.subscribedBy(userId)).map((s) => ({
              channelId: s.channelId,
              sensitivity: s.sensitivity,
            })),
        }
      : {}),
    budgets: async (userId) => {
      // An operator's figures: managers only (OAuth mode: whoever may manage the tenant's settings).
      const manager = w.settings ? (await w.settings(userId))?.manage === true : w.isAdmin(userId);
      return manager ? budgets() : undefined;
    },
    publish: (userId, view, hash) => w.gateway.publishHome(userId, view, hash),
    ...(w.feedback ? { feedback: () => w.feedback!.thisMonth() } : {}),
    ...(w.settings ? { settings: w.settings } : {}),
    usage: async () => {
      // Every project's jobs together: "3 of 20 agent jobs this hour" (a project's quota counts its own).
      const ids = w.projects.all();
      const left = await Promise.all(ids.map((id) => w.agentJobQuotaFor(id).remaining()));
      const limit = w.config.docs.jobsPerHour * ids.length;
      const used = left.reduce((sum, n) => sum + Math.max(0, w.config.docs.jobsPerHour - n), 0);
      return limit > 0 ? { used, limit } : undefined;
    },
    jobPage: (job) =>
      jobPageUrl(w.config.docs.jobUrlPattern, {
        projectId: job.projectId ?? w.projects.defaultProjectId,
        jobId: job.jobId,
      }),
    logger: w.logger.child({ component: 'app-home' }),
    hashes: w.hashes,
    seen: w.seen,
    ...(w.thisWeek ? { thisWeek: w.thisWeek } : {}),
  });
}

/** What the scope's parts use of Home: the listeners open it, jobs tell it changes, the stop closes it. */
export type HomeSurface = Pick<AppHomePublisher, 'opened' | 'jobChanged' | 'close'>;

/**
 * App Home and the tenant's project settings (OAuth mode), wired together: Home's Settings section and the
 * listeners' settings surface read the same managers and connections. Home's publisher (with its "this
 * week" source, loggers and maps) is built when first used: a tenant nobody opens Home in and with no job
 * never pays for it (issue 43 §2); never built, it has nothing pending or running to close.
 */
export function wireHome(
  { config, options, clock, logger, edge }: ScopeBase,
  { adapters, projects, access, cache }: ScopeState,
  p: {
    gateway: Pick<SlackGateway, 'publishHome' | 'userInfo'>;
    outbox: Outbox;
    weekly: AppHomeWiring['weekly'];
    alerts: NonNullable<AppHomeWiring['alerts']>;
    feedback: NonNullable<AppHomeWiring['feedback']>;
    /**
     * The scope's reports (built on first use): Home's weekly summary reads their cache, and fills it within
     * their budget.
     */
    reports?: Lazy<Pick<ReportsParts, 'source' | 'pageViews' | 'health' | 'evidence'>>;
  },
): { settings: WiredSettings; home: HomeSurface } {
  const settingsWiring = { access, outbox: p.outbox, clock, logger, edge };
  const settings = wireProjectSettings(config, options.tenant, p.gateway, settingsWiring);
  let built: AppHomePublisher | undefined;
  // "This week" (and the reports under it) is built at the first publish, not with the publisher.
  const { reports } = p;
  let summary: AppHomeSources['thisWeek'] | undefined;
  const thisWeek = (of: NonNullable<typeof reports>) => {
    summary ??= thisWeekOf(config, of.get(), adapters.jobStore, projects, clock, logger, settings.deps);
    return summary!;
  };
  const publisher = () => {
    built ??= createAppHome({
      ...{ config, settings: settings.home },
      gateway: p.gateway,
      store: adapters.jobStore,
      weekly: p.weekly,
      alerts: p.alerts,
      projects,
      feedback: p.feedback,
      ...adapters,
      clock,
      logger,
      hashes: cache('home-hashes'),
      seen: cache('home-seen'),
      isAdmin: (userId) => access.isAdmin(userId),
      ...(reports ? { thisWeek: () => thisWeek(reports)() } : {}),
    });
    return built;
  };
  const home: HomeSurface = {
    opened: (teamId, userId) => publisher().opened(teamId, userId),
    jobChanged: (record) => publisher().jobChanged(record),
    close: async () => built?.close(),
  };
  return { settings, home };
}

/** Home's "This week in your docs" over the scope's analytics source (its cache; its budget for a fill). */
function thisWeekOf(
  config: Config,
  reports: Pick<ReportsParts, 'source' | 'pageViews' | 'health' | 'evidence'>,
  store: JobStore,
  projects: Pick<ProjectDirectory, 'defaultProjectId'>,
  clock: Clock,
  logger: Logger,
  settings: Pick<NonNullable<WiredSettings['deps']>, 'isSetUp'> | undefined,
): AppHomeSources['thisWeek'] {
  const thisWeek = new ThisWeek({
    source: reports.source,
    projects,
    now: () => clock.now(),
    maxPages: config.analytics.maxPages,
    pageViews: reports.pageViews,
    health: reports.health,
    claim: (key, ttlMs) => store.claim(key, ttlMs),
    logger: logger.child({ component: 'home-this-week' }),
  });
  return homeThisWeekSource({
    ...{ thisWeek, store, evidence: reports.evidence, logger },
    ...(settings ? { isSetUp: () => settings.isSetUp() } : {}),
  });
}
