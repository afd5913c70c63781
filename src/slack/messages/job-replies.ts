import { DocsApiError } from '../../common/docs-api-error.js';
import type { PrivateNotice } from '../../jobs/conversation-service.js';
import type { JobRecord } from '../../jobs/domain/job.js';
import type { StartJobResult } from '../../jobs/job-service.js';
import type { TerminalOutcome, ThreadNotice } from '../../jobs/ports.js';
import { accessDeniedMessage } from '../command-text.js';
import {
  DASHBOARD_WORDS,
  describeDocsFailure,
  describeSlackDeliveryFailure,
  type HourlyLimits,
  type JobLink,
} from './failures.js';
import { formatDuration, mrkdwnLink } from './format.js';
import { pullRequestActions, safeId } from './job-card.js';
import { feedbackBlock } from './job-feedback.js';
import { fitLink, LIMITS, oneLine, truncate } from './limits.js';
import { pullRequestName, pullRequestNumber } from './pull-request.js';
import { secretRefusalText } from './secret-notice.js';

/** Longer links get their own block instead of a place in a sentence. */
const INLINE_LINK_MAX = 2000;

import type { SlackMessage } from './types.js';

/** The one reply posted in the job's thread when a run ends. Pure. */
export function terminalReplyMessage(record: JobRecord, outcome: TerminalOutcome, now: number): SlackMessage {
  const who = `<@${safeId(record.requesterId)}>`;
  const took = formatDuration(now - record.activeSince);
  const followUp = record.generation > 1;
  const prName =
    outcome.kind === 'pull_request'
      ? pullRequestName(outcome.prLink, record.pullRequest, INLINE_LINK_MAX)
      : '';
  const prNumber = outcome.kind === 'pull_request' ? pullRequestNumber(outcome.prLink) : undefined;
  let text: string;
  let fallback: string;
  const blocks: SlackMessage['blocks'] = [];
  switch (outcome.kind) {
    case 'pull_request':
      text = followUp
        ? `${who} :white_check_mark: The agent finished the follow-up; pull request ${prName} is ready (took ${took}).`
        : `${who} :white_check_mark: The agent finished and opened pull request ${prName} (took ${took}).`;
      fallback = followUp ? 'The docs agent finished the follow-up' : 'The docs agent opened a pull request';
      if (prNumber) fallback = `${fallback} #${prNumber}`;
      break;
    case 'no_changes':
      text = outcome.previousPrLink
        ? `${who} :white_check_mark: The agent finished without further changes; the ${fitLink(outcome.previousPrLink, 'pull request', INLINE_LINK_MAX)} is unchanged.`
        : `${who} :white_check_mark: The agent finished without changing any files, so no pull request was opened. Reply in this thread with more detail, or start a new job with \`/docs-agent\`.`;
      fallback = 'The docs agent finished without changing any files';
      break;
    case 'failed':
      // The platform says only that the job failed, not why nor what it did before: say what is known.
      text = `${who} :x: The agent stopped with an error, so no pull request was opened. The docs platform does not say why.${record.ref ? ' It may have pushed part of the work to a branch before stopping.' : ''} Try again with *Retry* on the job card or with \`/docs-agent\`, perhaps with a more specific instruction.`;
      fallback = 'The docs agent job failed';
      break;
    case 'archived':
      text = `${who} :file_cabinet: The job was archived on the docs platform, so it will not open a pull request. Start a new job with \`/docs-agent\` if the change is still needed.`;
      fallback = 'The docs agent job was archived';
      break;
  }
  blocks.push({ type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } });
  if (
    outcome.kind === 'no_changes' &&
    outcome.previousPrLink &&
    outcome.previousPrLink.length > INLINE_LINK_MAX
  )
    blocks.push(pullRequestActions(outcome.previousPrLink));
  if (outcome.kind === 'pull_request') {
    blocks.push(pullRequestActions(outcome.prLink));
    fallback = `${fallback}: ${outcome.prLink}`;
    const feedback = feedbackBlock(record.jobId, record.generation);
    if (feedback) blocks.push(feedback);
  }
  // The notification text is also what Slack shows if it refuses the blocks: it keeps who and the link.
  return { text: truncate(`${who} ${fallback}`, LIMITS.messageText), blocks };
}

/** Where to see a job: its page when DOCS_JOB_URL_PATTERN made one, else where its id is and where to look. */
function whereToLook(jobUrl: string | undefined): string {
  return jobUrl
    ? `${mrkdwnLink(jobUrl, 'Open it in the docs dashboard')}.`
    : `Look for it in ${DASHBOARD_WORDS} (the card's *⋯ → Copy job ID* gives its ID).`;
}

