import type { AccessPolicy } from '../../common/access-policy.js';
import type { Logger } from '../../common/logger.js';
import type { ProjectDirectory } from '../../common/projects.js';
import type { Outbox } from '../../delivery/ports.js';
import type { HealthAlerts } from '../../insights/alerts/health-alerts.js';
import type { HealthEvidence } from '../../insights/health/health-evidence.js';
import type { HealthReports } from '../../insights/health/health-reports.js';
import type { PageSnapshots } from '../../insights/page-snapshot/page-snapshot.js';
import type { PageViewsReports } from '../../insights/page-views/page-views-reports.js';
import type { WeeklyReports } from '../../insights/weekly/weekly-reports.js';
import type { AssistantThreadStore } from '../../jobs/assistant-thread.js';
import type { ConversationService } from '../../jobs/conversation-service.js';
import type { JobRecord } from '../../jobs/domain/job.js';
import type { JobFeedback } from '../../jobs/job-feedback.js';
import type { JobService } from '../../jobs/job-service.js';
import type { PullRequestIndex } from '../../jobs/pull-requests/pull-request-index.js';
import type { ConnectInput, SettingsFailure } from '../../tenants/project-settings.js';
import type { PreferenceChange, PreferenceResult } from '../../tenants/tenant-preferences.js';
import type { AppHomePublisher } from '../app-home-publisher.js';
import type { AssistantCalls } from '../assistant-calls.js';
import type { StreamPhase } from '../assistant-streams.js';
import type { ChannelAccess } from '../channel-access.js';
import type { HourlyLimits } from '../messages/failures.js';
import type { ShownConnection } from '../messages/project-settings.js';
import type { SlackMessage } from '../messages/types.js';
import type { SharedMessages } from '../posted-message-edits.js';
import type { ThreadContext } from './actions/thread-reads.js';

/** Slack's AI app container: its threads' context, its status/title/prompt calls, answers in its threads. */
export interface AssistantSurface {
  threads: AssistantThreadStore;
  calls: Pick<AssistantCalls, 'suggestPrompts' | 'setTitle' | 'setStatus'>;
  /** Posts an answer in an assistant thread (paced; `key` makes a retried post land once). */
  answer(channelId: string, threadTs: string, message: SlackMessage, key: string): Promise<void>;
  /** The jobs one person started, newest first (`list`). */
  listMine(teamId: string | null, userId: string): Promise<JobRecord[]>;
  /** Whether the person may act on the channel open beside the container (it picks the docs project). */
  channelAccess: Pick<ChannelAccess, 'check'>;
  /** Agent sessions: the person's Stop and what follows it. */
  sessions?: AgentSessions;
}

/** What a Stop in an agent session does on the Slack side (the assistant job notifier and the outbox). */
export interface AgentSessions {
  job(jobId: string): Promise<JobRecord | undefined>;
  /** Marks the job's stream over (first thing); resolves where it stood. */
  stopping(record: JobRecord): Promise<StreamPhase>;
  /** The honest final line with its two choices, the session idle, the status line cleared. */
  stopped(record: JobRecord, slackStopped: readonly string[], before: StreamPhase): Promise<void>;
  /** The session idle and the status line cleared (nothing to stop). */
  idle(channelId: string, threadTs: string): void;
  /** Followed again: the status line and the session show it. */
  following(record: JobRecord): Promise<void>;
  /** An owed reply in a thread (once per key). */
  reply(key: string, channelId: string, threadTs: string, message: SlackMessage): Promise<void>;
  /** Replaces a message's content (the two buttons, once chosen); the latest state wins. */
  replace(channelId: string, ts: string, message: SlackMessage): Promise<void>;
}

/**
 * OAuth mode: the tenant's docs projects, connected from Slack. Keys never reach listeners: connections
 * come masked (`svc_…abcd`). Permission is asked again by every call that changes something.
 */
