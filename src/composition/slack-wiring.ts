import { lazyObject, lazyPart } from '../common/lazily.js';
import type { Deliveries } from '../delivery/deliveries.js';
import { ConversationService } from '../jobs/conversation-service.js';
import type { JobFeedback } from '../jobs/job-feedback.js';
import type { AppHomePublisher } from '../slack/app-home-publisher.js';
import { MAX_PROMPT_CHARS } from '../slack/messages/help.js';
import { NewBlocksGate } from '../slack/new-blocks.js';
import type { SlackApp } from '../slack/slack-app.js';
import { UserNames } from '../slack/user-names.js';
import type { AdapterSet } from '../state/adapters.js';
import { type oneFatal, replayGuard, responseUrlOrigins } from './app-steps.js';
import type { InsightsWiring } from './insights-wiring.js';
import type { JobsWiring } from './jobs-wiring.js';
import type { ScopeBase, ScopeState } from './scope-wiring.js';
import type { WiredSettings } from './settings-wiring.js';

/** One fatal reason per process (a revoked or rejected token, the app uninstalled): main.ts exits. */
export type Fatal = ReturnType<typeof oneFatal>;

/**
 * A scope's Slack side: its gateway and pacing (shared slots with Redis), its requests processed by the
 * process's one Bolt app, fed by the process's front door (both modes).
 */
export function wireSlackSide(
  { options, logger, clock, metrics }: ScopeBase,
  p: { adapters: AdapterSet; fatal: Fatal },
): SlackApp {
  const { adapters, fatal } = p;
  const slackOptions = {
    metrics,
    ...(adapters.slackSlots ? { sharedSlots: adapters.slackSlots } : {}),
    onTokenRejected: (code: string) => fatal.raise(`Slack answered ${code}`),
  };
  // Its Slack side over the process's one Bolt app, fed by the process's front door (both modes).
  const slack = options.slackApp(slackOptions);
  // Charts (Slack's 2026 blocks): where the workspace refuses them, every replica leaves them out for a day.
  slack.gateway.blocksGate = new NewBlocksGate(adapters.analyticsCache, logger, () => clock.now());
  return slack;
}

/** What the listeners are handed: every service of the scope, as each request's deps. */
export interface ListenerParts {
  slack: SlackApp;
  deliveries: Deliveries;
  insights: InsightsWiring;
  jobs: JobsWiring;
  home: Pick<AppHomePublisher, 'opened'>;
  settings: WiredSettings;
  feedback: JobFeedback;
  fatal: Fatal;
}

/**
 * The scope's listeners' deps (people's names, conversations in threads), registered with its Slack side.
 * The parts only some requests use (conversations, reports, previews, the assistant, shared messages) stand
 * in for themselves until a request first reads them (issue 43 §2).
 */
export function wireListeners({ config, options, logger }: ScopeBase, s: ScopeState, p: ListenerParts): void {
  const { slack, deliveries, insights, settings } = p;
  const { access, projects } = s;
  const store = s.adapters.jobStore;
  const { jobs, notices } = p.jobs;
  const { onUse } = insights;
  const userNames = lazyObject(
    () => new UserNames((id) => slack.gateway.userInfo(id), { logger, cache: s.cache('names') }),
  );
  const conversations = lazyObject(
    () =>
      new ConversationService({
        jobs,
        store,
        notifier: notices.get().notifier,
        text: userNames,
        access,
        followUpsFrom: config.access.followUpsFrom,
        maxPromptChars: MAX_PROMPT_CHARS,
        logger,
      }),
  );
  slack.register({
    outbox: deliveries,
    shared: lazyPart(notices, 'shared'),
    jobs,
    conversations,
    access,
    projects,
    logger,
    pageViews: {
      analytics: onUse.pageViews,
      weekly: insights.weekly,
      siteUrl: config.docs.siteUrl,
    },
    health: {
      reports: onUse.health,
      weekly: insights.weekly,
      evidence: onUse.evidence,
      alerts: insights.alerts,
      siteUrl: config.docs.siteUrl,
    },
    limits: { jobsPerHour: config.docs.jobsPerHour, analyticsPerHour: config.analytics.hourlyBudget },
    jobReaction: config.access.jobReaction,
    users: userNames,
    tokenRevoked: (reason) => p.fatal.raise(reason),
    ...(options.tenant ? { installed: () => options.tenant?.installation } : {}),
    requests: replayGuard(store),
    responseUrlOrigins: responseUrlOrigins(config.slack.apiUrl),
    home: p.home,
    feedback: p.feedback,
    assistant: lazyObject(() => notices.get().assistant.surface(jobs)),
    ...{ unfurls: insights.unfurls.deps, settings: settings.deps },
  });
}
