import { randomUUID } from 'node:crypto';
import type { Clock } from '../common/clock.js';
import { DocsApiError } from '../common/docs-api-error.js';
import { describeError } from '../common/errors.js';
import { jobPageUrl } from '../common/job-links.js';
import type { Logger } from '../common/logger.js';
import type { DeliveryPriority, NewDelivery } from '../delivery/domain.js';
import type { Outbox } from '../delivery/ports.js';
import type {
  ConversationNotifier,
  MessageRef,
  PrivateNotice,
  ThreadMessage,
} from '../jobs/conversation-service.js';
import { type JobRecord, shownOrder } from '../jobs/domain/job.js';
import type { JobNotifier, StartingCard, TerminalOutcome, ThreadNotice } from '../jobs/ports.js';
import { cardKey, terminalKey } from './job-delivery-keys.js';
import { describeDocsFailure, describeSlackDeliveryFailure } from './messages/failures.js';
import { jobCardMessage } from './messages/job-card.js';
import {
  followUpRefusedMessage,
  noticeMessage,
  privateNoticeMessage,
  terminalReplyMessage,
} from './messages/job-replies.js';
import type { SlackMessage } from './messages/types.js';
import { SlackDeliveryError, type SlackGateway } from './slack-gateway.js';

export { cardKey, terminalKey } from './job-delivery-keys.js';

/** How long a job's start waits for its card to be confirmed (retries and look-ups included). */
const STARTING_CARD_WAIT_MS = 30_000;
/** How long the starting card's outbox record is kept (its sweep and de-duplication need no longer). */
const STARTING_CARD_KEEP_MS = 24 * 60 * 60 * 1000;

type CardState = Parameters<typeof jobCardMessage>[0]['state'];
type FollowUpsFrom = NotifierOptions['followUpsFrom'];

/** The reaction on a reply that reached the agent. */
export const FORWARDED_REACTION = 'eyes';

export interface NotifierOptions {
  /** Who may steer a job from its thread (FOLLOW_UPS_FROM), as the card explains it. */
  followUpsFrom?: 'anyone' | 'requester';
  /** AGENT_JOBS_PER_HOUR, named when a job is refused for it. */
  jobsPerHour?: number;
  /** Told of every card refresh, terminal reply and notice (App Home republishes the requester's view). */
  onJobChanged?: (record: JobRecord) => void;
  /** The docs projects: a job's page names its project (a record without one: its channel's or the default). */
  projects?: { isMulti: boolean; defaultProjectId: string; projectFor?(channelId: string): string };
  /** DOCS_JOB_URL_PATTERN: cards and notices link the job's page; absent, they do not. */
  jobUrlPattern?: string | undefined;
  /** How long a job's start waits for its card (default STARTING_CARD_WAIT_MS). */
  startingCardWaitMs?: number;
}

