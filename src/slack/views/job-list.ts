import type { AgentJob, JobRecord } from '../../domain/job.js';
import { escapeMrkdwn } from '../markup.js';
import { describeDocsFailure } from './failures.js';
import { formatDuration, mrkdwnLink, repositoryLabel } from './format.js';
import { statusLine } from './job-card.js';
import { LIMITS, oneLine, truncate } from './limits.js';
import type { SlackMessage } from './types.js';

/** Jobs shown by `/docs-agent list` at most; the rest are counted. */
const MAX_LISTED = 20;

/** A link to a message (the thread's root) that Slack resolves for any workspace member. */
export function threadLink(channelId: string, ts: string): string {
  return `https://slack.com/archives/${encodeURIComponent(channelId)}/p${ts.replace('.', '')}`;
}

/** `/docs-agent list`: the jobs of this channel still being watched. Pure. */
export function jobListView(records: readonly JobRecord[], now: number): SlackMessage {
  if (records.length === 0) {
    return {
      text: 'No docs agent jobs are being followed in this channel',
      blocks: [
        {
          type: 'section',
          text: {
            type: 'mrkdwn',
            text: 'No docs agent jobs are being followed in this channel right now. Start one with `/docs-agent <instruction>` or by mentioning me.',
          },
        },
      ],
    };
  }
  const shown = records.slice(0, MAX_LISTED);
  const blocks: SlackMessage['blocks'] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `*Docs agent jobs in this channel* (${records.length} being followed)`,
      },
    },
  ];
  for (const record of shown) {
    const status = statusLine(record);
    const lines = [
      `${status.emoji} \`${escapeMrkdwn(oneLine(record.jobId, 100))}\` · *${status.label}* · ${formatDuration(now - record.activeSince)} · ${mrkdwnLink(threadLink(record.channelId, record.threadTs), 'thread')}`,
      `> ${escapeMrkdwn(oneLine(record.prompt, 150))}`,
    ];
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: truncate(lines.join('\n'), LIMITS.sectionText) },
    });
  }
  if (records.length > shown.length) {
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `…and ${records.length - shown.length} more.` }],
    });
  }
  return {
    text: `${records.length} docs agent job${records.length === 1 ? '' : 's'} being followed in this channel`,
    blocks,
  };
}

/** `/docs-agent status <id>`: the job as the platform reports it now. Pure. */
export function jobStatusView(job: AgentJob, record: JobRecord | undefined): SlackMessage {
  const lines = [
    `*Job* \`${escapeMrkdwn(oneLine(job.id, 100))}\`: *${escapeMrkdwn(oneLine(job.status, 40))}*`,
  ];
  if (job.repository)
    lines.push(`Repository: ${mrkdwnLink(job.repository, oneLine(repositoryLabel(job.repository), 200))}`);
  if (job.ref) lines.push(`Branch: \`${escapeMrkdwn(oneLine(job.ref, 200))}\``);
  if (job.model) lines.push(`Model: ${escapeMrkdwn(oneLine(job.model, 100))}`);
  if (job.prLink) lines.push(`Pull request: ${mrkdwnLink(job.prLink, job.prLink)}`);
  else if (job.status === 'completed') lines.push('No pull request: the agent changed no files.');
  if (job.createdAt) lines.push(`Created: ${escapeMrkdwn(oneLine(job.createdAt, 40))}`);
  if (record) {
    lines.push(
      `Thread: ${mrkdwnLink(threadLink(record.channelId, record.threadTs), 'open')} · ${record.watching ? 'followed by the bot' : 'no longer followed'}`,
    );
  }
  return {
    text: `Docs agent job ${oneLine(job.id, 100)}: ${oneLine(job.status, 40)}`,
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: truncate(lines.join('\n'), LIMITS.sectionText) } },
    ],
  };
}

/** Why `/docs-agent status <id>` could not show the job. */
export function jobStatusErrorView(jobId: string, error: unknown, now: number): SlackMessage {
  const code = (error as { code?: unknown } | null)?.code;
  const text =
    code === 'not_found'
      ? `No job \`${escapeMrkdwn(oneLine(jobId, 100))}\` exists in this docs project. Check the id on the job card (or with \`/docs-agent list\`).`
      : describeDocsFailure(error, now, 'look the job up');
  return {
    text: oneLine(text, LIMITS.fallbackText),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}
