import type { Clock } from '../shared/clock.js';
import { DocsApiError, requestNeverSent } from '../shared/docs-api-error.js';
import { AppError, describeError } from '../shared/errors.js';
import type { HourlyQuota } from '../shared/hourly-quota.js';
import { KeyedLock } from '../shared/keyed-lock.js';
import type { Logger } from '../shared/logger.js';
import {
  type AgentJob,
  isTerminal,
  type JobOrigin,
  type JobRecord,
  JobVersionConflictError,
  newJobRecord,
} from './domain/job.js';
import { failedPollDelay, nextPollDelay, type PollTiming } from './domain/poll-timing.js';
import type { AgentJobsApi, JobNotifier, JobStore, PollQueue, TerminalOutcome } from './ports.js';

export interface StartJobRequest {
  teamId: string | null;
  channelId: string;
  /** The user's own message when the job starts from a mention or DM; null for slash commands. */
  threadTs: string | null;
  requesterId: string;
  /** Plain text, already converted from Slack markup. */
  prompt: string;
  /**
   * Quoted conversation sent to the agent after the prompt (a mention inside an ordinary thread), already
   * labelled as context. Not shown on the card.
   */
  context?: string;
  origin: JobOrigin;
}

export interface FollowUpRequest {
  jobId: string;
  /** What the agent receives: plain text with the author attributed. */
  prompt: string;
}

export type FollowUpResult =
  | { ok: true; record: JobRecord }
  | { ok: false; reason: 'unknown_job' }
  /** The docs API (or the bot's own count of its budget) refused the message; `error` says why. */
  | { ok: false; reason: 'refused'; error: unknown; reachedApi: boolean };

export type JobStatusResult =
  | { ok: true; job: AgentJob; record: JobRecord | undefined }
  | { ok: false; error: unknown };

/**
 * How long after a follow-up a terminal status is distrusted unless the job was seen running again in the
 * new generation: right after send-message the platform may still report the previous run's `completed`.
 */
const FOLLOW_UP_GRACE_MIN_MS = 30_000;

/** Watched jobs re-scheduled at once on start (Redis mode: a few round trips each). */
const RESUME_BATCH = 100;

/** Saves of a sent follow-up tried against fresh copies before giving up (each conflict is another save). */
const FOLLOW_UP_SAVE_ATTEMPTS = 5;

export type StartJobResult =
  | { ok: true; record: JobRecord }
  /** The state store did not answer: nothing was posted or created. */
  | { ok: false; stage: 'state'; error: unknown }
  | { ok: false; stage: 'card'; error: unknown }
  | { ok: false; stage: 'create'; error: unknown };

export interface JobServiceDeps {
  api: AgentJobsApi;
  store: JobStore;
  notifier: JobNotifier;
  queue: PollQueue;
  quota: HourlyQuota;
  clock: Clock;
  logger: Logger;
  poll: PollTiming & { maxAgeMs: number };
  /** Distrust window for terminal statuses right after a follow-up (default: max(30 s, 6 fast polls)). */
  followUpGraceMs?: number;
  random?: () => number;
  metrics?: JobMetrics;
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

/** Starts agent jobs from Slack and follows them to their terminal reply. */
export class JobService {
  private readonly lock = new KeyedLock();

  constructor(private readonly deps: JobServiceDeps) {}

  /** Registers the poll handler and re-schedules every job still watched (after a restart with durable state). */
  async startWatching(): Promise<number> {
    const { queue, store, poll } = this.deps;
    const random = this.deps.random ?? Math.random;
    queue.start((jobId) => this.poll(jobId));
    const watched = await store.listWatched();
    // After a restart every job would fall due at once: spread the first polls over a window that grows
    // with the number of jobs (10 ms each, at most the backoff cap), and schedule a batch at a time.
    const spreadMs = Math.min(poll.maxMs, watched.length * 10);
    for (let i = 0; i < watched.length; i += RESUME_BATCH) {
      await Promise.all(
        watched
          .slice(i, i + RESUME_BATCH)
          .map((record) => queue.schedule(record.jobId, poll.minMs + Math.round(random() * spreadMs))),
      );
    }
    return watched.length;
  }

