import { systemClock } from '../common/clock.js';
import { type Config, userShareOf } from '../common/config.js';
import { secretsOf } from '../common/config-secrets.js';
import { describeError } from '../common/errors.js';
import { createLogger } from '../common/logger.js';
import { ProjectDirectory } from '../common/projects.js';
import { WeeklyReports } from '../insights/weekly/weekly-reports.js';
import { ConversationService } from '../jobs/conversation-service.js';
import { JobFeedback } from '../jobs/job-feedback.js';
import { JobService } from '../jobs/job-service.js';
import { Metrics } from '../metrics/metrics.js';
import { DocsApiClient } from '../platform/docs-client.js';
import { SlackJobNotifier } from '../slack/job-notifier.js';
import { JobSignalFollower } from '../slack/job-signals.js';
import { MAX_PROMPT_CHARS } from '../slack/messages/help.js';
import { NewBlocksGate } from '../slack/new-blocks.js';
import { createSlackApp, type SlackApp } from '../slack/slack-app.js';
import { UserNames } from '../slack/user-names.js';
import { createAdapters } from '../state/adapters.js';
import { AgentLifecycle, type StartParts } from './agent-lifecycle.js';
import { wireHealthAlerts } from './alerts-wiring.js';
import {
  adapterOptions,
  jobBudgets,
  oneFatal,
  replayGuard,
  responseUrlOrigins,
  sharedMessages,
} from './app-steps.js';
import { wireAssistant } from './assistant-wiring.js';
import { wireDeliveries, wireReconciler } from './delivery-wiring.js';
import type { DocsAgent, DocsAgentOptions } from './docs-agent.js';
import { healthRoutes } from './health.js';
import { wireHealthImpact } from './health-impact-wiring.js';
import { accessPolicyFor, createAppHome, wireProjectSettings } from './home-wiring.js';
import { wirePullRequests } from './pull-request-wiring.js';
import { wireReports } from './reports-wiring.js';
import { handOverWhenStopping } from './shutdown.js';
import { wireUnfurls } from './unfurl-wiring.js';