/** A thread notice; no job id in it (issue 46): `jobUrl` links the job's page when the pattern is set. */
export function noticeMessage(notice: ThreadNotice, jobUrl?: string): SlackMessage {
  const text =
    notice.kind === 'watch_expired'
      ? `:zzz: I stopped watching this job after ${formatDuration(notice.maxAgeMs)} without a result, so I won't post its pull request here. ${whereToLook(jobUrl)}`
      : ':grey_question: The docs platform no longer knows this job, so I stopped following it.';
  return {
    text:
      notice.kind === 'watch_expired'
        ? 'Stopped watching this docs agent job'
        : 'This docs agent job no longer exists',
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}

/** Why a reply in a job's thread did not reach the agent, and what to do. Posted in the thread. */
export function followUpRefusedMessage(
  error: unknown,
  now: number,
  limits: HourlyLimits = {},
  jobLink?: JobLink,
): SlackMessage {
  let text: string;
  if (error instanceof DocsApiError && error.code === 'not_found') {
    text =
      ':grey_question: The docs platform no longer knows this job, so your reply was not passed on. Start a new job with `/docs-agent` or by mentioning me.';
  } else if (error instanceof DocsApiError && error.code === 'unavailable') {
    text =
      ":warning: The docs platform is down or did not answer in time, so I can't tell whether the agent got your reply. Wait a few minutes and check this thread before sending it again.";
  } else {
    text = `:warning: ${describeDocsFailure(error, now, 'pass your reply to the agent', limits, jobLink)}`;
  }
  return {
    text: 'Your reply did not reach the docs agent',
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } }],
  };
}

/** Said wherever a Redis (state store) failure stops a request: nothing happened; retry shortly. */
export const STATE_UNAVAILABLE_TEXT =
  ":warning: I can't reach my storage right now, so nothing was started or sent. Try again in a minute.";

/** A follow-up the agent accepted whose new run the bot could not record (its state store kept failing). */
function followUpUnrecordedText(commandName: string, jobUrl: string | undefined): string {
  const where = jobUrl
    ? mrkdwnLink(jobUrl, 'in the docs dashboard')
    : `with \`${commandName} status\` and the job ID from the card's *⋯ → Copy job ID*, or in ${DASHBOARD_WORDS}`;
  return `:warning: The docs agent got your reply, but I couldn't record its new run (my storage failed), so I may not post its result in this thread. Don't send the reply again: in a few minutes, check the job ${where}.`;
}

/**
 * What to tell the requester privately when a job from a form did not start and its card cannot say so
 * (the store was down, or the card itself was refused); undefined when the card tells the story.
 */
export function startFailureNotice(result: StartJobResult): string | undefined {
  if (result.ok) return undefined;
  if (result.stage === 'state') return STATE_UNAVAILABLE_TEXT;
  if (result.stage === 'card') return describeSlackDeliveryFailure((result.error as { code?: string }).code);
  if (result.stage === 'secret') return secretRefusalText(result.kind);
  return undefined;
}

/** Answers only the author of a message sees (ephemeral). */
export function privateNoticeMessage(
  notice: PrivateNotice,
  commandName = '/docs-agent',
  jobLink?: JobLink,
): SlackMessage {
  let text: string;
  switch (notice.kind) {
    case 'access_denied':
      text = accessDeniedMessage(notice.reason, notice.ask);
      break;
    case 'requester_only':
      text = `Only <@${safeId(notice.requesterId)}>, who started this job, can send it follow-ups. Start a reply with \`(aside)\` or \`//\` to talk in the thread, or start your own job.`;
      break;
    case 'too_long':
      text = `Your message is ${notice.length.toLocaleString('en-US')} characters long; the limit is ${notice.max.toLocaleString('en-US')}, so I sent nothing to the agent. Shorten it (link to a doc or issue instead of pasting it) and try again.`;
      break;
    case 'state_unavailable':
      text = STATE_UNAVAILABLE_TEXT;
      break;
    case 'follow_up_unrecorded':
      text = followUpUnrecordedText(commandName, jobLink?.(notice.jobId));
      break;
    case 'secret':
      text = secretRefusalText(notice.secret);
      break;
    case 'empty':
      text = `Tell me what to change in the docs, for example: _@docs-agent Document the new 429 response on the jobs API_. See \`${commandName} help\` for more.`;
      break;
  }
  return {
    text: oneLine(text, LIMITS.fallbackText),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}
