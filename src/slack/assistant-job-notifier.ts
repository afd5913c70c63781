import type { Clock } from '../common/clock.js';
import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { JobRecord } from '../jobs/domain/job.js';
import type { JobNotifier, JobStore, StartingCard, TerminalOutcome, ThreadNotice } from '../jobs/ports.js';
import type { AssistantCalls, StreamStep } from './assistant-calls.js';
import {
  ASSISTANT_STATUS,
  finishedSteps,
  notStartedSteps,
  runningSteps,
  startingSteps,
} from './messages/assistant-steps.js';
import { describeDocsFailure } from './messages/failures.js';

/** Slack clears an assistant status after 2 minutes without a new one: refreshed well before. */
export const STATUS_REFRESH_MS = 90_000;
/** How long the state store remembers that a job's message is a stream (not a card). */
const STREAM_MARK_MS = 7 * 24 * 60 * 60 * 1000;
/** Slack's answer once a stream is over (stopped, or past its few minutes of life). */
const STREAM_OVER = new Set(['message_not_in_streaming_state', 'message_not_found']);

export interface AssistantNotifierOptions {
  statusRefreshMs?: number;
  /** Timers (tests pass fake ones); default: the global ones. */
  setInterval?: typeof setInterval;
  clearInterval?: typeof clearInterval;
  /** Told of every change shown in a stream (App Home republishes the requester's view), as cards tell it. */
  onJobChanged?: (record: JobRecord) => void;
}

/**
 * The job notifier for jobs asked for in an assistant thread (origin `assistant`), in front of the card
 * notifier for every other job: the job is a streamed message whose steps update in place where Slack
 * accepts a stream, else the usual card; the thread's status line says what the bot waits for, is
 * refreshed before Slack clears it, and is cleared when the run ends. The terminal reply is the card
 * notifier's (one per run, owed through the outbox) in both cases; stream steps and the status line are
 * progress shown on the way, best effort.
 */
export class AssistantJobNotifier implements JobNotifier {
  private readonly refreshers = new Map<string, ReturnType<typeof setInterval>>();
  private readonly refreshMs: number;

  constructor(
    private readonly cards: JobNotifier,
    private readonly calls: AssistantCalls,
    private readonly store: Pick<JobStore, 'getJob' | 'mark' | 'isMarked'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: AssistantNotifierOptions = {},
  ) {
    this.refreshMs = options.statusRefreshMs ?? STATUS_REFRESH_MS;
  }

  /** Stops refreshing status lines (shutdown); Slack clears them within 2 minutes. */
  close(): void {
    for (const timer of this.refreshers.values()) (this.options.clearInterval ?? clearInterval)(timer);
    this.refreshers.clear();
  }

  async postStartingCard(input: StartingCard): Promise<string> {
    if (input.origin !== 'assistant' || !input.threadTs || !input.teamId)
      return this.cards.postStartingCard(input);
    try {
      const ts = await this.calls.startStream(
        {
          channelId: input.channelId,
          threadTs: input.threadTs,
          teamId: input.teamId,
          userId: input.requesterId,
        },
        startingSteps(),
      );
      await this.store.mark(streamKey(input.channelId, ts), STREAM_MARK_MS);
      return ts;
    } catch (error) {
      // Slack refuses streams on some plans and surfaces, or failed: the card says the same, in place.
      this.logger.info(
        { channelId: input.channelId, error: describeError(error) },
        'Slack refused a streamed job message; posting the job card instead',
      );
      return this.cards.postStartingCard(input);
    }
  }

  async markCardFailed(input: StartingCard & { cardTs: string; error: unknown }): Promise<void> {
    if (input.origin === 'assistant' && input.threadTs) this.clearStatus(input.channelId, input.threadTs);
    if (!(await this.isStream(input.channelId, input.cardTs))) return this.cards.markCardFailed(input);
    const reason = describeDocsFailure(input.error, this.clock.now());
    await this.stop(input.channelId, input.cardTs, notStartedSteps(reason));
  }

