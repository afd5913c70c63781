import { DocsApiError } from '../api/errors.js';
import { type AgentJob, isTerminal, type JobOrigin, type JobRecord } from '../domain/job.js';
import { AppError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { HourlyQuota } from './hourly-quota.js';
import { KeyedLock } from './keyed-lock.js';
import { failedPollDelay, nextPollDelay, type PollTiming } from './poll-timing.js';
import type { AgentJobsApi, Clock, JobNotifier, JobStore, PollQueue, TerminalOutcome } from './ports.js';

export interface StartJobRequest {
  teamId: string | null;
  channelId: string;
  /** The user's own message when the job starts from a mention or DM; null for slash commands. */
  threadTs: string | null;
  requesterId: string;
  /** Plain text, already converted from Slack markup. */
  prompt: string;
  origin: JobOrigin;
}

export type StartJobResult =
  | { ok: true; record: JobRecord }
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
  random?: () => number;
}

/** Starts agent jobs from Slack and follows them to their terminal reply. */
export class JobService {
  private readonly lock = new KeyedLock();

  constructor(private readonly deps: JobServiceDeps) {}

  /** Registers the poll handler and re-schedules every job still watched (after a restart with durable state). */
  async startWatching(): Promise<number> {
    this.deps.queue.start((jobId) => this.poll(jobId));
    const watched = await this.deps.store.listWatched();
    for (const record of watched) await this.deps.queue.schedule(record.jobId, this.deps.poll.minMs);
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
    let cardTs: string;
    try {
      cardTs = await notifier.postStartingCard(card);
    } catch (error) {
      return { ok: false, stage: 'card', error };
    }

    let job: AgentJob;
    try {
      const slot = await quota.take();
      if (!slot.ok) {
        throw new DocsApiError('rate_limited', 'The hourly job budget counted by the bot is used up', {
          retryAfterMs: slot.retryAfterMs,
        });
      }
      job = await api.createJob(request.prompt);
    } catch (error) {
      logger.warn(
        { channelId: request.channelId, error: describeError(error) },
        'could not create agent job',
      );
      await notifier.markCardFailed({ ...card, cardTs, error });
      return { ok: false, stage: 'create', error };
    }

    const now = clock.now();
    const record: JobRecord = {
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
      createdAt: now,
      activeSince: now,
      generation: 1,
      repliedGeneration: 0,
      watching: true,
      watchEnded: null,
      consecutiveFailures: 0,
      updatedAt: now,
    };
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
      return { ok: false, stage: 'create', error };
    }
    await notifier.updateCard(record, now);
    await queue.schedule(record.jobId, this.deps.poll.minMs);
    return { ok: true, record };
  }

  /** One poll of one job; resolves the delay before the next, or null when the job is no longer watched. */
  poll(jobId: string): Promise<number | null> {
    return this.lock.run(jobId, () => this.pollLocked(jobId));
  }

  private async pollLocked(jobId: string): Promise<number | null> {
    const { store, api, notifier, clock, logger, poll } = this.deps;
    const record = await store.getJob(jobId);
    if (!record?.watching) return null;
    const now = clock.now();

    if (now - record.activeSince > poll.maxAgeMs) {
      record.watching = false;
      record.watchEnded = 'expired';
      record.updatedAt = now;
      await store.saveJob(record);
      await notifier.updateCard(record, now);
      await notifier.postNotice(record, { kind: 'watch_expired', maxAgeMs: poll.maxAgeMs });
      logger.info({ jobId }, 'stopped watching job: maximum age reached');
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
      return failedPollDelay(record.consecutiveFailures, poll, retryAfter);
    }

    const previousPrLink = record.prLink;
    const changed = applyJob(record, job);
    record.consecutiveFailures = 0;
    record.updatedAt = now;

    if (isTerminal(job.status)) {
      // Recorded before replying and marked unwatched only after: a crash or a failed post leads to another
      // poll, and the reply is idempotent per (job, generation), so it is neither lost nor posted twice.
      await store.saveJob(record);
      if (changed) await notifier.updateCard(record, now);
      if (record.repliedGeneration < record.generation) {
        try {
          const delivery = await notifier.postTerminalReply(record, outcomeOf(job, previousPrLink));
          if (delivery === 'undeliverable') logger.error({ jobId }, 'terminal reply could not be delivered');
        } catch (error) {
          record.consecutiveFailures += 1;
          await store.saveJob(record);
          logger.warn({ jobId, error: describeError(error) }, 'terminal reply failed; will retry');
          return failedPollDelay(record.consecutiveFailures, poll);
        }
        record.repliedGeneration = record.generation;
      }
      record.watching = false;
      await store.saveJob(record);
      logger.info(
        { jobId, status: job.status, pullRequest: job.prLink !== null },
        'job reached a terminal state',
      );
      return null;
    }

    await store.saveJob(record);
    if (changed) await notifier.updateCard(record, now);
    return nextPollDelay(now - record.activeSince, poll, this.deps.random);
  }
}

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
