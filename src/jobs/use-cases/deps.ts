import type { Clock } from '../../common/clock.js';
import { describeError } from '../../common/errors.js';
import type { HourlyQuota } from '../../common/hourly-quota.js';
import type { Logger } from '../../common/logger.js';
import type { JobRecord } from '../domain/job.js';
import type { PollTiming } from '../domain/poll-timing.js';
import type {
  AgentJobsApi,
  JobMetrics,
  JobNotifier,
  JobProjects,
  JobStore,
  PollQueue,
  StartHandovers,
} from '../ports.js';

/** Everything the agent-job use cases need; each takes the part it uses. */
export interface JobServiceDeps {
  /** The agent-job client of one project. */
  apiFor(projectId: string): AgentJobsApi;
  projects: JobProjects;
  store: JobStore;
  notifier: JobNotifier;
  queue: PollQueue;
  /** The hourly job budget of one project (the platform counts it per project). */
  quotaFor(projectId: string): HourlyQuota;
  /** One person's share of a project's hourly job budget (USER_BUDGET_SHARE); absent: no per-person cap. */
  userQuotaFor?(projectId: string, userId: string): { quota: HourlyQuota; share: number };
  clock: Clock;
  logger: Logger;
  poll: PollTiming & { maxAgeMs: number };
  /** Distrust window for terminal statuses right after a follow-up (default: max(30 s, 6 fast polls)). */
  followUpGraceMs?: number;
  random?: () => number;
  /** Waits between retries of a store write (real timers by default; tests pass an instant one). */
  wait?: (ms: number) => Promise<void>;
  metrics?: JobMetrics;
  /** Slash-command starts handed between replicas when one stops (Redis only). */
  handovers?: StartHandovers;
  /** True once this process is stopping: it then hands starts over instead of creating jobs. */
  stopping?: () => boolean;
  /**
   * The GitHub doorbell (with GITHUB_TOKEN): true when a new PR in the job's repository will poll it at
   * once, so its own polls back off further (`watchedPollDelay`). Absent or false: the usual schedule.
   */
  doorbell?: { watches(record: JobRecord): Promise<boolean> };
  /**
   * A job got its terminal reply with a pull request; called for every such reply (a follow-up's PR too):
   * following it on GitHub, and for a /docs-health gap (`evidenceRef`) its impact check. The callee keeps
   * each to once per job and PR. A rejection retries the poll.
   */
  onPullRequest?: (record: JobRecord, prLink: string) => Promise<void>;
}

/** The project a job acts on: the one stored on its record, else the default (records from before projects). */
export function projectOf(
  deps: Pick<JobServiceDeps, 'projects'>,
  record: Pick<JobRecord, 'projectId'>,
): string {
  return record.projectId ?? deps.projects.defaultProjectId;
}

/**
 * For callers that cannot retry (a person's request already answered, a PR-follow step recorded): a card
 * state that could not be recorded is logged as such. Polls do not use this: theirs fail and are retried.
 */
export async function oweOrLog(
  logger: Logger,
  context: Record<string, unknown>,
  owing: Promise<void>,
): Promise<void> {
  await owing.catch((error: unknown) =>
    logger.warn({ ...context, error: describeError(error) }, 'could not record a job card state'),
  );
}
