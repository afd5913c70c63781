import { AccessPolicy } from '../common/access-policy.js';
import { type Clock, systemClock } from '../common/clock.js';
import { type Config, secretsOf } from '../common/config.js';
import { createLogger, type Logger } from '../common/logger.js';
import { ProjectDirectory } from '../common/projects.js';
import { Deliveries } from '../delivery/deliveries.js';
import { Reconciler } from '../delivery/reconciler.js';
import { AnalyticsSource } from '../insights/analytics-source.js';
import { HealthReports } from '../insights/health/health-reports.js';
import { PageViewsReports } from '../insights/page-views/page-views-reports.js';
import { WeeklyReports } from '../insights/weekly/weekly-reports.js';
import { ConversationService } from '../jobs/conversation-service.js';
import { JobService } from '../jobs/job-service.js';
import type { JobStore } from '../jobs/ports.js';
import { Metrics } from '../metrics/metrics.js';
import { type MetricsServer, startMetricsServer } from '../metrics/metrics-server.js';
import { DocsApiClient } from '../platform/docs-client.js';
import { SlackDeliverySender } from '../slack/delivery-sender.js';
import { SlackJobNotifier } from '../slack/job-notifier.js';
import { MAX_PROMPT_CHARS } from '../slack/messages/help.js';
import { SlackReportPublisher } from '../slack/report-publisher.js';
import { createSlackApp } from '../slack/slack-app.js';
import { UserNames } from '../slack/user-names.js';
import { createAdapters, type SchedulerTimers } from '../state/adapters.js';
import { SHUTDOWN_BUDGET_MS, stateNote, UNTIL_STATE_CLOSES_MS, within } from './app-steps.js';
import { healthRoutes } from './health.js';
import { wireHealthImpact } from './health-impact-wiring.js';
import { createAppHome } from './home-wiring.js';

/** How often each replica looks for owed deliveries nobody holds (a lease lapsed, a retry due). */
const DELIVERY_RECONCILE_MS = 1_000;
/** How often each replica looks for watched jobs without a pending poll (one store read per watched job). */
const WATCH_RECONCILE_MS = 5_000;

export interface DocsAgentOptions {
  logger?: Logger;
  clock?: Clock;
  /** Time for the weekly report scheduler (tests pass a manual one); defaults to real timers on `clock`. */
  schedulerTimers?: SchedulerTimers;
  /** A prepared in-memory job store (benchmarks seed thousands of watched jobs); ignored with REDIS_URL. */
  jobStore?: JobStore;
  /** Time for memory mode's impact checks (tests pass a manual one); defaults to real timers on `clock`. */
  impactTimers?: SchedulerTimers;
}

export interface DocsAgent {
  logger: Logger;
  /** Starts receiving Slack requests and resumes watching jobs; resolves the HTTP port. */
  start(): Promise<number>;
  stop(): Promise<void>;
  /** The metrics port once started (METRICS_PORT; 0 picks a free one). */
  metricsPort(): number | undefined;
  /** The agent-job use cases (tests start a job with evidence directly). */
  jobs: JobService;
}

