import type { Clock } from '../common/clock.js';
import { describeError } from '../common/errors.js';
import { LazyMap } from '../common/lazy-collections.js';
import type { Logger } from '../common/logger.js';
import type { JobRecord } from '../jobs/domain/job.js';
import type { JobNotifier, JobStore, StartingCard, TerminalOutcome, ThreadNotice } from '../jobs/ports.js';
import type { AssistantCalls, StreamStep } from './assistant-calls.js';
import { AssistantStreams, type StreamPhase } from './assistant-streams.js';
import { terminalKey } from './job-notifier.js';
import { sessionStoppedMessage } from './messages/agent-session.js';
import {
  ASSISTANT_STATUS,
  finishedSteps,
  handoverSteps,
  knownSteps,
  notStartedSteps,
  runningStatus,
  runningSteps,
  startingSteps,
  stoppedSteps,
} from './messages/assistant-steps.js';
import { describeDocsFailure } from './messages/failures.js';
import { terminalReplyMessage } from './messages/job-replies.js';

/** Slack clears an assistant status after 2 minutes without a new one: refreshed well before. */
export const STATUS_REFRESH_MS = 90_000;

export interface AssistantNotifierOptions {
  statusRefreshMs?: number;
  /** How long a stream is used before it is handed over (default 4 min: Slack closes streams at ~5). */
  streamHandoverMs?: number;
  /** Timers (tests pass fake ones); default: the global ones. */
  setInterval?: typeof setInterval;
  clearInterval?: typeof clearInterval;
  setTimeout?: typeof setTimeout;
  clearTimeout?: typeof clearTimeout;
  /** Told of every change shown in a stream (App Home republishes the requester's view), as cards tell it. */
  onJobChanged?: (record: JobRecord) => void;
}

/**
 * The job notifier for jobs asked for in an assistant thread (origin `assistant`), in front of the card
 * notifier for every other job. The job is a streamed message whose steps update in place where Slack
 * accepts a stream (else the usual card); the thread's agent session is `processing` while the job runs
 * (Slack's Stop button) and idle once it ends; the status line says what the bot waits for. A stream is
 * handed over ("still working…") before Slack closes it; the status line carries on. The result ends the
 * stream when it is still open, else it is a reply: one result, one message, owed once per run.
 */
export class AssistantJobNotifier implements JobNotifier {
  private readonly refreshers = new LazyMap<string, ReturnType<typeof setInterval>>();
  private readonly handovers = new LazyMap<string, ReturnType<typeof setTimeout>>();
  private readonly refreshMs: number;
  readonly streams: AssistantStreams;

  constructor(
    private readonly cards: JobNotifier,
    private readonly calls: AssistantCalls,
    private readonly store: Pick<JobStore, 'getJob' | 'mark' | 'isMarked'>,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: AssistantNotifierOptions = {},
  ) {
    this.refreshMs = options.statusRefreshMs ?? STATUS_REFRESH_MS;
    this.streams = new AssistantStreams(store, options.streamHandoverMs);
  }

  /** Stops refreshing status lines and handing streams over (shutdown); another replica's polls carry on. */
  close(): void {
    for (const jobId of [...this.refreshers.keys(), ...this.handovers.keys()]) this.forget(jobId);
  }