  async start(request: StartJobRequest): Promise<StartJobResult> {
    const { notifier, api, store, queue, quota, logger, clock } = this.deps;
    const card = {
      channelId: request.channelId,
      threadTs: request.threadTs,
      requesterId: request.requesterId,
      prompt: request.prompt,
    };
    const metrics = this.deps.metrics;
    try {
      // A cheap read first: with the state store down the job could be created but never followed, so
      // nothing is posted or created and the user is told to retry.
      await store.findJobByThread(request.channelId, request.threadTs ?? cardlessProbe);
    } catch (error) {
      logger.warn({ channelId: request.channelId, error: describeError(error) }, 'state store unavailable');
      metrics?.jobStarted('state_unavailable');
      return { ok: false, stage: 'state', error };
    }
    let cardTs: string;
    try {
      cardTs = await notifier.postStartingCard(card);
    } catch (error) {
      metrics?.jobStarted('card_failed');
      return { ok: false, stage: 'card', error };
    }

    let job: AgentJob;
    let taken = false;
    try {
      const slot = await quota.take();
      if (!slot.ok) {
        throw new DocsApiError('rate_limited', 'The hourly job budget counted by the bot is used up', {
          retryAfterMs: slot.retryAfterMs,
        });
      }
      taken = true;
      job = await api.createJob(request.context ? `${request.prompt}\n\n${request.context}` : request.prompt);
    } catch (error) {
      if (taken) await this.refundIfNeverSent(error);
      logger.warn(
        { channelId: request.channelId, error: describeError(error) },
        'could not create agent job',
      );
      await notifier.markCardFailed({ ...card, cardTs, error });
      metrics?.jobStarted('create_failed');
      return { ok: false, stage: 'create', error };
    }

    const now = clock.now();
    const record = newJobRecord(
      {
        jobId: job.id,
        teamId: request.teamId,
        channelId: request.channelId,
        threadTs: request.threadTs ?? cardTs,
        cardTs,
        requesterId: request.requesterId,
        prompt: request.prompt,
        origin: request.origin,
        status: job.status,
        repository: job.repository,
        ref: job.ref,
        model: job.model,
        prLink: job.prLink,
      },
      now,
    );
    logger.info({ jobId: job.id, channelId: record.channelId, origin: record.origin }, 'agent job created');
    try {
      await store.saveJob(record);
      await store.linkThread(record.channelId, record.threadTs, record.jobId);
    } catch (error) {
      // The job runs upstream but cannot be followed: say so on the card rather than pretend.
      logger.error(
        { jobId: job.id, error: describeError(error) },
        'job created but its state could not be saved',
      );
      await notifier.markCardFailed({ ...card, cardTs, error: new UntrackedJobError(job.id, error) });
      metrics?.jobStarted('create_failed');
      return { ok: false, stage: 'create', error };
    }
    metrics?.jobStarted('started');
    await notifier.updateCard(record, now);
    await queue.schedule(record.jobId, this.deps.poll.minMs);
    return { ok: true, record };
  }

  /**
   * Sends a follow-up message to a job and starts a new generation: tracked again at the fast cadence, with
   * its own terminal reply. Serialised with polls of the same job.
   */
  followUp(request: FollowUpRequest): Promise<FollowUpResult> {
    return this.lock.run(request.jobId, () => this.followUpLocked(request));
  }

  private async followUpLocked(request: FollowUpRequest): Promise<FollowUpResult> {
    const { store, api, notifier, queue, quota, clock, logger, poll } = this.deps;
    const record: JobRecord | undefined = await store.getJob(request.jobId);
    if (!record) return { ok: false, reason: 'unknown_job' };

    const slot = await quota.take();
    if (!slot.ok) {
      const error = new DocsApiError('rate_limited', 'The hourly job budget counted by the bot is used up', {
        retryAfterMs: slot.retryAfterMs,
      });
      this.deps.metrics?.followUp('refused');
      return { ok: false, reason: 'refused', error, reachedApi: false };
    }
    let job: AgentJob;
    try {
      job = await api.sendMessage(request.jobId, request.prompt);
    } catch (error) {
      logger.warn({ jobId: request.jobId, error: describeError(error) }, 'follow-up refused');
      const neverSent = await this.refundIfNeverSent(error);
      if (error instanceof DocsApiError && error.code === 'not_found') {
        const now = clock.now();
        record.watching = false;
        record.watchEnded = 'gone';
        record.updatedAt = now;
        await store.saveJob(record).catch(() => undefined);
        await notifier.updateCard(record, now);
      }
      this.deps.metrics?.followUp('refused');
      return { ok: false, reason: 'refused', error, reachedApi: !neverSent };
    }
    this.deps.metrics?.followUp('sent');

    const now = clock.now();
    startGeneration(record, job, now);
    logger.info({ jobId: record.jobId, generation: record.generation }, 'follow-up sent to agent job');
    const saved = await this.saveFollowUp(record, job, now);
    await notifier.updateCard(saved, now);
    await queue.schedule(record.jobId, poll.minMs);
    return { ok: true, record: saved };
  }