export interface ProjectSettingsSurface {
  installerUserId: string | undefined;
  /** Whether a project is connected (else every command points to `/docs-agent connect`). */
  isSetUp(): boolean;
  /** The installer or ADMIN_USER_IDS (no Slack call). */
  knownManager(userId: string): boolean;
  /** Also workspace admins and owners (users.info, cached briefly); fails closed. */
  mayManage(userId: string): Promise<boolean>;
  projectOf(
    channelId: string | undefined,
  ): { connection: ShownConnection; scope: 'channel' | 'workspace' } | undefined;
  connections(): ShownConnection[];
  connect(
    input: ConnectInput,
  ): Promise<
    { ok: true; connection: ShownConnection; replaced: ShownConnection | undefined } | SettingsFailure
  >;
  /** People a manager added, and adding or removing one (asked of a manager each time). */
  managers: {
    added(): string[];
    add(by: string, userId: string): Promise<PreferenceResult>;
    remove(by: string, userId: string): Promise<PreferenceResult>;
    /** The Settings form: managers added and removed, and the external-users choice, in one save. */
    update(by: string, change: PreferenceChange): Promise<PreferenceResult>;
  };
  /** Whether people of other organisations may use the bot here (the tenant's choice, else the deployment's). */
  externalUsers: {
    allowed(): boolean;
    chosen(): boolean;
    set(by: string, allowed: boolean): Promise<PreferenceResult>;
  };
  /** The tenant's own GitHub token (OAuth mode): shown masked, connected or disconnected by a manager. */
  github: {
    shown(): { masked: string; owners: string[]; connectedBy: string } | undefined;
    connect(by: string, token: string, owners: string[]): Promise<PreferenceResult>;
    disconnect(by: string): Promise<PreferenceResult>;
  };
  /** Removes the mapping of `channelId` (undefined: the workspace's); `left`: what the channel uses now. */
  disconnect(
    userId: string,
    channelId: string | undefined,
  ): Promise<{ ok: true; removed: ShownConnection; left: ShownConnection | undefined } | SettingsFailure>;
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
    | 'start'
    | 'status'
    | 'listWatched'
    | 'claimOnce'
    | 'confirmOnce'
    | 'releaseOnce'
    | 'jobOfThread'
    | 'stopFollowing'
    | 'job'
    | 'stopFollowingAndShow'
    | 'resumeFollowing'
    | 'followUp'
  >;
  /** Mentions, DMs and thread replies: routed to a new job, a follow-up, or nothing. */
  conversations: Pick<ConversationService, 'handle'>;
  access: Pick<AccessPolicy, 'check' | 'isAdmin' | 'checkTeam' | 'externalUsersAllowed'>;
  /**
   * A user's own team (users.info, cached): events that name no team (reactions, App Home, the assistant
   * container's thread events) are checked against it. Absent: such events are refused unless
   * ALLOW_EXTERNAL_USERS.
   */
  users?: {
    teamOf(userId: string): Promise<string | undefined>;
    /** The user's Enterprise Grid org (users.info, cached): an org-wide install's people are not external. */
    enterpriseOf?(userId: string): Promise<string | undefined>;
    /** Guests, strangers and other teams (link previews show them no numbers); fails closed. */
    isGuestOrExternal(userId: string, homeTeam: string | undefined, homeOrg?: string): Promise<boolean>;
  };
  /**
   * HTTP mode: whether a signed request is seen for the first time (its signature claimed in the shared
   * store for Slack's five-minute window). Absent (Socket Mode, no signatures): every request runs.
   */
  requests?: { firstSeen(signature: string): Promise<boolean> };
  /**
   * Where a request's `response_url` may point: Slack's hooks host, and the configured SLACK_API_URL's
   * origin (a proxy, a test's fake). Absent: not checked.
   */
  responseUrlOrigins?: readonly string[];
  /**
   * Threads' earlier messages within the workspace's history budget (a distributed app reads a thread once
   * a minute): the job form takes them only if they can be read now. Absent: read with the request's client.
   */
  threads?: ThreadContext;
  /** `app_uninstalled` / `tokens_revoked`: the bot can do nothing more (absent: logged only). */
  tokenRevoked?: (reason: string) => void;
  /**
   * OAuth mode: the install a tenant's runtime serves now, which an uninstall signal must name (absent:
   * single-workspace mode, every signal is about its one install).
   */
  installed?: () => { installedAt: number; lastInstalledAt?: number; botUserId: string } | undefined;
  logger: Logger;
  /** `/docs-views`: page-view reports and weekly posts. */
  pageViews: {
    analytics: Pick<
      PageViewsReports,
      'now' | 'requestFor' | 'inChannel' | 'report' | 'publish' | 'uploadCsv'
    > &
      Partial<Pick<PageViewsReports, 'fillCharts'>>;
    weekly: Pick<WeeklyReports, 'schedule' | 'unschedule' | 'list' | 'removeSchedule' | 'restore'>;
    siteUrl: string | undefined;
  };
  /** Which docs project each channel acts on (`/docs-agent project`; names it when there are several). */
  projects?: Pick<ProjectDirectory, 'projectFor' | 'isMapped' | 'isMulti' | 'defaultProjectId'>;
  /** The emoji whose reaction on a message starts a job from it (`DOCS_AGENT_REACTION`, default memo). */
  jobReaction?: string;
  /** `/docs-health`: the docs-health report (absent: the command says it is not set up). */
  health?: {
    reports: Pick<HealthReports, 'now' | 'report' | 'publish' | 'inChannel'> &
      Partial<Pick<HealthReports, 'fillCharts'>>;
    /** Weekly docs-health posts (`/docs-health schedule`), in the same store as page-view posts. */
    weekly: Pick<WeeklyReports, 'schedule' | 'unschedule' | 'list' | 'removeSchedule' | 'restore'>;
    siteUrl: string | undefined;
    /** Fix-button evidence kept server-side under short ids (absent: buttons carry the evidence itself). */
    evidence?: Pick<HealthEvidence, 'load' | 'save'>;
    /** `/docs-health alerts …`: this channel's alert subscription (absent: the subcommand says it is off). */
    alerts?: Pick<HealthAlerts, 'subscribe' | 'unsubscribe' | 'status' | 'intervalMs' | 'muteSignal'>;
  };
  /** The bot's shared messages changed in place when someone acts on them (absent: they stay as posted). */
  shared?: Pick<SharedMessages, 'remember' | 'change' | 'fixStarted' | 'stoppedSchedule' | 'muted'>;
  /** Connecting docs projects from Slack (OAuth mode); absent: single-workspace mode, set by the environment. */
  settings?: ProjectSettingsSurface;
  /** The App Home tab (absent: `app_home_opened` publishes nothing). */
  home?: Pick<AppHomePublisher, 'opened'>;
  /** Votes on jobs' results (the feedback buttons of a PR reply; absent: clicks say it is not recorded). */
  feedback?: Pick<JobFeedback, 'rate'>;
  /** The assistant container (absent: its events are not handled; DM threads stay ordinary DMs). */
  assistant?: AssistantSurface;
  /** Link previews (`link_shared`): docs pages (DOCS_SITE_URL) and our jobs' PRs (absent: none). */
  unfurls?: {
    /** The docs page a link points at, or undefined when it is not on DOCS_SITE_URL. */
    pagePath(url: string): string | undefined;
    /** The docs site's name in previews (its host). */
    siteName: string;
    pages: Pick<PageSnapshots, 'forUnfurl'>;
    projectFor(channelId: string): string;
    pullRequests?: Pick<PullRequestIndex, 'describe'>;
  };
  /** The configured hourly budgets, named in the texts that refuse for them. */
  limits?: HourlyLimits;
  /**
   * Runs work that follows an acknowledgement outside Bolt's middleware chain, so the request's Bolt
   * objects are freed at once instead of living as long as the work (a card post paced behind others in a
   * busy channel can wait minutes). Shutdown still waits for it; a rejection is logged, never unhandled.
   */
  afterAck(work: () => Promise<void>): void;
}