/** Renders job state into Slack: the card in place and the replies in its thread. */
export class SlackJobNotifier implements JobNotifier, ConversationNotifier {
  constructor(
    private readonly gateway: SlackGateway,
    private readonly outbox: Outbox,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly options: NotifierOptions = {},
  ) {}

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
    await this.owe(
      {
        key: `forwarded:${ref.channelId}:${ref.ts}`,
        target: {
          kind: 'reactions',
          channel: ref.channelId,
          ts: ref.ts,
          names: [FORWARDED_REACTION],
          managed: [FORWARDED_REACTION],
        },
        payload: null,
        priority: 'reply',
      },
      'could not record the forwarded reaction',
    );
  }

  async followUpRefused(ref: MessageRef, error: unknown): Promise<void> {
    await this.owe(
      {
        key: `followup-refused:${ref.channelId}:${ref.ts}`,
        target: { kind: 'post', channel: ref.channelId, threadTs: ref.threadTs },
        payload: followUpRefusedMessage(error, this.clock.now(), this.limits(), this.linkIn(ref.channelId)),
        priority: 'reply',
      },
      'could not say why a follow-up was refused',
    );
  }

  /** Records a delivery; a store failure is logged (these callers have nothing better to do with it). */
  private async owe(delivery: NewDelivery, failure: string): Promise<void> {
    await this.outbox.owe(delivery).catch((error: unknown) => {
      this.logger.warn({ key: delivery.key, error: describeError(error) }, failure);
    });
  }

  async tellAuthor(ref: MessageRef, notice: PrivateNotice): Promise<void> {
    const message = privateNoticeMessage(notice, undefined, this.linkIn(ref.channelId));
    await this.gateway
      .postEphemeral(ref.channelId, ref.userId, message, ref.threadTs)
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
        appId: m.app_id,
        team: m.user_team ?? m.team,
        subtype: m.subtype,
        text: m.text ?? '',
      }));
  }

  async postStartingCard(input: StartingCard): Promise<string> {
    const message = this.startCard(input, { phase: 'starting' }, this.options.followUpsFrom);
    // Owed like every other message (recorded, looked up after an unknown outcome, swept), but waited on:
    // the job needs the card's ts. Each try is its own key: the second follows a join.
    let tries = 0;
    const post = async () => {
      const key = input.cardKey ?? `card:${input.channelId}:${randomUUID()}`;
      tries += 1;
      const card: NewDelivery = {
        key: tries === 1 ? key : `${key}:joined`,
        target: { kind: 'post', channel: input.channelId, threadTs: input.threadTs ?? null },
        payload: message,
        priority: 'reply',
        keepMs: STARTING_CARD_KEEP_MS,
        seq: 0,
      };
      const waitMs = this.options.startingCardWaitMs ?? STARTING_CARD_WAIT_MS;
      const result = await this.outbox.deliver(card, { waitMs });
      if (result.status === 'posted' && result.ts) return result.ts;
      const code = result.status === 'abandoned' ? result.reason : 'card_not_confirmed';
      // Still owed, so it may yet appear: with the state the person is told (not started), never
      // "Starting…" for good. A newer payload replaces one not posted yet and edits one posted meanwhile.
      if (result.status === 'pending')
        await this.owe(
          { ...card, seq: 1, payload: this.notStarted(input, code) },
          'could not mark an unconfirmed card as not started',
        );
      throw new SlackDeliveryError(code, `the job card could not be posted (${code})`);
    };
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

  /** The card of a job that was not started because its card was not confirmed in time. */
  private notStarted(input: StartingCard, code: string): SlackMessage {
    return this.startCard(input, { phase: 'not_started', reason: describeSlackDeliveryFailure(code) });
  }

  /** A card before any job record: starting, or not started. */
  private startCard(input: StartingCard, state: CardState, followUpsFrom?: FollowUpsFrom): SlackMessage {
    const { requesterId, prompt, evidenceRef } = input;
    return jobCardMessage({ requesterId, prompt, ...(evidenceRef && { evidenceRef }), state, followUpsFrom });
  }

  /** Links to a job's page (DOCS_JOB_URL_PATTERN) on its project, else on its channel's or the default. */
  private linkIn(channelId: string | undefined, projectId?: string): (jobId: string) => string | undefined {
    const { projects, jobUrlPattern } = this.options;
    const project =
      projectId ?? (channelId && projects?.projectFor?.(channelId)) ?? projects?.defaultProjectId;
    return (jobId) => jobPageUrl(jobUrlPattern, { projectId: project ?? '', jobId });
  }

  /**
   * Owes the card this record's state: one delivery per card whose latest state wins (the record's version
   * orders states across replicas), a final state ahead of every intermediate one. Resolves once recorded;
   * rejects when the store failed.
   */
  async updateCard(record: JobRecord, now: number): Promise<void> {
    const message = jobCardMessage({
      requesterId: record.requesterId,
      prompt: record.prompt,
      ...(record.evidenceRef === undefined ? {} : { evidenceRef: record.evidenceRef }),
      state: { phase: 'tracked', record, now },
      followUpsFrom: this.options.followUpsFrom,
      jobUrl: this.linkIn(undefined, record.projectId)(record.jobId),
    });
    const priority = record.watching ? 'intermediate' : 'final';
    await this.oweCard(record.channelId, record.cardTs, message, priority, shownOrder(record));
    this.changed(record);
  }

  async tellStartFailed(responseUrl: string, startId: string, error: unknown): Promise<void> {
    const code = (error as { code?: string }).code;
    await this.outbox.owe({
      key: `start-failed:${startId}`,
      target: { kind: 'respond', url: responseUrl },
      payload: { response_type: 'ephemeral', text: describeSlackDeliveryFailure(code) },
      priority: 'reply',
      // A response_url works for 30 minutes.
      keepMs: 60 * 60 * 1000,
    });
  }

  async markCardFailed(input: StartingCard & { cardTs: string; error: unknown }): Promise<void> {
    const link = this.linkIn(undefined, input.projectId);
    const reason = describeDocsFailure(input.error, this.clock.now(), undefined, this.limits(), link);
    const message = this.startCard(input, {
      phase: 'not_started',
      reason,
      reconnect: keyToReconnect(input.error),
    });
    // No job record will ever follow: this state is the card's last.
    await this.oweCard(input.channelId, input.cardTs, message, 'final', Number.MAX_SAFE_INTEGER);
  }

  /**
   * A card's state: one delivery per card, the highest `seq` wins. Rejects when the store failed: the
   * caller (a poll, which is then retried) decides, so a final state is never dropped silently.
   */
  private oweCard(
    channelId: string,
    cardTs: string,
    message: SlackMessage,
    priority: DeliveryPriority,
    seq: number,
  ): Promise<void> {
    return this.outbox.owe({
      key: cardKey(channelId, cardTs),
      target: { kind: 'update', channel: channelId, ts: cardTs },
      payload: message,
      priority,
      seq,
    });
  }

  /**
   * Owes the generation's one terminal reply: recorded once per (job, generation) in the outbox, which posts
   * it (and looks before posting again). Resolves once recorded; rejects when the store failed.
   */
  async postTerminalReply(record: JobRecord, outcome: TerminalOutcome): Promise<void> {
    await this.outbox.owe({
      key: terminalKey(record),
      target: {
        kind: 'post',
        channel: record.channelId,
        threadTs: record.threadTs,
        forUser: record.requesterId,
      },
      payload: terminalReplyMessage(record, outcome, this.clock.now()),
      priority: 'reply',
    });
    this.changed(record);
  }

  /** Owes a thread notice (once per job, generation and kind); rejects when the store failed. */
  async postNotice(record: JobRecord, notice: ThreadNotice): Promise<void> {
    await this.outbox.owe({
      key: `notice:${notice.kind}:${record.jobId}:${record.generation}`,
      target: { kind: 'post', channel: record.channelId, threadTs: record.threadTs },
      payload: noticeMessage(notice, this.linkIn(undefined, record.projectId)(record.jobId)),
      priority: 'reply',
    });
    this.changed(record);
  }
}

/** OAuth mode: the docs platform refused a key a manager connected in Slack. */
const keyToReconnect = (error: unknown) => error instanceof DocsApiError && error.keyConnectedInSlack;