  /**
   * The agent has the message: its new generation must be saved even when another replica saved the record
   * meanwhile (a poll holding an older copy). On a version conflict, re-read and start the generation on
   * the fresh record; the other replica's stale save is refused in turn and it re-reads this one.
   */
  private async saveFollowUp(record: JobRecord, job: AgentJob, now: number): Promise<JobRecord> {
    const { store, logger } = this.deps;
    let current = record;
    for (let attempt = 1; ; attempt++) {
      try {
        await store.saveJob(current);
        return current;
      } catch (error) {
        if (!(error instanceof JobVersionConflictError) || attempt >= FOLLOW_UP_SAVE_ATTEMPTS) {
          // Polling still runs from the previous state and catches up.
          logger.error({ jobId: record.jobId, error: describeError(error) }, 'follow-up sent but not saved');
          return current;
        }
        const fresh = await store.getJob(record.jobId).catch(() => undefined);
        if (!fresh) return current;
        startGeneration(fresh, job, now);
        logger.info(
          { jobId: record.jobId, generation: fresh.generation },
          'job record changed meanwhile; follow-up applied to the fresh record',
        );
        current = fresh;
      }
    }
  }

  /** A job's current state, fetched fresh from the platform, with what the bot knows about it. */
  async status(jobId: string): Promise<JobStatusResult> {
    try {
      const job = await this.deps.api.getJob(jobId);
      const record = await this.deps.store.getJob(jobId).catch(() => undefined);
      return { ok: true, job, record };
    } catch (error) {
      return { ok: false, error };
    }
  }

  /** Jobs of a channel that are still being watched, oldest first. */
  listWatched(channelId: string): Promise<JobRecord[]> {
    return this.deps.store.listWatched(channelId);
  }

  /** The job whose thread this is, if any. */
  async jobOfThread(channelId: string, threadTs: string): Promise<JobRecord | undefined> {
    const jobId = await this.deps.store.findJobByThread(channelId, threadTs);
    return jobId ? this.deps.store.getJob(jobId) : undefined;
  }

  /** One poll of one job; resolves the delay before the next, or null when the job is no longer watched. */
  poll(jobId: string): Promise<number | null> {
    return this.lock.run(jobId, async () => {
      try {
        return await this.pollLocked(jobId);
      } catch (error) {
        if (!(error instanceof JobVersionConflictError)) throw error;
        // Another replica saved the record since this poll read it (a follow-up's new generation): drop
        // this poll's stale view and poll again soon from the fresh record.
        this.deps.logger.info({ jobId }, 'job record changed during the poll; polling again');
        this.deps.metrics?.polled('superseded');
        return this.deps.poll.minMs;
      }
    });
  }

  private async pollLocked(jobId: string): Promise<number | null> {
    const { store, api, notifier, clock, logger, poll } = this.deps;
    const polled = (outcome: PollOutcome) => this.deps.metrics?.polled(outcome);
    logger.debug({ jobId }, 'polling job');
    const record: JobRecord | undefined = await store.getJob(jobId);
    if (!record?.watching) {
      polled('not_watched');
      return null;
    }
    const now = clock.now();

    if (now - record.activeSince > poll.maxAgeMs) {
      record.watching = false;
      record.watchEnded = 'expired';
      record.updatedAt = now;
      await store.saveJob(record);
      await notifier.updateCard(record, now);
      await notifier.postNotice(record, { kind: 'watch_expired', maxAgeMs: poll.maxAgeMs });
      logger.info({ jobId }, 'stopped watching job: maximum age reached');
      polled('expired');
      return null;
    }

    let job: AgentJob;
    try {
      job = await api.getJob(jobId);
    } catch (error) {
      if (error instanceof DocsApiError && error.code === 'not_found') {
        record.watching = false;
        record.watchEnded = 'gone';
        record.updatedAt = now;
        await store.saveJob(record);
        await notifier.updateCard(record, now);
        await notifier.postNotice(record, { kind: 'job_gone' });
        logger.warn({ jobId }, 'job no longer exists upstream; stopped watching');
        polled('gone');
        return null;
      }
      record.consecutiveFailures += 1;
      record.updatedAt = now;
      await store.saveJob(record);
      const level = record.consecutiveFailures >= 5 ? 'error' : 'warn';
      logger[level](
        { jobId, failures: record.consecutiveFailures, error: describeError(error) },
        'poll failed',
      );
      const retryAfter = error instanceof DocsApiError ? error.retryAfterMs : undefined;
      polled('failed');
      return failedPollDelay(record.consecutiveFailures, poll, retryAfter);
    }

    if (isTerminal(job.status) && !this.trustsTerminal(record, now)) {
      // Probably the previous run's state, read before the platform applied the follow-up: wait for the
      // job to show as running (or for the grace period to pass) before replying for this generation.
      record.consecutiveFailures = 0;
      record.updatedAt = now;
      await store.saveJob(record);
      logger.debug({ jobId, status: job.status }, 'ignoring terminal status seen right after a follow-up');
      polled('stale_terminal');
      return poll.minMs;
    }
    if (!isTerminal(job.status)) record.seenRunningGeneration = record.generation;

    const previousPrLink = record.prLink;
    const changed = applyJob(record, job);
    record.consecutiveFailures = 0;
    record.updatedAt = now;

    if (isTerminal(job.status)) {
      // Recorded before replying and marked unwatched only after: a crash or a failed post leads to another
      // poll, and the reply is idempotent per (job, generation), so it is neither lost nor posted twice.
      await store.saveJob(record);
      if (record.repliedGeneration < record.generation) {
        logger.debug({ jobId, generation: record.generation }, 'posting terminal reply');
        try {
          const delivery = await notifier.postTerminalReply(record, outcomeOf(job, previousPrLink));
          if (delivery === 'undeliverable') logger.error({ jobId }, 'terminal reply could not be delivered');
        } catch (error) {
          record.consecutiveFailures += 1;
          await store.saveJob(record);
          logger.warn({ jobId, error: describeError(error) }, 'terminal reply failed; will retry');
          polled('reply_failed');
          return failedPollDelay(record.consecutiveFailures, poll);
        }
        record.repliedGeneration = record.generation;
      }
      record.watching = false;
      await store.saveJob(record);
      // After the reply (a person waits for the reply; the card refresh queues behind it) and even when
      // unchanged by this poll: an earlier poll of this state may have failed to reply before refreshing.
      await notifier.updateCard(record, now);
      logger.info(
        { jobId, status: job.status, pullRequest: job.prLink !== null },
        'job reached a terminal state',
      );
      polled('terminal');
      this.deps.metrics?.jobFinished(job.status);
      return null;
    }

    await store.saveJob(record);
    if (changed) await notifier.updateCard(record, now);
    polled('running');
    return nextPollDelay(now - record.activeSince, poll, this.deps.random);
  }

