import type { SecretKind } from '../common/secret-shapes.js';
import type { AgentJob, JobOrigin, JobRecord } from './domain/job.js';
import type { StartJobRequest } from './use-cases/start-job.js';

/** The docs platform's agent-job operations on one project. Errors are `DocsApiError`s with stable codes. */
export interface AgentJobsApi {
  createJob(prompt: string): Promise<AgentJob>;
  getJob(jobId: string): Promise<AgentJob>;
  sendMessage(jobId: string, prompt: string): Promise<AgentJob>;
}

/**
 * Which docs project a job acts on (`ProjectDirectory` fits): the channel's at start, then the record's.
 * Each project has its own agent-job client and its own hourly job budget; one admin key serves them all.
 */
export interface JobProjects {
  readonly defaultProjectId: string;
  projectFor(channelId: string | null | undefined): string;
}

/** Durable state of watched jobs and their threads. A failure throws `state_unavailable`, never "not found". */
export interface JobStore {
  getJob(jobId: string): Promise<JobRecord | undefined>;
  saveJob(record: JobRecord): Promise<void>;
  linkThread(channelId: string, threadTs: string, jobId: string): Promise<void>;
  findJobByThread(channelId: string, threadTs: string): Promise<string | undefined>;
  /** Jobs still being watched, optionally only those of one channel. */
  listWatched(channelId?: string): Promise<JobRecord[]>;
  /**
   * The jobs one person started (any surface), newest first, at most `limit`; records of another workspace
   * (a different non-null `teamId`) are left out. Kept for as long as the records are.
   */
  listByRequester(teamId: string | null, userId: string, limit: number): Promise<JobRecord[]>;
  /**
   * Jobs whose pull request is followed on GitHub (a durable index, shared by replicas): the reconciler
   * gives each one without a pending read one, whoever stopped or died while it was scheduled.
   */
  setFollowing(jobId: string, following: boolean): Promise<void>;
  listFollowing(): Promise<string[]>;
  /** Sets a flag that expires (overwriting it and its expiry); `isMarked` reads it. */
  mark(key: string, ttlMs: number): Promise<void>;
  isMarked(key: string): Promise<boolean>;
  /** Set-if-absent with expiry: resolves true for the first caller only (dedupe, once-only replies). */
  claim(key: string, ttlMs: number): Promise<boolean>;
  release(key: string): Promise<void>;
}

/** Schedules the next poll of each watched job. One pending poll per job; scheduling again replaces it. */
export interface PollQueue {
  /** Registers the poll handler; it resolves the delay before the next poll, or null to stop watching. */
  start(handler: (jobId: string) => Promise<number | null>): void;
  schedule(jobId: string, delayMs: number): Promise<void>;
  cancel(jobId: string): Promise<void>;
  /**
   * The reconciler's pass (every replica, idempotent): each of `watchedJobIds` without a pending or running
   * poll gets one after `delayMs(index)`, and wake-ups left unapplied (their replica died or stopped between
   * recording and applying one) are applied. Resolves how many polls it added.
   */
  reconcile(watchedJobIds: string[], delayMs: (index: number) => number): Promise<number>;
  close(): Promise<void>;
}

export type TerminalOutcome =
  | { kind: 'pull_request'; prLink: string }
  | { kind: 'no_changes'; previousPrLink: string | null }
  | { kind: 'failed' }
  | { kind: 'archived' };

export type ThreadNotice = { kind: 'watch_expired'; maxAgeMs: number } | { kind: 'job_gone' };

/** The job card and thread replies, however Slack renders them. */
export interface JobNotifier {
  /** Posts the card for a job being created; resolves the card's ts (the thread root for slash commands). */
  postStartingCard(input: StartingCard): Promise<string>;
  /**
   * Owes the card its state from the record (status, branch, PR, elapsed time). Rejects when it could not
   * be recorded: a poll then fails and is retried; callers with nothing better to do log it.
   */
  updateCard(record: JobRecord, now: number): Promise<void>;
  /** Marks a card whose job could not be created. Rejects when it could not be recorded. */
  markCardFailed(input: StartingCard & { cardTs: string; error: unknown }): Promise<void>;
  /**
   * Owes the one reply for a generation reaching a terminal state: recorded once per (jobId, generation),
   * then delivered (and retried, by any replica) apart from the poll. Rejects when it could not be recorded.
   */
  postTerminalReply(record: JobRecord, outcome: TerminalOutcome): Promise<void>;
  /** Owes a thread notice (once per job, generation and kind). Rejects when it could not be recorded. */
  postNotice(record: JobRecord, notice: ThreadNotice): Promise<void>;
  /**
   * Owes the person who asked (through their command's response_url) word that a handed-over start could
   * not post its card, so the job was not started: once per start. Rejects when it could not be recorded.
   */
  tellStartFailed?(responseUrl: string, startId: string, error: unknown): Promise<void>;
}

