import { describeError } from '../../../common/errors.js';
import { findSecret } from '../../../common/secret-shapes.js';
import type { AssistantThread } from '../../../jobs/assistant-thread.js';
import type { ConversationOutcome, InboundMessage } from '../../../jobs/conversation-service.js';
import type { JobRecord } from '../../../jobs/domain/job.js';
import { plainLine } from '../../assistant-calls.js';
import { parseAssistantWords } from '../../assistant-words.js';
import { slackToPlainText } from '../../markup.js';
import { assistantTextMessage } from '../../messages/assistant-replies.js';
import { ASSISTANT_STATUS } from '../../messages/assistant-steps.js';
import type { MessageEventArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import { handleInbound, toInbound } from '../events/inbound.js';
import { answerWords } from './answer-words.js';
import { type AskFirstDeps, askFirst } from './ask-first.js';
import { threadOfMessage } from './thread-arrival.js';

export type AssistantMessageDeps = AskFirstDeps &
  Pick<SlackDeps, 'conversations' | 'afterAck'> & {
    jobs: Pick<SlackDeps['jobs'], 'status' | 'claimOnce' | 'confirmOnce' | 'releaseOnce' | 'jobOfThread'>;
  };

/** The title of an assistant thread: the instruction's first words. */
const TITLE_MAX = 80;

/**
 * A message in a DM thread, which Bolt's Assistant routes here. In an assistant thread (one Slack
 * announced with `assistant_thread_started`) the slash commands' words are answered in the thread and
 * anything else goes to the conversation service as an instruction: a new job in this thread, or a
 * follow-up once the thread has one. With no job yet, a question is answered and an instruction is shown
 * back with [Start job] first (`askFirst`). A thread the bot does not know as an assistant thread is an
 * ordinary DM thread and handled as before; a young one's start is waited for first (`threadOfMessage`).
 */
export function assistantUserMessage(deps: AssistantMessageDeps) {
  return async ({ event, body, context }: MessageEventArgs): Promise<void> => {
    const message = toInbound('message', event, body, context);
    deps.afterAck(() => routeAssistantMessage(deps, message));
  };
}

export async function routeAssistantMessage(
  deps: AssistantMessageDeps,
  message: InboundMessage | undefined,
): Promise<void> {
  if (!message) return;
  const { userId, threadTs } = message;
  const fromPerson = userId && userId !== message.botUserId && !message.botId && !message.subtype;
  if (!fromPerson || !threadTs) return handleInbound(deps, message);
  let thread: AssistantThread | undefined;
  try {
    thread = await threadOfMessage(deps, { ...message, threadTs });
  } catch (error) {
    // The conversation service reads the same store and tells the author it cannot act.
    deps.logger.warn({ error: describeError(error) }, 'could not read an assistant thread');
    return handleInbound(deps, message);
  }
  if (!thread) return handleInbound(deps, message);
  // A credential, whatever the words around it, goes to the start and follow-up path, which refuses it
  // privately and keeps nothing: never to a report that could echo it, nor to a confirmation card.
  if (findSecret(message.text)) return handleInbound(deps, message);
  const projectChannelId = thread.contextChannelId ?? message.channelId;
  const plain = slackToPlainText(message.text);
  const words = parseAssistantWords(plain);
  try {
    if (thread.contextChannelId && !(await mayUseContext(deps, message, userId, thread.contextChannelId)))
      return;
    if (words.kind !== 'instruction') {
      await answerWords(deps, { ...message, userId, threadTs }, projectChannelId, words);
      return;
    }
    // Read here, so a store that is away never starts a job unasked: `askFirst` then says it is away.
    const existing = await deps.jobs.jobOfThread(message.channelId, threadTs).catch(() => undefined);
    if (!existing) return await askFirst(deps, { ...message, userId, threadTs }, thread, plain);
    await instruct(deps, { ...message, userId, threadTs }, thread, plain, existing);
  } catch (error) {
    deps.logger.error(
      { channelId: message.channelId, ts: message.ts, error: describeError(error) },
      'could not handle a message in an assistant thread',
    );
  }
}

/**
 * The channel open beside the container picks the docs project of reports and jobs: re-checked (allowlists
 * and membership, cached) on every message, and refused in the thread with what to do.
 */
export async function mayUseContext(
  deps: Pick<AssistantMessageDeps, 'assistant' | 'logger'>,
  message: InboundMessage,
  userId: string,
  contextChannelId: string,
): Promise<boolean> {
  const decision = await deps.assistant.channelAccess.check(userId, contextChannelId, message.botUserId);
  if (decision.ok) return true;
  deps.logger.info({ userId, contextChannelId }, 'refused the channel open beside the assistant');
  await deps.assistant.answer(
    message.channelId,
    message.threadTs ?? message.ts,
    assistantTextMessage(decision.text),
    `assistant-refused:${message.channelId}:${message.ts}`,
  );
  return false;
}

/**
 * An instruction: a new job in this thread (title, "starting" status; after its [Start job]), or a
 * follow-up to its job. Resolves what the conversation service made of it.
 */
export async function instruct(
  deps: Pick<AssistantMessageDeps, 'assistant' | 'jobs' | 'conversations' | 'logger'>,
  message: InboundMessage & { userId: string; threadTs: string },
  thread: AssistantThread,
  plain: string,
  known?: JobRecord,
): Promise<ConversationOutcome> {
  const { channelId, threadTs } = message;
  const status = (text: string) =>
    deps.assistant.calls.setStatus(channelId, threadTs, text).catch((error: unknown) => {
      deps.logger.debug({ error: describeError(error) }, 'could not set assistant status');
    });
  const existing = known ?? (await deps.jobs.jobOfThread(channelId, threadTs).catch(() => undefined));
  await status(existing ? ASSISTANT_STATUS.followUp : ASSISTANT_STATUS.starting);
  const outcome = await deps.conversations.handle({
    ...message,
    assistant: { contextChannelId: thread.contextChannelId },
  });
  const working =
    (outcome.kind === 'started' && outcome.result.ok) ||
    (outcome.kind === 'followed_up' && outcome.result.ok);
  // From here the job notifier keeps the status line. Otherwise nothing new runs: the line goes back to
  // what the thread's job is doing (a redelivered or ignored message must not blank a running job's line).
  // A duplicate of a thread's first instruction: its first delivery is still starting the job.
  const starting = outcome.kind === 'duplicate' && !existing;
  if (!working && !starting)
    await status(existing?.watching ? ASSISTANT_STATUS.waiting : ASSISTANT_STATUS.clear);
  if (outcome.kind === 'started' && outcome.result.ok) {
    await deps.assistant.calls
      .setTitle(channelId, threadTs, plainLine(plain, TITLE_MAX))
      .catch((error: unknown) => {
        deps.logger.debug({ error: describeError(error) }, 'could not set assistant thread title');
      });
  }
  deps.logger.debug({ channelId, ts: message.ts, outcome: outcome.kind }, 'assistant message handled');
  return outcome;
}
