import type { AccessPolicy } from '../../common/access-policy.js';
import { describeError, errorCode } from '../../common/errors.js';
import { LazyMap } from '../../common/lazy-collections.js';
import type { Logger } from '../../common/logger.js';
import { type InboundMessage, isThreadReply, messageKey, refOf } from '../domain/inbound-message.js';
import type { JobRecord } from '../domain/job.js';
import { followUpPrompt, isAside, isBlank, mentionsUser, stripMention } from '../domain/message-text.js';
import { readsAsInstruction } from '../domain/reply-intent.js';
import type { ConversationNotifier, JobStore, MessageText } from '../ports.js';
import type { FollowUpRequest, FollowUpResult } from './follow-up.js';
import type { StartJobRequest, StartJobResult } from './start-job.js';
import { threadContext } from './thread-context.js';

/** The agent-job use cases a conversation drives (the JobService facade in production). */
export interface ConversationJobs {
  start(request: StartJobRequest): Promise<StartJobResult>;
  followUp(request: FollowUpRequest): Promise<FollowUpResult>;
  jobOfThread(channelId: string, threadTs: string): Promise<JobRecord | undefined>;
}

export interface ConversationServiceDeps {
  jobs: ConversationJobs;
  store: Pick<JobStore, 'claim' | 'release' | 'mark'>;
  notifier: ConversationNotifier;
  text: MessageText;
  access: AccessPolicy;
  followUpsFrom: 'anyone' | 'requester';
  maxPromptChars: number;
  logger: Logger;
  /** How long a message's identity blocks another delivery of it (default 1 hour; Slack retries ~5 min). */
  dedupeTtlMs?: number;
}

export type ConversationOutcome =
  | { kind: 'ignored'; why: IgnoredBecause }
  | { kind: 'duplicate' }
  | { kind: 'denied' }
  | { kind: 'rejected' }
  /** The state store did not answer; the author was told (when the message was for the bot). */
  | { kind: 'state_unavailable'; told: boolean }
  | { kind: 'started'; result: StartJobResult }
  | { kind: 'followed_up'; result: FollowUpResult };

export type IgnoredBecause =
  | 'bot'
  | 'subtype'
  | 'no_user'
  | 'not_addressed'
  | 'aside'
  /** A reply in a job's thread that acknowledges ("thanks!", 👍) or begins by addressing someone else. */
  | 'chatter'
  | 'not_requester'
  | 'not_allowed'
  | 'empty';

/** How long a message being handled is held before a redelivery may take it (its handler died). */
const IN_PROGRESS_MS = 2 * 60 * 1000;
const DEFAULT_DEDUPE_TTL_MS = 60 * 60 * 1000;

/**
 * One inbound message: a new job (mention, DM), a follow-up (reply in a job's thread), or nothing (asides,
 * other people's conversation). Acted on at most once: its identity is claimed when it is processed, so
 * retries, redeliveries with a new event_id and the app_mention/message twins do nothing the second time.
 */
export class HandleInboundMessage {
  private readonly dedupeTtlMs: number;

  /**
   * Messages already told that the state store is down. With the store down its dedupe claims cannot
   * work, so this process remembers (briefly) whom it told, so a message's twin events answer once.
   */
  private readonly toldUnavailable = new LazyMap<string, number>();

  constructor(private readonly deps: ConversationServiceDeps) {
    this.dedupeTtlMs = deps.dedupeTtlMs ?? DEFAULT_DEDUPE_TTL_MS;
  }

  /**
   * A state-store failure is never taken for "no job here": the author is told the bot cannot reach its
   * state and that nothing was started or sent.
   */
  async run(message: InboundMessage): Promise<ConversationOutcome> {
    try {
      const outcome = await this.handleOnce(message);
      if (outcome.kind === 'started' && !outcome.result.ok && outcome.result.stage === 'state') {
        return await this.stateUnavailable(message, outcome.result.error);
      }
      return outcome;
    } catch (error) {
      if (errorCode(error) === 'state_unavailable') return this.stateUnavailable(message, error);
      throw error;
    }
  }