  async postStartingCard(input: StartingCard): Promise<string> {
    if (input.origin !== 'assistant' || !input.threadTs || !input.teamId)
      return this.cards.postStartingCard(input);
    this.session(input.channelId, input.threadTs, 'processing', input.prompt);
    try {
      const target = { channelId: input.channelId, threadTs: input.threadTs, teamId: input.teamId };
      const ts = await this.calls.startStream({ ...target, userId: input.requesterId }, startingSteps());
      await this.streams.remember(input.channelId, ts);
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

  async tellStartFailed(responseUrl: string, startId: string, error: unknown): Promise<void> {
    await this.cards.tellStartFailed?.(responseUrl, startId, error);
  }

  async markCardFailed(input: StartingCard & { cardTs: string; error: unknown }): Promise<void> {
    if (input.origin === 'assistant' && input.threadTs) this.idle(input.channelId, input.threadTs);
    if ((await this.streams.phase(input.channelId, input.cardTs, this.clock.now())) === 'card')
      return this.cards.markCardFailed(input);
    const reason = describeDocsFailure(input.error, this.clock.now());
    await this.endStream(input.channelId, input.cardTs, notStartedSteps(reason));
  }

  async updateCard(record: JobRecord, now: number): Promise<void> {
    if (record.origin !== 'assistant') return this.cards.updateCard(record, now);
    const phase = await this.streams.phase(record.channelId, record.cardTs, now);
    if (record.watching) {
      this.session(record.channelId, record.threadTs, 'processing');
      this.setStatus(record, phase === 'over' ? runningStatus(record) : ASSISTANT_STATUS.waiting);
      this.keepStatus(record);
    }
    if (phase === 'card') return this.cards.updateCard(record, now);
    this.options.onJobChanged?.(record);
    if (!record.watching) return;
    if (phase === 'open') {
      await this.append(record, runningSteps(record));
      this.armHandover(record);
    } else if (phase === 'due') await this.handOver(record);
  }

  /** The run's one result: the end of its stream while Slack still streams it, else a reply. */
  async postTerminalReply(record: JobRecord, outcome: TerminalOutcome): Promise<void> {
    if (record.origin !== 'assistant') return this.cards.postTerminalReply(record, outcome);
    this.forget(record.jobId);
    const now = this.clock.now();
    const phase = await this.streams.phase(record.channelId, record.cardTs, now);
    if (phase === 'open' || phase === 'due') {
      await this.streams.markOver(record.channelId, record.cardTs);
      await this.calls.finishStream({
        key: terminalKey(record),
        channelId: record.channelId,
        ts: record.cardTs,
        threadTs: record.threadTs,
        steps: finishedSteps(record, outcome),
        result: terminalReplyMessage(record, outcome, now),
      });
      this.options.onJobChanged?.(record);
    } else await this.cards.postTerminalReply(record, outcome);
    this.idle(record.channelId, record.threadTs);
  }

  async postNotice(record: JobRecord, notice: ThreadNotice): Promise<void> {
    if (record.origin === 'assistant') {
      this.forget(record.jobId);
      this.idle(record.channelId, record.threadTs);
      const phase = await this.streams.phase(record.channelId, record.cardTs, this.clock.now());
      if (phase === 'open' || phase === 'due')
        await this.endStream(record.channelId, record.cardTs, knownSteps(record, true));
    }
    return this.cards.postNotice(record, notice);
  }

  /**
   * Marks a thread's stream over first thing on Stop (no replica appends to it from then); resolves where
   * the stream stood before, for `stopped`.
   */
  async stopping(record: JobRecord): Promise<StreamPhase> {
    const phase = await this.streams.phase(record.channelId, record.cardTs, this.clock.now());
    if (phase !== 'card') await this.streams.markOver(record.channelId, record.cardTs);
    return phase;
  }

  /**
   * The person pressed Stop and the job is no longer followed (`record` as saved so): the stream ends at
   * once with the honest line and its two choices, or, when Slack already stopped it (`slackStopped`) or
   * there is none, the line is a reply. The session goes back to idle, the status line is cleared.
   */
  async stopped(record: JobRecord, slackStopped: readonly string[], before: StreamPhase): Promise<void> {
    this.forget(record.jobId);
    const key = `agent-stop:${record.jobId}:${record.generation}`;
    const message = sessionStoppedMessage(record);
    if ((before === 'open' || before === 'due') && !slackStopped.includes(record.cardTs))
      await this.calls.finishStream({
        key,
        channelId: record.channelId,
        ts: record.cardTs,
        threadTs: record.threadTs,
        steps: stoppedSteps(record),
        result: message,
      });
    else await this.calls.reply(key, record.channelId, record.threadTs, message);
    if (before === 'card') await this.cards.updateCard(record, this.clock.now());
    this.idle(record.channelId, record.threadTs);
  }

  /** Sets the thread idle: the session out of `processing`, the status line cleared. */
  idle(channelId: string, threadTs: string): void {
    this.session(channelId, threadTs, 'active');
    this.setStatus({ channelId, threadTs, jobId: '-' }, ASSISTANT_STATUS.clear);
  }

  /** Before Slack closes the stream: end it cleanly with "still working…"; the status line carries on. */
  private async handOver(record: JobRecord): Promise<void> {
    await this.streams.markOver(record.channelId, record.cardTs);
    await this.endStream(record.channelId, record.cardTs, handoverSteps(record));
    this.setStatus(record, runningStatus(record));
    this.logger.info({ jobId: record.jobId }, 'handed a streamed job message over before Slack closes it');
  }

  /** In this process, a timer at the stream's handover time (any replica's poll may hand over first). */
  private armHandover(record: JobRecord): void {
    if (this.handovers.has(record.jobId)) return;
    const delay = Math.max(0, this.streams.handoverAt(record.cardTs) - this.clock.now());
    const timer = (this.options.setTimeout ?? setTimeout)(() => {
      this.handovers.delete(record.jobId);
      this.handOverIfRunning(record.jobId).catch((error: unknown) =>
        this.logger.warn({ jobId: record.jobId, error: describeError(error) }, 'stream handover failed'),
      );
    }, delay);
    (timer as { unref?: () => void }).unref?.();
    this.handovers.set(record.jobId, timer);
  }

  private async handOverIfRunning(jobId: string): Promise<void> {
    const fresh = await this.store.getJob(jobId);
    if (!fresh?.watching) return;
    const phase = await this.streams.phase(fresh.channelId, fresh.cardTs, this.clock.now());
    if (phase === 'open' || phase === 'due') await this.handOver(fresh);
  }

  /** Re-sends the status line before Slack clears it, while the job's record says it is watched. */
  private keepStatus(record: JobRecord): void {
    if (this.refreshers.has(record.jobId)) return;
    const timer = (this.options.setInterval ?? setInterval)(() => {
      this.refreshStatus(record.jobId).catch((error: unknown) =>
        this.logger.warn({ jobId: record.jobId, error: describeError(error) }, 'status refresh failed'),
      );
    }, this.refreshMs);
    (timer as { unref?: () => void }).unref?.();
    this.refreshers.set(record.jobId, timer);
  }

  private async refreshStatus(jobId: string): Promise<void> {
    const fresh = await this.store.getJob(jobId);
    if (!fresh?.watching) return this.forget(jobId);
    const phase = await this.streams.phase(fresh.channelId, fresh.cardTs, this.clock.now());
    this.setStatus(fresh, phase === 'over' ? runningStatus(fresh) : ASSISTANT_STATUS.waiting);
  }

  /** Stops this process's timers of a job (its run ended, was stopped, or shutdown). */
  private forget(jobId: string): void {
    const refresher = this.refreshers.get(jobId);
    if (refresher !== undefined) (this.options.clearInterval ?? clearInterval)(refresher);
    this.refreshers.delete(jobId);
    const handover = this.handovers.get(jobId);
    if (handover !== undefined) (this.options.clearTimeout ?? clearTimeout)(handover);
    this.handovers.delete(jobId);
  }

  /** Status lines are best effort: a failure to record one is logged, never fails the job's progress. */
  private setStatus(record: Pick<JobRecord, 'channelId' | 'threadTs' | 'jobId'>, status: string): void {
    this.calls.setStatus(record.channelId, record.threadTs, status).catch((error: unknown) => {
      this.logger.warn(
        { jobId: record.jobId, error: describeError(error) },
        'could not set assistant status',
      );
    });
  }

  private session(channelId: string, threadTs: string, status: 'processing' | 'active', title?: string) {
    this.calls.setSessionStatus(channelId, threadTs, status, title).catch((error: unknown) => {
      this.logger.warn({ channelId, error: describeError(error) }, 'could not set the agent session status');
    });
  }

  private async append(record: JobRecord, steps: StreamStep[]): Promise<void> {
    await this.calls.appendStream(record.channelId, record.cardTs, steps).catch((error: unknown) => {
      this.logger.warn({ jobId: record.jobId, error: describeError(error) }, 'could not owe stream steps');
    });
  }

  private async endStream(channelId: string, ts: string, steps: StreamStep[]): Promise<void> {
    await this.streams.markOver(channelId, ts);
    await this.calls.stopStream(channelId, ts, steps).catch((error: unknown) => {
      this.logger.warn({ channelId, error: describeError(error) }, 'could not owe the end of a stream');
    });
  }
}