export type { DocsAgent, DocsAgentOptions } from './docs-agent.js';
/** Composition root: builds adapters, services and the Slack app from a validated config. */
export function createDocsAgent(config: Config, options: DocsAgentOptions = {}): DocsAgent {
  const logger = options.logger ?? createLogger({ level: config.logLevel, secrets: secretsOf(config) });
  const clock = options.clock ?? systemClock;
  const life = new AgentLifecycle();
  // A tenant's runtime (OAuth mode) counts into its own metrics; the process serves them all together.
  const metrics = options.metrics ?? new Metrics();
  const cache = <V>(kind: string) => options.tenant?.caches?.view<V>(kind); // OAuth: one per process

  const docsApi = new DocsApiClient({
    baseUrl: config.docs.apiUrl,
    apiKey: config.docs.apiKey,
    projectId: config.docs.projectId,
    timeoutMs: config.docs.timeoutMs,
    logger: logger.child({ component: 'docs-api' }),
    metrics,
    keyConnectedInSlack: options.tenant !== undefined && options.tenant.key !== config.oauth?.upgradedTenant,
    ...(options.edge ? { dispatchers: options.edge.dispatchers } : {}), // OAuth: the process's pool
  });
  // Memory, or Redis with REDIS_URL (shared by replicas, kept across restarts): the one place that chooses.
  const adapters = createAdapters(config, adapterOptions(options, logger, clock));
  const { jobStore: store, pollQueue: queue, agentJobQuota: quota, analyticsBudget } = adapters;
  // Channels map to docs projects (DOCS_CHANNEL_PROJECTS), each with its own admin key or DOCS_API_KEY.
  const projects =
    options.projects?.directory ?? new ProjectDirectory(config.docs.projectId, config.docs.channelProjects);
  const projectKeys = options.projects?.keys ?? config.docs.projectKeys;
  const access = accessPolicyFor(config, options.tenant);
  const docsApiFor = (projectId: string) => docsApi.forProject(projectId, projectKeys.get(projectId));

  const fatal = oneFatal(); // a revoked or rejected token, or the app uninstalled: main.ts exits
  const slackOptions = {
    metrics,
    ...(adapters.slackSlots ? { sharedSlots: adapters.slackSlots } : {}),
    onTokenRejected: (code: string) => fatal.raise(`Slack answered ${code}`),
  };
  // OAuth mode: the tenant's own Bolt app, fed by the shared receiver; else this process's receiver.
  const slack: SlackApp =
    options.slackApp?.(slackOptions) ??
    createSlackApp(
      config,
      logger,
      healthRoutes({
        stopping: () => life.stopping,
        state: () => adapters.state(),
        slackConnected: () => slack.connected(),
      }),
      slackOptions,
    );
  // Charts (Slack's 2026 blocks): where the workspace refuses them, every replica leaves them out for a day.
  slack.gateway.blocksGate = new NewBlocksGate(adapters.analyticsCache, logger, () => clock.now());
  const deliveries = wireDeliveries({ config, adapters, gateway: slack.gateway, logger, metrics });
  // The emoji on a job's source message follows the job's latest state.
  const signals = new JobSignalFollower(deliveries, logger);
  // Alerts and posted reports show their rows' fix jobs; a job no longer followed gives its row back.
  const models =
    options.sharedMessageRecords?.(adapters.sharedMessageRecords) ?? adapters.sharedMessageRecords;
  const shared = sharedMessages(deliveries, adapters.evidenceStore, models, clock);
  const notifier = new SlackJobNotifier(slack.gateway, deliveries, clock, logger, {
    followUpsFrom: config.access.followUpsFrom,
    jobsPerHour: config.docs.jobsPerHour,
    onJobChanged: (record) => {
      home.jobChanged(record);
      signals.jobChanged(record);
      shared.jobChanged(record).catch((error: unknown) => {
        logger.warn({ jobId: record.jobId, error: describeError(error) }, 'could not give a fixed row back');
      });
    },
    projects,
    jobUrlPattern: config.docs.jobUrlPattern,
  });
  const assistant = wireAssistant({
    gateway: slack.gateway,
    outbox: deliveries,
    store,
    threads: adapters.assistantThreads,
    cards: notifier,
    clock,
    logger,
    access,
    onJobChanged: (record) => home.jobChanged(record),
    streamHandoverMs: config.slack.streamHandoverMs,
    channelAccessCache: cache('channel-access'),
  });
  const jobs = new JobService({
    apiFor: docsApiFor,
    projects,
    store,
    notifier: assistant.notifier,
    queue,
    ...jobBudgets(adapters, userShareOf(config)),
    clock,
    logger,
    poll: { minMs: config.poll.intervalMs, maxMs: config.poll.maxIntervalMs, maxAgeMs: config.poll.maxAgeMs },
    metrics,
    doorbell: { watches: (record) => pulls.watches(record) }, // wired below; asked by polls after start
    ...handOverWhenStopping(adapters, () => life.stopping),
    // Wired below, once the analytics source exists; called only after start. A PR followed on GitHub
    // schedules "did it work?" at its merge instead of now.
    onPullRequest: async (record, prLink) => {
      await unfurls.onPullRequest(record, prLink);
      await impact.onPullRequest(record, prLink, await pulls.onPullRequest(record, prLink));
    },
  });
  const reconciler = wireReconciler({
    ...{ deliveries, jobs, logger, periodic: options.periodic },
    // Wired below; the reconciler first runs at start.
    pulls: { reconcile: () => pulls.reconcile() },
  });
  const feedback = new JobFeedback({ store: adapters.feedbackStore, jobs: store, clock, metrics });
  metrics.setSources({
    feedbackThisMonth: () => feedback.thisMonth(),
    watchedJobs: () => store.listWatched(),
    quotas: { agent_jobs: () => quota.remaining(), analytics: () => analyticsBudget.remaining() },
  });
  const reports = wireReports({
    ...{ config, adapters, gateway: slack.gateway, outbox: deliveries, apiFor: docsApiFor },
    ...{ projects, clock, logger },
  });
  const {
    source: analyticsSource,
    pageViews: analytics,
    evidence: healthEvidence,
    health: healthReports,
  } = reports;
  const impact = wireHealthImpact({
    ...{ config, adapters, apiFor: docsApiFor, source: analyticsSource, pageViews: analytics },
    ...{ outbox: deliveries, clock, logger },
  });
  const unfurls = wireUnfurls({
    ...{ config, adapters, store, apiFor: docsApiFor, source: analyticsSource, pageViews: analytics },
    ...{ evidence: healthEvidence, projects, clock, logger },
  });
  const pulls = wirePullRequests({
    ...{ config, adapters, store, notifier, outbox: deliveries, clock, logger, periodic: options.periodic },
    ...(options.tenant ? { tenant: options.tenant } : {}),
    ...(options.edge ? { github: options.edge.github } : {}),
    outcomes: {
      merged: async (record, pr) => {
        await unfurls.onMerged(record, pr);
        await impact.onMerged(record, pr);
      },
      unreadable: (record) => impact.onUnreadable(record),
    },
  });
  const weekly = new WeeklyReports({
    ...{ analytics, health: healthReports, clock, envDefault: config.analytics.weeklyReport },
    ...{ store: adapters.scheduleStore, scheduler: adapters.weeklyScheduler },
    logger: logger.child({ component: 'weekly-reports' }),
  });
  const alerts = wireHealthAlerts(
    { config, adapters, clock, logger, projects, outbox: deliveries },
    { apiFor: docsApiFor, source: analyticsSource, evidence: healthEvidence },
  );
  const settingsWiring = { access, outbox: deliveries, clock, logger, edge: options.edge };
  const settings = wireProjectSettings(config, options.tenant, slack.gateway, settingsWiring);
  const home = createAppHome({
    ...{ config, settings: settings.home },
    gateway: slack.gateway,
    store,
    weekly,
    alerts,
    projects,
    feedback,
    ...adapters,
    clock,
    logger,
    hashes: cache('home-hashes'),
    isAdmin: (userId) => access.isAdmin(userId),
  });
  const userNames = new UserNames((id) => slack.gateway.userInfo(id), { logger, cache: cache('names') });
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
    outbox: deliveries,
    shared,
    jobs,
    conversations,
    access,
    projects,
    logger,
    pageViews: { analytics, weekly, siteUrl: config.docs.siteUrl },
    health: {
      reports: healthReports,
      weekly,
      evidence: healthEvidence,
      alerts,
      siteUrl: config.docs.siteUrl,
    },
    limits: { jobsPerHour: config.docs.jobsPerHour, analyticsPerHour: config.analytics.hourlyBudget },
    jobReaction: config.access.jobReaction,
    users: userNames,
    tokenRevoked: (reason) => fatal.raise(reason),
    ...(options.tenant ? { installed: () => options.tenant?.installation } : {}),
    requests: replayGuard(store),
    responseUrlOrigins: responseUrlOrigins(config.slack.apiUrl),
    home,
    feedback,
    assistant: assistant.surface(jobs),
    ...{ unfurls: unfurls.deps, settings: settings.deps },
  });
  const parts: StartParts = {
    ...{ config, metrics, adapters, slack, jobs, reconciler, pulls, impact, weekly, alerts, deliveries },
    ...{ pollQueue: queue, assistant, home, docsApi, clock, logger },
    ...(options.tenant ? { tenant: options.tenant } : {}),
    beforeStop: () => reports.chartFill.stop(),
  };
  return {
    logger,
    metricsPort: () => life.metricsPort(),
    jobs,
    onFatal: (listener) => fatal.listen(listener),
    // OAuth mode on Redis: the replica's due index named this scope (issue 34); its next due time after.
    reconcileDue: () => reconciler.runIndexed().then(() => adapters.nextDueAt?.()),
    // drain(0) waits no longer than a timer tick: the count of listeners and after-ack work still running.
    busy: async () => deliveries.busy() || (await slack.drain(0)) > 0,
    start: () => life.start(parts),
    stop: () => life.stop(parts),
  };
}