  /** A request that surely never left cannot count against the platform's budget: give its unit back. */
  private async refundIfNeverSent(error: unknown): Promise<boolean> {
    if (!requestNeverSent(error)) return false;
    await this.deps.quota.refund().catch((e: unknown) => {
      this.deps.logger.warn({ error: describeError(e) }, 'could not refund the job budget');
    });
    return true;
  }

  /**
   * A terminal status ends a follow-up generation only once the job was seen running in it, or after a
   * grace period (a very quick run may finish between two polls).
   */
  private trustsTerminal(record: JobRecord, now: number): boolean {
    if (record.generation <= 1) return true;
    if (record.seenRunningGeneration === record.generation) return true;
    const grace = this.deps.followUpGraceMs ?? Math.max(FOLLOW_UP_GRACE_MIN_MS, 6 * this.deps.poll.minMs);
    return now - record.activeSince >= grace;
  }
}

/** Starts the generation a follow-up opens: active again, watched again, failures forgotten. */
function startGeneration(record: JobRecord, job: AgentJob, now: number): void {
  applyJob(record, job);
  record.generation += 1;
  record.activeSince = now;
  record.watching = true;
  record.watchEnded = null;
  record.consecutiveFailures = 0;
  record.updatedAt = now;
}

/** Thread key no Slack message has: the probe read of a slash command (no thread yet). */
const cardlessProbe = '0000000000.000000';

export class UntrackedJobError extends AppError<'state_unavailable'> {
  constructor(
    readonly jobId: string,
    cause: unknown,
  ) {
    super('state_unavailable', `Job ${jobId} was created but the bot could not save it to follow it`, {
      cause,
    });
  }
}

/** Copies what the platform reports onto the record; true when anything shown on the card changed. */
export function applyJob(record: JobRecord, job: AgentJob): boolean {
  const before = [record.status, record.repository, record.ref, record.model, record.prLink].join('\u0000');
  record.status = job.status;
  record.repository = job.repository ?? record.repository;
  record.ref = job.ref ?? record.ref;
  record.model = job.model ?? record.model;
  // A pull request, once opened, stays the job's PR even if a later run changes nothing.
  record.prLink = job.prLink ?? record.prLink;
  const after = [record.status, record.repository, record.ref, record.model, record.prLink].join('\u0000');
  return before !== after;
}

export function outcomeOf(job: AgentJob, previousPrLink: string | null): TerminalOutcome {
  if (job.status === 'failed') return { kind: 'failed' };
  if (job.status === 'archived') return { kind: 'archived' };
  return job.prLink ? { kind: 'pull_request', prLink: job.prLink } : { kind: 'no_changes', previousPrLink };
}