  async updateCard(record: JobRecord, now: number): Promise<void> {
    if (record.origin !== 'assistant') return this.cards.updateCard(record, now);
    if (record.watching) {
      this.setStatus(record, ASSISTANT_STATUS.waiting);
      this.keepStatus(record);
    }
    if (!(await this.isStream(record.channelId, record.cardTs))) return this.cards.updateCard(record, now);
    this.options.onJobChanged?.(record);
    // A finished run's stream was stopped with its last steps by the terminal reply.
    if (record.watching) await this.append(record, runningSteps(record));
  }

  /** The reply itself is owed through the outbox (the card notifier's); the stream and status follow it. */
  async postTerminalReply(record: JobRecord, outcome: TerminalOutcome): Promise<void> {
    if (record.origin !== 'assistant') return this.cards.postTerminalReply(record, outcome);
    this.stopKeeping(record.jobId);
    if (outcome.kind === 'pull_request') this.setStatus(record, ASSISTANT_STATUS.posting);
    await this.cards.postTerminalReply(record, outcome);
    if (await this.isStream(record.channelId, record.cardTs))
      await this.stop(record.channelId, record.cardTs, finishedSteps(record, outcome));
    this.clearStatus(record.channelId, record.threadTs);
  }

  async postNotice(record: JobRecord, notice: ThreadNotice): Promise<void> {
    if (record.origin === 'assistant') {
      this.stopKeeping(record.jobId);
      this.clearStatus(record.channelId, record.threadTs);
    }
    return this.cards.postNotice(record, notice);
  }

  /** Re-sends the status line before Slack clears it, while the job's record says it is watched. */
  private keepStatus(record: JobRecord): void {
    if (this.refreshers.has(record.jobId)) return;
    const timer = (this.options.setInterval ?? setInterval)(() => {
      this.store
        .getJob(record.jobId)
        .then((fresh) => {
          if (fresh?.watching) this.setStatus(fresh, ASSISTANT_STATUS.waiting);
          else this.stopKeeping(record.jobId);
        })
        .catch((error: unknown) =>
          this.logger.warn({ jobId: record.jobId, error: describeError(error) }, 'status refresh failed'),
        );
    }, this.refreshMs);
    (timer as { unref?: () => void }).unref?.();
    this.refreshers.set(record.jobId, timer);
  }

  private stopKeeping(jobId: string): void {
    const timer = this.refreshers.get(jobId);
    if (timer === undefined) return;
    (this.options.clearInterval ?? clearInterval)(timer);
    this.refreshers.delete(jobId);
  }

  /** Status lines are best effort: a failure is logged, never fails the job's progress. */
  private setStatus(record: Pick<JobRecord, 'channelId' | 'threadTs' | 'jobId'>, status: string): void {
    this.calls.setStatus(record.channelId, record.threadTs, status).catch((error: unknown) => {
      this.logger.warn(
        { jobId: record.jobId, error: describeError(error) },
        'could not set assistant status',
      );
    });
  }

  private clearStatus(channelId: string, threadTs: string): void {
    this.setStatus({ channelId, threadTs, jobId: '-' }, ASSISTANT_STATUS.clear);
  }

  private async isStream(channelId: string, ts: string): Promise<boolean> {
    return this.store.isMarked(streamKey(channelId, ts));
  }

  private async append(record: JobRecord, steps: StreamStep[]): Promise<void> {
    await this.calls.appendStream(record.channelId, record.cardTs, steps).catch((error: unknown) => {
      const code = (error as { code?: string }).code ?? '';
      // A stream lives a few minutes: after that the status line and the terminal reply carry on.
      const level = STREAM_OVER.has(code) ? 'debug' : 'warn';
      this.logger[level]({ jobId: record.jobId, code }, 'could not update the streamed job message');
    });
  }

  private async stop(channelId: string, ts: string, steps: StreamStep[]): Promise<void> {
    await this.calls.stopStream(channelId, ts, steps).catch((error: unknown) => {
      const code = (error as { code?: string }).code ?? '';
      const level = STREAM_OVER.has(code) ? 'debug' : 'warn';
      this.logger[level]({ channelId, code }, 'could not finish the streamed job message');
    });
  }
}

function streamKey(channelId: string, ts: string): string {
  return `assistant-stream:${channelId}:${ts}`;
}
