import type { KnownBlock } from '@slack/types';
import { type AgentJob, isTerminal, type JobRecord } from '../../jobs/domain/job.js';
import { escapeMrkdwn, untrustedMrkdwn } from '../markup.js';
import { describeDocsFailure, type HourlyLimits } from './failures.js';
import { formatDuration, mrkdwnLink, repositoryLabel, slackTime } from './format.js';
import { projectPart, pullRequestActions, statusLine, statusWords } from './job-card.js';
import { blockTextLength, fitLink, LIMITS, oneLine, TOTAL_BLOCK_TEXT, truncate } from './limits.js';
import type { SlackMessage } from './types.js';

/** Jobs shown by `/docs-agent list` at most; the rest are counted. */
const MAX_LISTED = 20;

/** A link to a message (the thread's root) that Slack resolves for any workspace member. */
export function threadLink(channelId: string, ts: string): string {
  return `https://slack.com/archives/${encodeURIComponent(channelId)}/p${ts.replace('.', '')}`;
}

/** `/docs-agent list`: the jobs of this channel still being watched. Pure. */
export function jobListMessage(records: readonly JobRecord[], now: number): SlackMessage {
  if (records.length === 0) {
    return {
      text: 'No docs agent jobs are being followed in this channel',
      blocks: [
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: 'No docs agent jobs are being followed in this channel right now. Start one with `/docs-agent &lt;instruction&gt;` or by mentioning me.',
          },
        },
      ],
    };
  }
  const blocks: SlackMessage['blocks'] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*Docs agent jobs in this channel* (${records.length} being followed)`,
      },
    },
  ];
  // Each entry is short by construction (only the labels are shortened, never a link), and the list stops
  // before the total text Slack accepts in one message.
  let used = blockTextLength(blocks);
  let shown = 0;
  for (const record of records.slice(0, MAX_LISTED)) {
    const status = statusLine(record);
    const time = isTerminal(record.status)
      ? `took ${formatDuration(now - record.activeSince)}`
      : `started ${slackTime(record.activeSince)}`;
    const text = [
      `${status.emoji} \`${escapeMrkdwn(oneLine(record.jobId, 100))}\` · *${status.label}* · ${time} · ${mrkdwnLink(threadLink(record.channelId, record.threadTs), 'thread')}`,
      `> ${escapedPreview(record.prompt, 200)}`,
    ].join('\n');
    if (used + text.length > TOTAL_BLOCK_TEXT - 200) break;
    used += text.length;
    shown += 1;
    blocks.push({ type: 'section', text: { type: 'mrkdwn', text } });
  }
  if (records.length > shown) {
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `…and ${records.length - shown} more. Look one up with \`/docs-agent status &lt;job id&gt;\`.`,
        },
      ],
    });
  }
  return {
    text: `${records.length} docs agent job${records.length === 1 ? '' : 's'} being followed in this channel`,
    blocks,
  };
}

/** One line of user text, escaped for mrkdwn, at most `max` characters after escaping (never a cut entity). */
export function escapedPreview(text: string, max: number): string {
  let out = '';
  for (const char of oneLine(text, max)) {
    const escaped = escapeMrkdwn(char);
    if (out.length + escaped.length > max - 1) return `${out}…`;
    out += escaped;
  }
  return out;
}

/** `/docs-agent status <id>`: the job as the platform reports it now, in the card's words. Pure. */
export function jobStatusMessage(
  job: AgentJob,
  record: JobRecord | undefined,
  /** Named only when several docs projects are configured. */
  project?: string,
): SlackMessage {
  const status = statusWords(job.status, job.prLink);
  const lines = [
    `*Job* \`${untrustedMrkdwn(oneLine(job.id, 100))}\`${projectPart(project)}: ${status.emoji} *${status.label}*`,
  ];
  if (job.repository) {
    const label = untrustedMrkdwn(oneLine(repositoryLabel(job.repository), 200));
    lines.push(
      `Repository: ${/^https?:\/\/[^\s<>|]+$/i.test(job.repository) ? fitLink(job.repository, label, 1000) : label}`,
    );
  }
  if (job.ref) lines.push(`Branch: \`${untrustedMrkdwn(oneLine(job.ref, 200))}\``);
  if (job.model) lines.push(`Model: ${untrustedMrkdwn(oneLine(job.model, 100))}`);
  const blocks: KnownBlock[] = [];
  if (job.prLink && job.prLink.length <= 1000)
    lines.push(`Pull request: ${fitLink(job.prLink, job.prLink.slice(0, 200), 1000)}`);
  else if (job.status === 'completed' && !job.prLink)
    lines.push('No pull request: the agent changed no files.');
  const created = job.createdAt ? Date.parse(job.createdAt) : Number.NaN;
  if (Number.isFinite(created)) lines.push(`Started: ${slackTime(created)}`);
  if (record) {
    lines.push(
      `Thread: ${mrkdwnLink(threadLink(record.channelId, record.threadTs), 'open')} · ${record.watching ? 'followed by the bot' : 'no longer followed'}`,
    );
  }
  blocks.push({
    type: 'section',
    text: { type: 'mrkdwn', text: truncate(lines.join('\n'), LIMITS.sectionText) },
  });
  // A link too long for a sentence still reaches the reader, in its own block.
  if (job.prLink && job.prLink.length > 1000) blocks.push(pullRequestActions(job.prLink));
  return { text: `Docs agent job status: ${status.label}`, blocks };
}

/** Why `/docs-agent status <id>` could not show the job. */
export function jobStatusErrorMessage(
  jobId: string,
  error: unknown,
  now: number,
  limits: HourlyLimits = {},
): SlackMessage {
  const code = (error as { code?: unknown } | null)?.code;
  const text =
    code === 'job_not_visible'
      ? `Job \`${escapeMrkdwn(oneLine(jobId, 100))}\` is not visible here: I show a job only in its own channel, to the person who started it, or to a docs-agent admin. Ask in the job's channel, or use \`/docs-agent list\` for this channel's jobs.`
      : code === 'state_unavailable'
        ? "I can't reach my storage right now, so I can't tell whether you may see that job. Try again in a minute."
        : code === 'not_found'
          ? `No job \`${escapeMrkdwn(oneLine(jobId, 100))}\` exists in this docs project. Check the id on the job card (or with \`/docs-agent list\`).`
          : describeDocsFailure(error, now, 'look the job up', limits);
  return {
    text: oneLine(text, LIMITS.fallbackText),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}