  private async stateUnavailable(message: InboundMessage, error: unknown): Promise<ConversationOutcome> {
    this.deps.logger.warn(
      { channelId: message.channelId, ts: message.ts, error: describeError(error) },
      'state store unavailable; message not acted on',
    );
    const userId = message.userId;
    if (!userId || !shouldTellUnavailable(message)) return { kind: 'state_unavailable', told: false };
    const key = messageKey(message);
    const now = Date.now();
    for (const [k, at] of this.toldUnavailable) if (now - at > 10 * 60_000) this.toldUnavailable.delete(k);
    if (this.toldUnavailable.has(key)) return { kind: 'state_unavailable', told: false };
    this.toldUnavailable.set(key, now);
    await this.deps.notifier.tellAuthor(refOf(message, userId), { kind: 'state_unavailable' });
    return { kind: 'state_unavailable', told: true };
  }

  /** Over the length limit: the author is told (with the length and the limit). */
  private async tooLong(ref: ReturnType<typeof refOf>, prompt: string): Promise<boolean> {
    const length = Array.from(prompt).length;
    if (length <= this.deps.maxPromptChars) return false;
    await this.deps.notifier.tellAuthor(ref, { kind: 'too_long', length, max: this.deps.maxPromptChars });
    return true;
  }

  private async handleOnce(message: InboundMessage): Promise<ConversationOutcome> {
    const { jobs, access, logger, notifier, text } = this.deps;
    if (message.botId) return ignored('bot');
    if (message.subtype) return ignored('subtype');
    const userId = message.userId;
    if (!userId || userId === message.botUserId) return ignored('no_user');

    const inThread = isThreadReply(message);
    const mentioned = message.kind === 'app_mention' || mentionsUser(message.text, message.botUserId);
    const addressed = mentioned || message.channelType === 'im';
    const stripped = stripMention(message.text, message.botUserId).trim();
    if (isAside(stripped)) return ignored('aside');

    const record = inThread ? await jobs.jobOfThread(message.channelId, message.threadTs!) : undefined;
    if (!record && !addressed) return ignored('not_addressed');
    // A reply that only acknowledges, or talks to someone else, is people talking: the agent is not run.
    if (record && !mentioned && !readsAsInstruction(stripped, message.botUserId)) return ignored('chatter');

    const ref = refOf(message, userId);

    // Who may do what: a plain reply from someone who may not steer the job is just conversation.
    const allowed = access.check(userId, message.channelId);
    const requesterOnly = record && this.deps.followUpsFrom === 'requester' && userId !== record.requesterId;
    if ((!allowed.ok || requesterOnly) && !mentioned && record) {
      return ignored(allowed.ok ? 'not_requester' : 'not_allowed');
    }

    // From here on the message is acted on (even if only to answer it): once per message identity.
    // Start and follow-up share the key: which one a message becomes depends on state that the first
    // delivery changes (a mention in an ordinary thread makes it a job thread).
    const key = `dedupe:prompt:${messageKey(message)}`;
    // Claimed for a short while only ("someone is on it"), and marked for the full window just before the
    // docs API is called: a replica that dies before that leaves the message to Slack's next retry.
    if (!(await this.deps.store.claim(key, Math.min(IN_PROGRESS_MS, this.dedupeTtlMs)))) {
      logger.debug({ channelId: message.channelId, ts: message.ts }, 'duplicate delivery ignored');
      return { kind: 'duplicate' };
    }
    let reachedApi = false;
    try {
      if (!allowed.ok) {
        await notifier.tellAuthor(ref, {
          kind: 'access_denied',
          reason: allowed.reason,
          ...(allowed.ask ? { ask: allowed.ask } : {}),
        });
        return { kind: 'denied' };
      }
      if (record && requesterOnly) {
        await notifier.tellAuthor(ref, { kind: 'requester_only', requesterId: record.requesterId });
        return { kind: 'denied' };
      }
      // Checked before any name is looked up: a message is refused without spending Slack calls on it.
      const unresolved = text.toPlainTextWithoutNames(stripped).trim();
      if (isBlank(unresolved)) {
        // Said privately in a job thread too: a bare mention or invisible-only text got no answer before.
        await notifier.tellAuthor(ref, { kind: 'empty' });
        return { kind: 'rejected' };
      }
      if (await this.tooLong(ref, unresolved)) return { kind: 'rejected' };
      const prompt = (await text.toPlainText(stripped)).trim();
      // Names are longer than ids: the resolved text is checked again.
      if (await this.tooLong(ref, prompt)) return { kind: 'rejected' };

      if (record) {
        const author = await text.displayName(userId);
        await this.deps.store.mark(key, this.dedupeTtlMs);
        reachedApi = true;
        const result = await jobs.followUp({
          jobId: record.jobId,
          prompt: followUpPrompt(author, prompt),
          userId,
        });
        if (result.ok) {
          await notifier.markForwarded(ref);
        } else if (result.reason === 'refused') {
          await notifier.followUpRefused(ref, result.error);
        } else if (result.reason === 'secret') {
          await notifier.tellAuthor(ref, { kind: 'secret', secret: result.kind });
        } else if (result.reason === 'not_recorded') {
          // No 👀: that says "the bot follows this"; say plainly what happened instead.
          await notifier.tellAuthor(ref, { kind: 'follow_up_unrecorded', jobId: record.jobId });
        } else {
          logger.warn({ jobId: record.jobId }, 'job of this thread is no longer in the store');
        }
        return { kind: 'followed_up', result };
      }

      // An assistant thread is a conversation with the bot itself: nothing in it is someone else's context.
      const context =
        inThread && !message.assistant ? await threadContext(this.deps, message, ref.threadTs) : undefined;
      await this.deps.store.mark(key, this.dedupeTtlMs);
      reachedApi = true;
      const result = await jobs.start({
        teamId: message.teamId,
        channelId: message.channelId,
        threadTs: ref.threadTs,
        requesterId: userId,
        prompt,
        ...(context ? { context } : {}),
        origin: message.assistant ? 'assistant' : message.channelType === 'im' ? 'dm' : 'mention',
        ...(message.assistant?.contextChannelId
          ? { projectChannelId: message.assistant.contextChannelId }
          : {}),
        sourceTs: message.ts,
      });
      if (!result.ok && result.stage === 'secret')
        await notifier.tellAuthor(ref, { kind: 'secret', secret: result.kind });
      if (!result.ok && result.stage === 'card') {
        // Nothing reached the docs API and nobody saw anything: let a redelivery try again.
        await this.deps.store.release(key).catch(() => undefined);
        logger.warn(
          { channelId: message.channelId, error: describeError(result.error) },
          'could not post job card for a mention or DM',
        );
      }
      return { kind: 'started', result };
    } catch (error) {
      // Failed before the docs API was called (state store, Slack reads): a redelivery may process it.
      if (!reachedApi) await this.deps.store.release(key).catch(() => undefined);
      throw error;
    }
  }
}

/**
 * Whether a message the bot could not look up was meant for it: a DM, a mention, or a reply in a thread
 * the bot started (its card is the root). A reply in someone else's thread may be plain conversation, and
 * without state it cannot be told from a follow-up, so it is only logged. For a channel mention the
 * `app_mention` event answers (its `message` twin may reach another replica).
 */
export function shouldTellUnavailable(message: InboundMessage): boolean {
  if (message.botId || message.subtype || message.userId === message.botUserId) return false;
  if (isAside(stripMention(message.text, message.botUserId))) return false;
  if (isThreadReply(message) && !readsAsInstruction(message.text, message.botUserId)) return false;
  if (message.channelType === 'im') return message.kind === 'message';
  if (message.kind === 'app_mention') return true;
  if (mentionsUser(message.text, message.botUserId)) return false;
  return (
    isThreadReply(message) && message.botUserId !== undefined && message.parentUserId === message.botUserId
  );
}

function ignored(why: IgnoredBecause): ConversationOutcome {
  return { kind: 'ignored', why };
}
