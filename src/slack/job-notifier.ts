import { randomUUID } from 'node:crypto';
import type { Clock } from '../common/clock.js';
import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type {
  ConversationNotifier,
  MessageRef,
  PrivateNotice,
  ThreadMessage,
} from '../jobs/conversation-service.js';
import type { JobRecord } from '../jobs/domain/job.js';
import type { JobNotifier, JobStore, StartingCard, TerminalOutcome, ThreadNotice } from '../jobs/ports.js';
import { CardRefresher, type CardRefresherOptions } from './card-refresher.js';
import { describeDocsFailure } from './messages/failures.js';
import { jobCardMessage } from './messages/job-card.js';
import {
  followUpRefusedMessage,
  noticeMessage,
  privateNoticeMessage,
  terminalReplyMessage,
} from './messages/job-replies.js';
import { isPermanentSlackError } from './slack-errors.js';
import { SlackDeliveryError, type SlackGateway } from './slack-gateway.js';

/**
 * How long the claim on a terminal reply stands. It is released when the post fails, and otherwise outlives
 * any retry of the same (job, generation) (a crash between posting and recording it, a store outage), so
 * the claim alone keeps the reply to one copy: no thread look-up before each reply.
 */
const REPLY_CLAIM_MS = 24 * 60 * 60 * 1000;

/** The reaction on a reply that reached the agent. */
export const FORWARDED_REACTION = 'eyes';

export interface NotifierOptions {
  /** Who may steer a job from its thread (FOLLOW_UPS_FROM), as the card explains it. */
  followUpsFrom?: 'anyone' | 'requester';
  /** AGENT_JOBS_PER_HOUR, named when a job is refused for it. */
  jobsPerHour?: number;
  /** Retry policy of background card refreshes. */
  cards?: CardRefresherOptions;
  /** Told of every card refresh, terminal reply and notice (App Home republishes the requester's view). */
  onJobChanged?: (record: JobRecord) => void;
  /** With several docs projects configured, cards name theirs (records without one use the default). */
  projects?: { isMulti: boolean; defaultProjectId: string };
}

/** Renders job state into Slack: the card in place and the replies in its thread. */
export class SlackJobNotifier implements JobNotifier, ConversationNotifier {
  private readonly cards: CardRefresher;

  constructor(
    private readonly gateway: SlackGateway,
    private readonly store: JobStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: NotifierOptions = {},
  ) {
    this.cards = new CardRefresher(
      gateway,
      store,
      logger,
      (record, now) =>
        jobCardMessage({
          requesterId: record.requesterId,
          prompt: record.prompt,
          ...(record.evidenceRef === undefined ? {} : { evidenceRef: record.evidenceRef }),
          state: { phase: 'tracked', record, now },
          followUpsFrom: this.options.followUpsFrom,
          project: this.projectName(record.projectId),
        }),
      options.cards,
    );
  }

  /** Waits for queued card refreshes (shutdown: before the gateway closes; bound it with a timeout). */
  async flushCards(): Promise<void> {
    await this.cards.idle();
  }

  /** Stops retrying card refreshes (shutdown). */
  closeCards(): void {
    this.cards.close();
  }

  /** Cards whose latest state is still on its way to Slack. */
  get cardBacklog(): number {
    return this.cards.backlog;
  }

  private changed(record: JobRecord): void {
    try {
      this.options.onJobChanged?.(record);
    } catch (error) {
      this.logger.warn({ jobId: record.jobId, error: describeError(error) }, 'job change listener failed');
    }
  }

  private limits() {
    return this.options.jobsPerHour ? { jobsPerHour: this.options.jobsPerHour } : {};
  }

  async markForwarded(ref: MessageRef): Promise<void> {
    await this.gateway.addReaction(ref.channelId, ref.ts, FORWARDED_REACTION).catch((error: unknown) => {
      this.logger.warn({ channelId: ref.channelId, error: describeError(error) }, 'could not add reaction');
    });
  }

  async followUpRefused(ref: MessageRef, error: unknown): Promise<void> {
    await this.gateway
      .post({
        channel: ref.channelId,
        threadTs: ref.threadTs,
        message: followUpRefusedMessage(error, this.clock.now(), this.limits()),
        dedupeKey: `followup-refused:${ref.channelId}:${ref.ts}`,
      })
      .catch((postError: unknown) => {
        this.logger.warn(
          { channelId: ref.channelId, error: describeError(postError) },
          'could not say why a follow-up was refused',
        );
      });
  }