/**
 * A slash command's job start that a stopping replica handed over before creating the job: another
 * replica finishes it (the card under the same delivery key, so never twice; then the job). JSON.
 */
export interface HandedOverStart {
  id: string;
  request: StartJobRequest;
  /** The card's ts once Slack confirmed it; absent: the card is still owed under `card:<channel>:<id>`. */
  cardTs?: string;
}

/** Starts handed over between replicas (Redis; absent in memory mode, where no other replica exists). */
export interface StartHandovers {
  handOver(start: HandedOverStart): Promise<void>;
  /** Claims up to `limit` due ones for `leaseMs`: if the taker dies, another takes it once that lapses. */
  take(limit: number, leaseMs: number): Promise<HandedOverStart[]>;
  /** Gone for good: its job is being created (at most once), or it could not be. */
  done(id: string): Promise<void>;
}

export interface StartingCard {
  /** The card's delivery key (a handed-over start keeps its own); default: a new one. */
  cardKey?: string;
  channelId: string;
  /** Set when the card is itself a reply (mentions and DMs): the user's message is the thread root. */
  threadTs: string | null;
  requesterId: string;
  prompt: string;
  /** A /docs-health gap's evidence, opaque here: the card names it. */
  evidenceRef?: string;
  /** The project the job is created in. */
  projectId?: string;
  /** False: never join a public channel to post the card (a job from Home goes only where the bot was invited). */
  mayJoin?: boolean;
  /** Where the job was asked for (an assistant thread shows it as a streamed message where it can). */
  origin?: JobOrigin;
  /** The workspace of the requester (a streamed message is addressed to a team and a user). */
  teamId?: string | null;
}

export type JobStartOutcome = 'started' | 'card_failed' | 'create_failed' | 'state_unavailable';
export type PollOutcome =
  | 'running'
  | 'terminal'
  | 'stale_terminal'
  | 'failed'
  | 'reply_failed'
  | 'gone'
  | 'expired'
  | 'not_watched'
  /** Another replica changed the record during the poll; polled again from the fresh record. */
  | 'superseded';

/** Counts job lifecycle transitions (implemented by src/metrics). Optional. */
export interface JobMetrics {
  jobStarted(outcome: JobStartOutcome): void;
  followUp(outcome: 'sent' | 'refused'): void;
  polled(outcome: PollOutcome): void;
  /** A job reached a terminal status (`completed`, `failed`, `archived`…). */
  jobFinished(status: string): void;
}

/** Where to answer about one inbound message. */
export interface MessageRef {
  channelId: string;
  ts: string;
  /** Thread to answer in: the message's thread, or the message itself when it is top-level. */
  threadTs: string;
  userId: string;
}

export interface ThreadMessage {
  ts: string;
  userId: string | undefined;
  botId: string | undefined;
  /** Set on a message posted by an app (a workflow, an integration). */
  appId?: string | undefined;
  /** The author's own workspace (`user_team`, else `team`): another one's in a Slack Connect channel. */
  team?: string | undefined;
  subtype: string | undefined;
  /** Slack markup. */
  text: string;
}

/** Something to tell only the person who wrote a message. */
export type PrivateNotice =
  | { kind: 'access_denied'; reason: 'user' | 'channel'; ask?: readonly string[] }
  | { kind: 'requester_only'; requesterId: string }
  | { kind: 'too_long'; length: number; max: number }
  | { kind: 'empty' }
  /** The state store did not answer: nothing was started or sent; try again in a minute. */
  | { kind: 'state_unavailable' }
  /** A follow-up reached the agent but its new run could not be recorded: its result may not be posted. */
  | { kind: 'follow_up_unrecorded'; jobId: string }
  /** The message held a credential (of this kind): nothing was started or sent, and it was not kept. */
  | { kind: 'secret'; secret: SecretKind };

/** Slack-side effects of conversations with a job. */
export interface ConversationNotifier {
  /** Marks a message that reached the agent (a reaction). Failures are logged, not thrown. */
  markForwarded(ref: MessageRef): Promise<void>;
  /** Answers in the thread why a follow-up did not reach the agent. Failures are logged, not thrown. */
  followUpRefused(ref: MessageRef, error: unknown): Promise<void>;
  /** Tells the author only (ephemeral). Failures are logged, not thrown. */
  tellAuthor(ref: MessageRef, notice: PrivateNotice): Promise<void>;
  /** The messages of a thread, oldest first (the root included). */
  threadMessages(channelId: string, threadTs: string): Promise<ThreadMessage[]>;
}

/** Slack markup to readable text for the agent (user ids to names). */
export interface MessageText {
  /** Plain text with a bounded number of mentions resolved to names (the rest stay ids). */
  toPlainText(markup: string): Promise<string>;
  /** Plain text with no lookups at all (mentions stay ids): cheap enough to check a length on first. */
  toPlainTextWithoutNames(markup: string): string;
  /** A person's name for attribution; falls back to the id. */
  displayName(userId: string): Promise<string>;
}
