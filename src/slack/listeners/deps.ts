import type { AccessPolicy } from '../../common/access-policy.js';
import type { Logger } from '../../common/logger.js';
import type { ProjectDirectory } from '../../common/projects.js';
import type { Outbox } from '../../delivery/ports.js';
import type { HealthEvidence } from '../../insights/health/health-evidence.js';
import type { HealthReports } from '../../insights/health/health-reports.js';
import type { PageViewsReports } from '../../insights/page-views/page-views-reports.js';
import type { WeeklyReports } from '../../insights/weekly/weekly-reports.js';
import type { AssistantThreadStore } from '../../jobs/assistant-thread.js';
import type { ConversationService } from '../../jobs/conversation-service.js';
import type { JobRecord } from '../../jobs/domain/job.js';
import type { JobFeedback } from '../../jobs/job-feedback.js';
import type { JobService } from '../../jobs/job-service.js';
import type { AppHomePublisher } from '../app-home-publisher.js';
import type { AssistantCalls } from '../assistant-calls.js';
import type { HourlyLimits } from '../messages/failures.js';
import type { SlackMessage } from '../messages/types.js';

/** Slack's AI app container: its threads' context, its status/title/prompt calls, answers in its threads. */
export interface AssistantSurface {
  threads: AssistantThreadStore;
  calls: Pick<AssistantCalls, 'suggestPrompts' | 'setTitle' | 'setStatus'>;
  /** Posts an answer in an assistant thread (paced; `key` makes a retried post land once). */
  answer(channelId: string, threadTs: string, message: SlackMessage, key: string): Promise<void>;
  /** The jobs one person started, newest first (`list`). */
  listMine(teamId: string | null, userId: string): Promise<JobRecord[]>;
}

/**
 * What listeners may use: the capabilities' use cases, narrowed to the calls listeners make, never
 * adapters. Narrow on purpose: a listener's unit test fakes exactly these.
 */
export interface SlackDeps {
  /** The delivery outbox: reports answered through response_url are owed through it (absent: sent directly). */
  outbox?: Outbox;
  /** Agent jobs: `/docs-agent` starts one, looks one up, lists a channel's. */
  jobs: Pick<
    JobService,
    'start' | 'status' | 'listWatched' | 'claimOnce' | 'confirmOnce' | 'releaseOnce' | 'jobOfThread'
  >;
  /** Mentions, DMs and thread replies: routed to a new job, a follow-up, or nothing. */
  conversations: Pick<ConversationService, 'handle'>;
  access: Pick<AccessPolicy, 'check' | 'isAdmin' | 'checkTeam'>;
  logger: Logger;
  /** `/docs-views`: page-view reports and weekly posts. */
  pageViews: {
    analytics: Pick<
      PageViewsReports,
      'now' | 'requestFor' | 'inChannel' | 'report' | 'publish' | 'uploadCsv'
    >;
    weekly: Pick<WeeklyReports, 'schedule' | 'unschedule' | 'list'>;
    siteUrl: string | undefined;
  };
  /** Which docs project each channel acts on (`/docs-agent project`; names it when there are several). */
  projects?: Pick<ProjectDirectory, 'projectFor' | 'isMapped' | 'isMulti' | 'defaultProjectId'>;
  /** The emoji whose reaction on a message starts a job from it (`DOCS_AGENT_REACTION`, default memo). */
  jobReaction?: string;
  /** `/docs-health`: the docs-health report (absent: the command says it is not set up). */
  health?: {
    reports: Pick<HealthReports, 'now' | 'report' | 'publish' | 'inChannel'>;
    /** Weekly docs-health posts (`/docs-health schedule`), in the same store as page-view posts. */
    weekly: Pick<WeeklyReports, 'schedule' | 'unschedule' | 'list'>;
    siteUrl: string | undefined;
    /** Fix-button evidence kept server-side under short ids (absent: buttons carry the evidence itself). */
    evidence?: Pick<HealthEvidence, 'load' | 'save'>;
  };
  /** The App Home tab (absent: `app_home_opened` publishes nothing). */
  home?: Pick<AppHomePublisher, 'opened'>;
  /** Votes on jobs' results (the feedback buttons of a PR reply; absent: clicks say it is not recorded). */
  feedback?: Pick<JobFeedback, 'rate'>;
  /** The assistant container (absent: its events are not handled; DM threads stay ordinary DMs). */
  assistant?: AssistantSurface;
  /** The configured hourly budgets, named in the texts that refuse for them. */
  limits?: HourlyLimits;
  /**
   * Runs work that follows an acknowledgement outside Bolt's middleware chain, so the request's Bolt
   * objects are freed at once instead of living as long as the work (a card post paced behind others in a
   * busy channel can wait minutes). Shutdown still waits for it; a rejection is logged, never unhandled.
   */
  afterAck(work: () => Promise<void>): void;
}