/** Composition root: builds adapters, services and the Slack app from a validated config. */
export function createDocsAgent(config: Config, options: DocsAgentOptions = {}): DocsAgent {
  const logger = options.logger ?? createLogger({ level: config.logLevel, secrets: secretsOf(config) });
  const clock = options.clock ?? systemClock;
  let stopping = false;
  let stopped: Promise<void> | undefined;
  const startAbort = new AbortController();
  let metricsServer: MetricsServer | undefined;
  const metrics = new Metrics();

  const docsApi = new DocsApiClient({
    baseUrl: config.docs.apiUrl,
    apiKey: config.docs.apiKey,
    projectId: config.docs.projectId,
    timeoutMs: config.docs.timeoutMs,
    logger: logger.child({ component: 'docs-api' }),
    metrics,
  });
  // Memory, or Redis with REDIS_URL (shared by replicas, kept across restarts): the one place that chooses.
  const adapters = createAdapters(config, {
    logger,
    clock,
    ...(options.jobStore ? { jobStore: options.jobStore } : {}),
    ...(options.schedulerTimers ? { schedulerTimers: options.schedulerTimers } : {}),
    ...(options.impactTimers ? { impactTimers: options.impactTimers } : {}),
  });
  const { jobStore: store, pollQueue: queue, agentJobQuota: quota, analyticsBudget } = adapters;
  // Channels map to docs projects (DOCS_CHANNEL_PROJECTS); one admin key and one pool serve them all.
  const projects = new ProjectDirectory(config.docs.projectId, config.docs.channelProjects);
  const docsApiFor = (projectId: string) => docsApi.forProject(projectId);

  const slack = createSlackApp(
    config,
    logger,
    healthRoutes({
      stopping: () => stopping,
      state: () => adapters.state(),
      slackConnected: () => slack.connected(),
    }),
    { metrics, ...(adapters.slackSlots ? { sharedSlots: adapters.slackSlots } : {}) },
  );
  // The one delivery path: everything the bot owes Slack is recorded in the outbox, then attempted under a
  // lease of about twice the longest call; the reconciler below retries whatever nobody holds.
  const deliveries = new Deliveries({
    store: adapters.deliveryStore,
    sender: new SlackDeliverySender(slack.gateway),
    logger: logger.child({ component: 'delivery' }),
    leaseMs: 2 * config.slack.timeoutMs + 5_000,
    settleMs: 2 * config.slack.timeoutMs,
    metrics,
  });
  const notifier = new SlackJobNotifier(slack.gateway, deliveries, clock, logger, {
    followUpsFrom: config.access.followUpsFrom,
    jobsPerHour: config.docs.jobsPerHour,
    onJobChanged: (record) => home.jobChanged(record),
    projects,
  });
  const jobs = new JobService({
    apiFor: docsApiFor,
    projects,
    store,
    notifier,
    queue,
    quotaFor: (projectId) => adapters.agentJobQuotaFor(projectId),
    clock,
    logger,
    poll: { minMs: config.poll.intervalMs, maxMs: config.poll.maxIntervalMs, maxAgeMs: config.poll.maxAgeMs },
    metrics,
    // Wired below, once the analytics source exists; called only after start.
    onPullRequest: (record, prLink) => impact.onPullRequest(record, prLink),
  });
  const access = new AccessPolicy(config.access);
  // Every replica, leader-free: owed deliveries nobody holds, watched jobs without a pending poll.
  const reconciler = new Reconciler(
    [
      { name: 'deliveries', everyMs: DELIVERY_RECONCILE_MS, run: () => deliveries.reconcile() },
      { name: 'watched-jobs', everyMs: WATCH_RECONCILE_MS, run: () => jobs.reconcileWatching() },
    ],
    logger.child({ component: 'reconciler' }),
  );
  metrics.setSources({
    watchedJobs: () => store.listWatched(),
    quotas: { agent_jobs: () => quota.remaining(), analytics: () => analyticsBudget.remaining() },
  });
  // One source for every analytics endpoint: one budget, one cache. With REDIS_URL both are shared by
  // every replica.
  const analyticsSource = new AnalyticsSource({
    cache: adapters.analyticsCache,
    budget: analyticsBudget,
    logger: logger.child({ component: 'analytics' }),
    cacheTtlMs: config.analytics.cacheTtlMs,
  });
  const publisher = new SlackReportPublisher(slack.gateway, config.docs.siteUrl);
  const analytics = new PageViewsReports({
    apiFor: docsApiFor,
    source: analyticsSource,
    publisher,
    clock,
    logger: logger.child({ component: 'analytics' }),
    projects,
    maxPages: config.analytics.maxPages,
  });
  const impact = wireHealthImpact({
    config,
    adapters,
    apiFor: docsApiFor,
    source: analyticsSource,
    pageViews: analytics,
    outbox: deliveries,
    clock,
    logger,
  });
  const healthReports = new HealthReports({
    apiFor: docsApiFor,
    source: analyticsSource,
    clock,
    projects,
    maxPages: config.analytics.maxPages,
    publisher,
  });
  const weekly = new WeeklyReports({
    analytics,
    health: healthReports,
    store: adapters.scheduleStore,
    scheduler: adapters.weeklyScheduler,
    clock,
    logger: logger.child({ component: 'weekly-reports' }),
    envDefault: config.analytics.weeklyReport,
  });
  const home = createAppHome({
    config,
    gateway: slack.gateway,
    store,
    weekly,
    projects,
    ...adapters,
    clock,
    logger,
  });
  const userNames = new UserNames(
    async (id) => {
      const name = await slack.gateway.userName(id);
      return name === undefined ? undefined : { name };
    },
    { logger },
  );
  const conversations = new ConversationService({
    jobs,
    store,
    notifier,
    text: userNames,
    access,
    followUpsFrom: config.access.followUpsFrom,
    maxPromptChars: MAX_PROMPT_CHARS,
    logger,
  });
  slack.register({
    jobs,
    conversations,
    access,
    projects,
    logger,
    pageViews: { analytics, weekly, siteUrl: config.docs.siteUrl },
    health: { reports: healthReports, weekly, siteUrl: config.docs.siteUrl },
    limits: { jobsPerHour: config.docs.jobsPerHour, analyticsPerHour: config.analytics.hourlyBudget },
    jobReaction: config.access.jobReaction,
    home,
  });

  return {
    logger,
    metricsPort: () => metricsServer?.port,
    jobs,
    async start() {
      // The port opens first, so /healthz answers (alive) and /readyz says why not ready while Redis is down.
      const port = await slack.start();
      metricsServer = await startMetricsServer(metrics, config.metrics, logger);
      if (!(await adapters.waitUntilReady(startAbort.signal))) return port;
      // Start-up is one pass of the reconciler: watched jobs without a pending poll, owed deliveries.
      const resumed = await jobs.startWatching();
      await reconciler.runOnce();
      reconciler.start();
      impact.start();
      await weekly.start();
      logger.info(
        {
          mode: slack.mode,
          port,
          state: adapters.backend,
          resumedJobs: resumed,
          project: config.docs.projectId,
        },
        slack.mode === 'http'
          ? `docs-agent is listening for Slack on port ${port} (POST /slack/events); ${stateNote(adapters.backend)}`
          : `docs-agent is connected in Socket Mode (health on port ${port}); ${stateNote(adapters.backend)}`,
      );
      return port;
    },
    stop() {
      stopped ??= (async () => {
        // Not ready from now on: load balancers and orchestrators stop sending work here.
        stopping = true;
        startAbort.abort();
        const started = Date.now();
        const budget = SHUTDOWN_BUDGET_MS;
        // 1. No new Slack requests: the HTTP server stops accepting (or the socket disconnects).
        await within(slack.stop(), budget.receiver, 'closing the Slack receiver', logger);
        // 2. Finish what was already acknowledged (cards, job creations, follow-ups, buttons). The Slack
        //    client and its posting queues stay open until every step below is done.
        let unfinished = await slack.drain(budget.acknowledged);
        if (unfinished > 0) logger.warn({ unfinished }, 'shutdown: acknowledged Slack work still running');
        // 3. Take no more work: no reconciling, no weekly firing; running polls finish and re-delay
        //    themselves (Redis keeps them, and any wake-up recorded meanwhile, for the replicas that stay).
        await Promise.all([
          within(reconciler.stop(), budget.queues, 'stopping the reconciler', logger),
          within(weekly.stop(), budget.queues, 'stopping weekly reports', logger),
          within(queue.close(), budget.queues, 'closing the poll queue', logger),
          within(impact.stop(), budget.queues, 'closing the impact queue', logger),
        ]);
        // 4. Attempts under way (the work above owed card states and replies) get a moment to land; then every
        //    lease is handed back: the outbox keeps what is owed and another replica (or the next start)
        //    delivers it, looking first where an attempt may have landed.
        await within(deliveries.idle(), budget.flush, 'sending owed messages', logger);
        let handedBack = 0;
        const handBack = deliveries.handBack().then((count) => {
          handedBack = count;
        });
        await within(handBack, budget.handBack, 'handing deliveries back', logger);
        await within(home.close(), budget.home, 'finishing Home refreshes', logger);
        // Acknowledged work that outlasted step 2 (a slow create) gets the time steps 2-4 left unused before
        // the state closes: the job created upstream is recorded and watched (a wake-up for the replicas that
        // stay) instead of exiting with this process while its card says "Starting" forever.
        if (unfinished > 0)
          unfinished = await slack.drain(Math.max(0, started + UNTIL_STATE_CLOSES_MS - Date.now()));
        // 5. Only now Slack's client (calls still waiting for a slot fail as not sent and stay owed), then the
        //    state store and the docs API pool.
        await within(slack.close(), budget.slackClient, 'closing the Slack client', logger);
        await within(adapters.close(), budget.state, 'closing the state connections', logger);
        await within(docsApi.close(), budget.docsApi, 'closing the docs API pool', logger);
        await within(
          metricsServer?.close() ?? Promise.resolve(),
          budget.metrics,
          'closing the metrics port',
          logger,
        );
        if (handedBack) logger.info({ deliveries: handedBack }, 'shutdown: deliveries handed back');
        logger.info(
          { ms: Date.now() - started, unfinishedSlackWork: unfinished },
          unfinished > 0
            ? `docs-agent stopped; ${unfinished} acknowledged Slack task(s) were still running and were dropped`
            : 'docs-agent stopped',
        );
      })();
      return stopped;
    },
  };
}
