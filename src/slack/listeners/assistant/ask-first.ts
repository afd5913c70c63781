import { randomUUID } from 'node:crypto';
import { describeError } from '../../../common/errors.js';
import { parseHealthCommand } from '../../../insights/health/health-reports.js';
import { parsePageViewsCommand } from '../../../insights/ranges/grammar.js';
import {
  type AssistantThread,
  PENDING_INSTRUCTION_TTL_MS,
  PENDING_TEXT_MAX,
} from '../../../jobs/assistant-thread.js';
import type { InboundMessage } from '../../../jobs/conversation-service.js';
import { replyIntent } from '../../../jobs/domain/reply-intent.js';
import { assistantQuestion } from '../../assistant-questions.js';
import { accessDeniedMessage } from '../../command-text.js';
import {
  acknowledgedMessage,
  type ConfirmProject,
  confirmationCard,
} from '../../messages/assistant-confirm.js';
import { assistantTextMessage } from '../../messages/assistant-replies.js';
import { STATE_UNAVAILABLE_TEXT } from '../../messages/job-replies.js';
import type { SlackMessage } from '../../messages/types.js';
import { type AnswerWordsDeps, answerWords } from './answer-words.js';

export type AskFirstDeps = AnswerWordsDeps & {
  jobs: AnswerWordsDeps['jobs'] & { releaseOnce(key: string): Promise<void> };
};

type ThreadMessage = InboundMessage & { userId: string; threadTs: string };

/**
 * A message in an assistant thread that has no job yet and is not the slash commands' words. A question is
 * answered (the page-view or health report, help, or an offer to start a job); a thanks gets a short reply;
 * anything else is shown back on a confirmation card: nothing starts until its [Start job]. The instruction
 * is kept in the state store under an id the buttons carry (never the text). Once per message.
 */
export async function askFirst(
  deps: AskFirstDeps,
  message: ThreadMessage,
  thread: AssistantThread,
  plain: string,
): Promise<void> {
  const { channelId, threadTs } = message;
  const projectChannelId = thread.contextChannelId ?? channelId;
  const question = assistantQuestion(plain);
  if (question === 'views' || question === 'health' || question === 'help') {
    const words =
      question === 'help'
        ? ({ kind: 'help' } as const)
        : question === 'views'
          ? ({ kind: 'views', command: parsePageViewsCommand('') } as const)
          : ({ kind: 'health', command: parseHealthCommand('') } as const);
    await answerWords(deps, message, projectChannelId, words);
    return;
  }
  const once = `assistant-ask:${message.teamId ?? '-'}:${channelId}:${message.ts}`;
  if (!(await deps.jobs.claimOnce(once))) return;
  let answer: SlackMessage;
  try {
    answer = await askFirstAnswer(deps, message, projectChannelId, plain, question === 'other');
  } catch (error) {
    deps.logger.warn({ channelId, error: describeError(error) }, 'could not keep an instruction to confirm');
    await deps.jobs.releaseOnce(once).catch(() => undefined);
    answer = assistantTextMessage(STATE_UNAVAILABLE_TEXT);
  }
  await deps.assistant.answer(channelId, threadTs, answer, `assistant-ask:${channelId}:${message.ts}`);
  await deps.jobs.confirmOnce(once);
  deps.logger.debug({ channelId, ts: message.ts, question }, 'assistant message answered before any job');
}

async function askFirstAnswer(
  deps: AskFirstDeps,
  message: ThreadMessage,
  projectChannelId: string,
  plain: string,
  question: boolean,
): Promise<SlackMessage> {
  const access = deps.access.check(message.userId, message.channelId);
  if (!access.ok) return assistantTextMessage(accessDeniedMessage(access.reason, access.ask));
  if (replyIntent(message.text, message.botUserId) === 'acknowledgement') return acknowledgedMessage();
  const id = randomUUID();
  await deps.assistant.threads.savePending(
    {
      id,
      teamId: message.teamId,
      channelId: message.channelId,
      threadTs: message.threadTs,
      messageTs: message.ts,
      userId: message.userId,
      text: message.text.slice(0, PENDING_TEXT_MAX),
      ...(message.botUserId ? { botUserId: message.botUserId } : {}),
    },
    PENDING_INSTRUCTION_TTL_MS,
  );
  return confirmationCard(id, plain, await projectOf(deps, message, projectChannelId), question);
}

/** The docs project a job here would act on, and a repository the bot has seen for it (best effort). */
export async function projectOf(
  deps: Pick<AskFirstDeps, 'projects' | 'assistant' | 'logger'>,
  who: { teamId: string | null; userId: string },
  projectChannelId: string,
): Promise<ConfirmProject> {
  const projectId = deps.projects?.projectFor(projectChannelId);
  const records = await deps.assistant.listMine(who.teamId, who.userId).catch((error: unknown) => {
    deps.logger.debug({ error: describeError(error) }, 'could not read recent jobs for a repository');
    return [];
  });
  const sameProject = records.find(
    (r) => r.repository && (!deps.projects?.isMulti || r.projectId === projectId),
  );
  return {
    ...(projectId ? { projectId } : {}),
    ...(sameProject?.repository ? { repository: sameProject.repository } : {}),
  };
}
