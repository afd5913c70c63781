import { userShareOf } from '../common/config.js';
import { describeError } from '../common/errors.js';
import { type Lazy, lazily, lazyObject } from '../common/lazily.js';
import type { Deliveries } from '../delivery/deliveries.js';
import type { Reconciler } from '../delivery/reconciler.js';
import { JobFeedback } from '../jobs/job-feedback.js';
import { JobService } from '../jobs/job-service.js';
import type { AppHomePublisher } from '../slack/app-home-publisher.js';
import { SlackJobNotifier } from '../slack/job-notifier.js';
import { JobSignalFollower } from '../slack/job-signals.js';
import type { OwedEditsSlot } from '../slack/owed-edits.js';
import type { SharedMessages } from '../slack/posted-message-edits.js';
import type { SlackGateway } from '../slack/slack-gateway.js';
import type { AdapterSet } from '../state/adapters.js';
import { jobBudgets, sharedMessages } from './app-steps.js';
import { wireAssistant } from './assistant-wiring.js';
import { wireReconciler } from './delivery-wiring.js';
import type { InsightsWiring } from './insights-wiring.js';
import { type PullRequestWiring, wirePullRequests } from './pull-request-wiring.js';
import type { ScopeBase, ScopeState } from './scope-wiring.js';
import { handOverWhenStopping } from './shutdown.js';

/**
 * People's feedback on jobs, and the gauges /metrics reads from the scope's store and budgets (feedback this
 * month, watched jobs, what is left of each hourly quota).
 */
export function wireJobFeedback(
  { clock, metrics }: Pick<ScopeBase, 'clock' | 'metrics'>,
  adapters: AdapterSet,
): JobFeedback {
  const store = adapters.jobStore;
  const feedback = new JobFeedback({ store: adapters.feedbackStore, jobs: store, clock, metrics });
  metrics.setSources({
    feedbackThisMonth: () => feedback.thisMonth(),
    watchedJobs: () => store.listWatched(),
    quotas: {
      agent_jobs: () => adapters.agentJobQuota.remaining(),
      analytics: () => adapters.analyticsBudget.remaining(),
    },
  });
  return feedback;
}

/** What tells people about a job: its card and replies, the assistant's streams, shared messages' rows. */
export interface JobNotices {
  /** The job card and replies (through the outbox), and the home, signals and shared messages it tells. */
  notifier: SlackJobNotifier;
  /** Slack's AI app container: its job notifier in front of the card's, its listeners' surface. */
  assistant: ReturnType<typeof wireAssistant>;
  shared: SharedMessages;
}

/**
 * A scope's jobs. The job service, PRs followed and the reconciler are built at once (a start resumes
 * watching); the notices (`JobNotices`, one group: any job change uses them all) when a job first changes
 * or a request first needs them (issue 43 §2: a tenant that only asks for help builds none of them).
 */
export interface JobsWiring {
  notices: Lazy<JobNotices>;
  jobs: JobService;
  pulls: PullRequestWiring;
  reconciler: Reconciler;
}

export interface JobsParts {
  gateway: SlackGateway;
  deliveries: Deliveries;
  /** Where the outbox finds the shared messages for changes owed later (a mute's end). */
  edits?: OwedEditsSlot;
  insights: Pick<InsightsWiring, 'impact' | 'unfurls'>;
  home: Pick<AppHomePublisher, 'jobChanged'>;
  /** Read by job starts: once stopping, a start not yet sent is handed over. */
  stopping(): boolean;
}

/**
 * A scope's agent jobs: the notifier (card, source message's emoji, shared messages, Home), the assistant's,
 * PRs followed on GitHub, the job service (start, follow-up, poll) and the reconciler every replica runs.
 */
export function wireJobs(b: ScopeBase, s: ScopeState, p: JobsParts): JobsWiring {
  const { config, options, logger, clock, metrics } = b;
  const { adapters, projects } = s;
  const { deliveries } = p;
  const { impact, unfurls } = p.insights;
  const store = adapters.jobStore;
  const notices = lazily(() => wireJobNotices(b, s, p));
  p.edits?.use({ apply: (channel, ts, edit) => notices.get().shared.apply(channel, ts, edit) });
  const pulls = wirePullRequests({
    ...{ config, adapters, store, outbox: deliveries, clock, logger, periodic: options.periodic },
    notifier: { updateCard: (record, at) => notices.get().notifier.updateCard(record, at) },
    ...(options.tenant ? { tenant: options.tenant } : {}),
    github: b.edge.github,
    outcomes: {
      merged: async (record, pr) => {
        await unfurls.onMerged(record, pr);
        await impact.onMerged(record, pr);
      },
      unreadable: (record) => impact.onUnreadable(record),
    },
  });
  const jobs = new JobService({
    apiFor: s.apiFor,
    projects,
    store,
    // Built when a job of this scope first changes.
    notifier: lazyObject(() => notices.get().assistant.notifier),
    queue: adapters.pollQueue,
    ...jobBudgets(adapters, userShareOf(config)),
    clock,
    logger,
    poll: { minMs: config.poll.intervalMs, maxMs: config.poll.maxIntervalMs, maxAgeMs: config.poll.maxAgeMs },
    metrics,
    doorbell: { watches: (record) => pulls.watches(record) }, // asked by polls after start
    ...handOverWhenStopping(adapters, p.stopping),
    // A PR followed on GitHub schedules "did it work?" at its merge instead of now.
    onPullRequest: async (record, prLink) => {
      await unfurls.onPullRequest(record, prLink);
      await impact.onPullRequest(record, prLink, await pulls.onPullRequest(record, prLink));
    },
  });
  // The reconciler first runs at start.
  const reconciler = wireReconciler({ deliveries, jobs, pulls, logger, periodic: options.periodic });
  return { notices, jobs, pulls, reconciler };
}

/** The notices of a scope's jobs: the emoji on a job's source message, shared messages' rows, the notifiers. */
function wireJobNotices(b: ScopeBase, s: ScopeState, p: JobsParts): JobNotices {
  const { config, options, logger, clock } = b;
  const { adapters, projects, access } = s;
  const { deliveries, gateway, home } = p;
  // The emoji on a job's source message follows the job's latest state.
  const signals = new JobSignalFollower(deliveries, logger);
  // Alerts and posted reports show their rows' fix jobs; a job no longer followed gives its row back.
  const records = adapters.sharedMessageRecords;
  const models = options.sharedMessageRecords?.(records) ?? records;
  const shared = sharedMessages(deliveries, adapters.evidenceStore, models, clock);
  const notifier = new SlackJobNotifier(gateway, deliveries, clock, logger, {
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
    gateway,
    outbox: deliveries,
    store: adapters.jobStore,
    threads: adapters.assistantThreads,
    cards: notifier,
    clock,
    logger,
    access,
    onJobChanged: (record) => home.jobChanged(record),
    streamHandoverMs: config.slack.streamHandoverMs,
    channelAccessCache: s.cache('channel-access'),
  });
  return { notifier, assistant, shared };
}
