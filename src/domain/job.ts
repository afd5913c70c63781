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

export type JobOrigin = 'command' | 'mention' | 'dm';

/** What the bot remembers about a job it started: where its thread is and how far it has reported. */
export interface JobRecord {
  jobId: string;
  teamId: string | null;
  channelId: string;
  /** Root of the job's thread: the card for slash commands, the user's message for mentions and DMs. */
  threadTs: string;
  /** The job card, updated in place. */
  cardTs: string;
  requesterId: string;
  prompt: string;
  origin: JobOrigin;
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
  /** Why watching stopped early, when it did. */
  watchEnded: 'expired' | 'gone' | null;
  consecutiveFailures: number;
  updatedAt: number;
}

/** What a new record is made of: where its thread is, who asked, and the job as the platform reported it. */
export type NewJobFields = Pick<
  JobRecord,
  | 'jobId'
  | 'teamId'
  | 'channelId'
  | 'threadTs'
  | 'cardTs'
  | 'requesterId'
  | 'prompt'
  | 'origin'
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
