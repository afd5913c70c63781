import { AppError } from '../../common/errors.js';
import type { PullRequestFollow } from '../pull-requests/pull-request.js';

/** An agent job as the docs platform reports it, reduced to what the bot uses. */
export interface AgentJob {
  id: string;
  /** `active | completed | archived | failed` per the spec; an unknown value is kept and treated as running. */
  status: string;
  repository: string | null;
  ref: string | null;
  model: string | null;
  prLink: string | null;
  createdAt: string | null;
  archivedAt: string | null;
}

export const TERMINAL_STATUSES = ['completed', 'archived', 'failed'] as const;
export type TerminalStatus = (typeof TERMINAL_STATUSES)[number];

export function isTerminal(status: string): status is TerminalStatus {
  return (TERMINAL_STATUSES as readonly string[]).includes(status);
}

export type JobOrigin =
  | 'command'
  | 'mention'
  | 'dm'
  | 'message_shortcut'
  | 'reaction'
  /** A fix button on a /docs-health row. */
  | 'health_fix'
  /** The "New job" button of the App Home tab. */
  | 'app_home'
  /** A message in a thread of Slack's AI app container (the assistant view). */
  | 'assistant';

/** Why the bot stopped watching a job before its end: too old, gone upstream, or stopped by its requester. */
export type WatchEnd = 'expired' | 'gone' | 'stopped';

/** What the bot remembers about a job it started: where its thread is and how far it has reported. */
export interface JobRecord {
  jobId: string;
  teamId: string | null;
  channelId: string;
  /** Root of the job's thread: the card for slash commands, the user's message for mentions and DMs. */
  threadTs: string;
  /** The job card, updated in place. */
  cardTs: string;
  /**
   * The person's message that started the job (a mention, a DM, a reacted or shortcut message): its
   * reaction follows the job. Absent for jobs whose card is the bot's own (slash command, Home, health fix)
   * and on records written before it existed.
   */
  sourceTs?: string;
  requesterId: string;
  prompt: string;
  origin: JobOrigin;
  /** The docs project the job runs in; absent on records written before several projects (= DOCS_PROJECT_ID). */
  projectId?: string;
  /** Jobs started from a /docs-health gap: the evidence, as `encodeEvidenceRef` wrote it (opaque here). */
  evidenceRef?: string;
  status: string;
  repository: string | null;
  ref: string | null;
  model: string | null;
  prLink: string | null;
  createdAt: number;
  /** Start of the current active period; a follow-up starts a new one (and a new generation). */
  activeSince: number;
  /** Increments whenever the job becomes active again; each generation gets at most one terminal reply. */
  generation: number;
  /** The generation whose terminal reply has been posted (0 = none yet). */
  repliedGeneration: number;
  /**
   * The generation in which a poll last saw the job running. Right after a follow-up the platform may
   * still report the previous run's terminal status; it ends the new generation only once this matches
   * (or a grace period has passed). Absent on records written before it existed.
   */
  seenRunningGeneration?: number;
  watching: boolean;
  /** Why watching stopped early, when it did (`stopped`: the requester pressed Stop in Slack). */
  watchEnded: WatchEnd | null;
  consecutiveFailures: number;
  updatedAt: number;
  /** The job's PR followed on GitHub (GITHUB_TOKEN): its last state, shown on the card and in App Home. */
  pullRequest?: PullRequestFollow;
  /**
   * How many times the stored record was saved: a save is refused (`version_conflict`) unless the stored
   * record still has the version this copy was read with, so a replica holding a stale copy cannot
   * overwrite newer state. Set by the store; absent on new records and on records written before it existed.
   */
  version?: number;
}

/** The version a record was read with (absent = 0, as for a record not stored yet). */
export function versionOf(record: Pick<JobRecord, 'version'> | undefined | null): number {
  return record?.version ?? 0;
}

/**
 * Orders what a record shows (its card, its emoji) across replicas: a later version shows later, and of
 * one version the unwatched state after the watched one (a poll owes the final card before it saves the
 * job unwatched, so both are owed from the same version).
 */
export function shownOrder(record: Pick<JobRecord, 'version' | 'watching'>): number {
  return 2 * versionOf(record) + (record.watching ? 0 : 1);
}

/**
 * A job record was saved from a copy older than the stored one: another replica (or another task here)
 * saved it meanwhile. The caller re-reads the record instead of overwriting newer state with stale state.
 */
export class JobVersionConflictError extends AppError<'version_conflict'> {
  constructor(
    readonly jobId: string,
    readonly expectedVersion: number,
  ) {
    super('version_conflict', `Job ${jobId} changed since version ${expectedVersion} was read`);
  }
}

/** What a new record is made of: where its thread is, who asked, and the job as the platform reported it. */
export type NewJobFields = Pick<
  JobRecord,
  | 'jobId'
  | 'teamId'
  | 'channelId'
  | 'threadTs'
  | 'cardTs'
  | 'sourceTs'
  | 'requesterId'
  | 'prompt'
  | 'origin'
  | 'projectId'
  | 'evidenceRef'
  | 'status'
  | 'repository'
  | 'ref'
  | 'model'
  | 'prLink'
>;

/** A job the bot has just started: first generation, active now, watched, nothing replied yet. */
export function newJobRecord(fields: NewJobFields, now: number): JobRecord {
  return {
    ...fields,
    createdAt: now,
    activeSince: now,
    generation: 1,
    repliedGeneration: 0,
    watching: true,
    watchEnded: null,
    consecutiveFailures: 0,
    updatedAt: now,
  };
}
