import { describeError } from '../../../common/errors.js';
import type { InboundMessage } from '../../../jobs/conversation-service.js';
import type { AssistantWords } from '../../assistant-words.js';
import { accessDeniedMessage } from '../../command-text.js';
import {
  assistantElsewhereMessage,
  assistantHelpMessage,
  assistantTextMessage,
  myJobsMessage,
} from '../../messages/assistant-replies.js';
import { ASSISTANT_STATUS } from '../../messages/assistant-steps.js';
import { healthReportMessage } from '../../messages/health-report.js';
import { jobStatusErrorMessage, jobStatusMessage } from '../../messages/job-list.js';
import { STATE_UNAVAILABLE_TEXT } from '../../messages/job-replies.js';
import { pageViewsHelpMessage } from '../../messages/page-views-help.js';
import {
  describePageViewsFailure,
  invalidPageViewsCommandMessage,
} from '../../messages/page-views-replies.js';
import { pageViewsReportMessage } from '../../messages/page-views-report.js';
import type { SlackMessage } from '../../messages/types.js';
import { docsHealthHelp } from '../commands/docs-health.js';
import type { AssistantSurface, SlackDeps } from '../deps.js';

export type AnswerWordsDeps = Pick<
  SlackDeps,
  'access' | 'logger' | 'limits' | 'pageViews' | 'health' | 'projects'
> & {
  jobs: Pick<SlackDeps['jobs'], 'status' | 'claimOnce' | 'confirmOnce'>;
  assistant: AssistantSurface;
};

type Words = Exclude<AssistantWords, { kind: 'instruction' }>;

/**
 * Answers the words of the slash commands in the assistant thread, once per message (Slack redelivers
 * events), in the docs project of the channel the user is looking at (`projectChannelId`).
 */
export async function answerWords(
  deps: AnswerWordsDeps,
  message: InboundMessage & { userId: string; threadTs: string },
  projectChannelId: string,
  words: Words,
): Promise<void> {
  const { channelId, threadTs } = message;
  const once = `assistant-words:${message.teamId ?? '-'}:${channelId}:${message.ts}`;
  if (!(await deps.jobs.claimOnce(once))) return;
  const access = deps.access.check(message.userId, channelId);
  const answer = access.ok
    ? await wordsAnswer(deps, message, projectChannelId, words)
    : assistantTextMessage(accessDeniedMessage(access.reason, access.ask));
  const answers = Array.isArray(answer) ? answer : [answer];
  for (const [i, part] of answers.entries())
    await deps.assistant.answer(
      channelId,
      threadTs,
      part,
      `assistant-answer:${channelId}:${message.ts}:${i}`,
    );
  // Recorded in the outbox: a redelivery must not compute the answer again.
  await deps.jobs.confirmOnce(once);
}

async function wordsAnswer(
  deps: AnswerWordsDeps,
  message: InboundMessage & { userId: string; threadTs: string },
  projectChannelId: string,
  words: Words,
): Promise<SlackMessage | SlackMessage[]> {
  const now = Date.now();
  switch (words.kind) {
    case 'help':
      return assistantHelpMessage();
    case 'list':
      try {
        return myJobsMessage(await deps.assistant.listMine(message.teamId, message.userId));
      } catch (error) {
        deps.logger.warn({ error: describeError(error) }, 'could not list jobs for the assistant');
        return assistantTextMessage(STATE_UNAVAILABLE_TEXT);
      }
    case 'status_usage':
      return assistantTextMessage(
        'Usage: `status &lt;job id&gt;`. The job id is on the job card; `list` shows your jobs.',
      );
    case 'status': {
      // Visible as anywhere: a job of this thread (the DM) or of this person, or to an admin.
      const result = await deps.jobs.status(words.jobId, {
        channelId: message.channelId,
        userId: message.userId,
        isAdmin: deps.access.isAdmin(message.userId),
      });
      return result.ok
        ? jobStatusMessage(result.job, result.record, deps.projects?.isMulti ? result.projectId : undefined)
        : jobStatusErrorMessage(words.jobId, result.error, now, deps.limits);
    }
    case 'health':
      return healthAnswer(deps, message, projectChannelId, words.command);
    case 'views':
      return viewsAnswer(deps, message, projectChannelId, words.command);
  }
}

async function healthAnswer(
  deps: AnswerWordsDeps,
  message: { channelId: string; threadTs: string },
  projectChannelId: string,
  command: Extract<Words, { kind: 'health' }>['command'],
): Promise<SlackMessage> {
  if (command.kind === 'help') return assistantTextMessage(docsHealthHelp('health'));
  if (command.kind === 'invalid')
    return assistantTextMessage(invalidPageViewsCommandMessage('health', command.token, command.problem));
  if (command.kind !== 'report') return assistantElsewhereMessage('schedule', '/docs-health');
  if (!deps.health)
    return assistantTextMessage('Docs-health reports are not set up in this app. Ask an admin.');
  const { reports, siteUrl } = deps.health;
  return reading(deps, message, async () => {
    try {
      const report = await reports.report(reports.inChannel(command.request, projectChannelId));
      return healthReportMessage(report, { siteUrl, fixButtons: false });
    } catch (error) {
      deps.logger.info({ error: describeError(error) }, 'docs-health report failed');
      return assistantTextMessage(describePageViewsFailure(error, reports.now(), deps.limits));
    }
  });
}

async function viewsAnswer(
  deps: AnswerWordsDeps,
  message: { channelId: string; threadTs: string },
  projectChannelId: string,
  command: Extract<Words, { kind: 'views' }>['command'],
): Promise<SlackMessage | SlackMessage[]> {
  if (command.kind === 'help') return pageViewsHelpMessage('views');
  if (command.kind === 'invalid')
    return assistantTextMessage(invalidPageViewsCommandMessage('views', command.token, command.problem));
  if (command.kind !== 'report') return assistantElsewhereMessage('schedule', '/docs-views');
  const { analytics, siteUrl } = deps.pageViews;
  const report = await reading(deps, message, async () => {
    try {
      const request = analytics.requestFor(command.params, 'UTC', analytics.now(), projectChannelId);
      return pageViewsReportMessage(await analytics.report(request), { siteUrl, interactive: false });
    } catch (error) {
      deps.logger.info({ error: describeError(error) }, 'page-view report failed');
      return assistantTextMessage(describePageViewsFailure(error, analytics.now(), deps.limits));
    }
  });
  return command.csv ? [assistantElsewhereMessage('csv', '/docs-views'), report] : report;
}

/** The status line while the analytics are read (a cold read can take seconds); the answer clears it. */
async function reading(
  deps: AnswerWordsDeps,
  message: { channelId: string; threadTs: string },
  work: () => Promise<SlackMessage>,
): Promise<SlackMessage> {
  const status = (text: string) =>
    deps.assistant.calls.setStatus(message.channelId, message.threadTs, text).catch((error: unknown) => {
      deps.logger.debug({ error: describeError(error) }, 'could not set assistant status');
    });
  await status(ASSISTANT_STATUS.reading);
  try {
    return await work();
  } finally {
    await status(ASSISTANT_STATUS.clear);
  }
}
