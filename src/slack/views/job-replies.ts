import type { JobRecord } from '../../domain/job.js';
import type { TerminalOutcome, ThreadNotice } from '../../services/ports.js';
import { escapeMrkdwn } from '../markup.js';
import { formatDuration, mrkdwnLink } from './format.js';
import { safeId } from './job-card.js';
import { LIMITS, oneLine, truncate } from './limits.js';
import type { SlackMessage } from './types.js';

/** The one reply posted in the job's thread when a run ends. Pure. */
export function terminalReplyView(record: JobRecord, outcome: TerminalOutcome, now: number): SlackMessage {
  const who = `<@${safeId(record.requesterId)}>`;
  const took = formatDuration(now - record.activeSince);
  const jobRef = `\`${escapeMrkdwn(oneLine(record.jobId, 100))}\``;
  let text: string;
  let fallback: string;
  const blocks: SlackMessage['blocks'] = [];
  switch (outcome.kind) {
    case 'pull_request':
      text = `${who} :white_check_mark: The agent finished and opened a pull request (took ${took}).`;
      fallback = 'The docs agent opened a pull request';
      break;
    case 'no_changes':
      text = outcome.previousPrLink
        ? `${who} :white_check_mark: The agent finished without further changes; the ${mrkdwnLink(outcome.previousPrLink, 'pull request')} is unchanged.`
        : `${who} :white_check_mark: The agent finished without changing any files, so no pull request was opened. Reply in this thread with more detail, or start a new job with \`/docs-agent\`.`;
      fallback = 'The docs agent finished without changing any files';
      break;
    case 'failed':
      text = `${who} :x: The agent hit an unrecoverable error and stopped (job ${jobRef}). Nothing was changed in your docs. Try again with \`/docs-agent\`, perhaps with a more specific instruction; if it keeps failing, look the job up in the docs dashboard.`;
      fallback = 'The docs agent job failed';
      break;
    case 'archived':
      text = `${who} :file_cabinet: The job was archived on the docs platform (job ${jobRef}), so it will not open a pull request. Start a new job with \`/docs-agent\` if the change is still needed.`;
      fallback = 'The docs agent job was archived';
      break;
  }
  blocks.push({ type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } });
  if (outcome.kind === 'pull_request') {
    blocks.push({
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: 'open_pull_request',
          text: { type: 'plain_text', text: 'View pull request', emoji: true },
          url: outcome.prLink,
          style: 'primary',
        },
      ],
    });
    const details = [`Job ${jobRef}`];
    if (record.ref) details.push(`branch \`${escapeMrkdwn(oneLine(record.ref, 200))}\``);
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: truncate(details.join(' · '), LIMITS.sectionText) }],
    });
    fallback = `${fallback}: ${outcome.prLink}`;
  }
  return { text: fallback, blocks };
}

export function noticeView(record: JobRecord, notice: ThreadNotice): SlackMessage {
  const jobRef = `\`${escapeMrkdwn(oneLine(record.jobId, 100))}\``;
  const text =
    notice.kind === 'watch_expired'
      ? `:zzz: I stopped watching job ${jobRef} after ${formatDuration(notice.maxAgeMs)} without a result, so I won't post its pull request here. Check it in the docs dashboard.`
      : `:grey_question: The docs platform no longer knows job ${jobRef}, so I stopped following it.`;
  return {
    text:
      notice.kind === 'watch_expired'
        ? 'Stopped watching this docs agent job'
        : 'This docs agent job no longer exists',
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}