  async tellAuthor(ref: MessageRef, notice: PrivateNotice): Promise<void> {
    await this.gateway
      .postEphemeral(ref.channelId, ref.userId, privateNoticeMessage(notice), ref.threadTs)
      .catch((error: unknown) => {
        this.logger.warn(
          { channelId: ref.channelId, notice: notice.kind, error: describeError(error) },
          'could not answer a message privately',
        );
      });
  }

  async threadMessages(channelId: string, threadTs: string): Promise<ThreadMessage[]> {
    const messages = await this.gateway.threadReplies(channelId, threadTs);
    return messages
      .filter((m) => typeof m.ts === 'string')
      .map((m) => ({
        ts: m.ts!,
        userId: m.user,
        botId: m.bot_id,
        subtype: m.subtype,
        text: m.text ?? '',
      }));
  }

  async postStartingCard(input: StartingCard): Promise<string> {
    const message = jobCardMessage({
      requesterId: input.requesterId,
      prompt: input.prompt,
      ...(input.evidenceRef === undefined ? {} : { evidenceRef: input.evidenceRef }),
      state: { phase: 'starting' },
      followUpsFrom: this.options.followUpsFrom,
      project: this.projectName(input.projectId),
    });
    const post = () =>
      this.gateway.post({
        channel: input.channelId,
        threadTs: input.threadTs,
        message,
        dedupeKey: `card:${input.channelId}:${randomUUID()}`,
      });
    try {
      return await post();
    } catch (error) {
      // Public channels can be joined without an invite (channels:join); then the post is tried once more.
      const joinable = input.mayJoin !== false && input.channelId.startsWith('C');
      if ((error as { code?: string }).code !== 'not_in_channel' || !joinable) throw error;
      await this.gateway.joinChannel(input.channelId);
      this.logger.info({ channelId: input.channelId }, 'joined public channel to post a job card');
      return await post();
    }
  }

  /** The project a card names: only when several are configured. */
  private projectName(projectId: string | undefined): string | undefined {
    const projects = this.options.projects;
    return projects?.isMulti ? (projectId ?? projects.defaultProjectId) : undefined;
  }

  /** Resolves at once: the refresh runs in the background (coalesced, retried; see CardRefresher). */
  async updateCard(record: JobRecord, now: number): Promise<void> {
    this.cards.refresh(record, now);
    this.changed(record);
  }

  async markCardFailed(input: StartingCard & { cardTs: string; error: unknown }): Promise<void> {
    const reason = describeDocsFailure(input.error, this.clock.now(), undefined, this.limits());
    const message = jobCardMessage({
      requesterId: input.requesterId,
      prompt: input.prompt,
      ...(input.evidenceRef === undefined ? {} : { evidenceRef: input.evidenceRef }),
      state: { phase: 'not_started', reason },
      project: this.projectName(input.projectId),
    });
    await this.gateway.update(input.channelId, input.cardTs, message).catch((error: unknown) => {
      this.logger.warn(
        { channelId: input.channelId, error: describeError(error) },
        'could not mark job card failed',
      );
    });
  }

  async postTerminalReply(
    record: JobRecord,
    outcome: TerminalOutcome,
  ): Promise<'posted' | 'already_posted' | 'undeliverable'> {
    const key = `terminal:${record.jobId}:${record.generation}`;
    // The claim keeps two pollers (or a poll and its retry) from racing and, as it stands until long after
    // the reply, also covers a crash between posting and recording it.
    if (!(await this.store.claim(key, REPLY_CLAIM_MS))) return 'already_posted';
    const message = terminalReplyMessage(record, outcome, this.clock.now());
    try {
      await this.gateway.post({
        channel: record.channelId,
        threadTs: record.threadTs,
        message,
        dedupeKey: key,
        priority: 'reply',
      });
      this.changed(record);
      return 'posted';
    } catch (error) {
      await this.store.release(key).catch(() => undefined);
      if (error instanceof SlackDeliveryError && isPermanentSlackError(error.code)) {
        this.logger.error({ jobId: record.jobId, code: error.code }, 'Slack refused the terminal reply');
        return 'undeliverable';
      }
      throw error;
    }
  }

  async postNotice(record: JobRecord, notice: ThreadNotice): Promise<void> {
    const key = `notice:${notice.kind}:${record.jobId}:${record.generation}`;
    this.changed(record);
    await this.gateway
      .post({
        channel: record.channelId,
        threadTs: record.threadTs,
        message: noticeMessage(record, notice),
        dedupeKey: key,
        priority: 'reply',
      })
      .catch((error: unknown) => {
        this.logger.warn(
          { jobId: record.jobId, error: describeError(error) },
          'could not post thread notice',
        );
      });
  }
}
