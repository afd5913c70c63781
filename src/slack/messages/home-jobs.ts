import type { KnownBlock, Overflow } from '@slack/types';
import type { JobRecord } from '../../jobs/domain/job.js';
import { formatCount } from '../copy/counts.js';
import { untrustedMrkdwn } from '../markup.js';
import { mrkdwnLink, slackTime } from './format.js';
import { statusLine } from './job-card.js';
import { PLAIN_JOB_ID } from './job-card-actions.js';
import { threadLink } from './job-list.js';
import { LIMITS, oneLine, truncate } from './limits.js';
import { pullRequestStateLine } from './pull-request.js';

/** The ⋯ menu on each of Home's jobs: Open thread, Open in dashboard (links), Stop following. */
export const HOME_JOB_MENU_ACTION = 'home_job_menu';
/** Home lists at most this many running jobs, then this many of the latest that ended. */
export const HOME_JOB_LIMITS = { running: 10, recent: 10 } as const;

const THREAD_OPTION = 'thread';
const DASHBOARD_OPTION = 'dashboard';
const STOP_PREFIX = 'stop:';

/** The Stop following option's value: the job's id (a plain id only; else no option is offered). */
export function homeStopValue(jobId: string): string | undefined {
  return PLAIN_JOB_ID.test(jobId) ? `${STOP_PREFIX}${jobId}` : undefined;
}

/** The job id of a Stop following click, if the value is one (text from outside: a plain id only). */
export function parseHomeStopValue(value: string | undefined): string | undefined {
  if (!value?.startsWith(STOP_PREFIX)) return undefined;
  const jobId = value.slice(STOP_PREFIX.length);
  return PLAIN_JOB_ID.test(jobId) ? jobId : undefined;
}

export interface HomeJobsInput {
  userId: string;
  jobs: JobRecord[];
  /** The job's page on the docs dashboard (DOCS_JOB_URL_PATTERN); absent or undefined: no such option. */
  jobPage?: ((job: JobRecord) => string | undefined) | undefined;
}

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } };
}

function note(text: string): KnownBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) }] };
}

/** The ⋯ menu of one job: links first, then Stop following while the job is followed. */
export function homeJobMenu(job: JobRecord, jobPage: HomeJobsInput['jobPage']): Overflow {
  const option = (text: string, value: string, url?: string) => ({
    text: { type: 'plain_text' as const, text },
    value,
    ...(url ? { url } : {}),
  });
  const page = jobPage?.(job);
  const stop = job.watching ? homeStopValue(job.jobId) : undefined;
  return {
    type: 'overflow',
    action_id: HOME_JOB_MENU_ACTION,
    options: [
      option('Open thread', THREAD_OPTION, threadLink(job.channelId, job.threadTs)),
      ...(page ? [option('Open in dashboard', DASHBOARD_OPTION, page)] : []),
      ...(stop ? [option('Stop following', stop)] : []),
    ],
  };
}

function jobSection(job: JobRecord, jobPage: HomeJobsInput['jobPage']): KnownBlock {
  const status = statusLine(job);
  const links = [
    mrkdwnLink(threadLink(job.channelId, job.threadTs), 'thread'),
    ...(job.prLink ? [mrkdwnLink(job.prLink, 'pull request')] : []),
  ].join(' · ');
  const pullRequest = pullRequestStateLine(job.pullRequest);
  const lines = [
    `${status.emoji} *${status.label}*`,
    ...(pullRequest ? [pullRequest] : []),
    `> ${untrustedMrkdwn(oneLine(job.prompt, 200))}`,
    `${slackTime(job.createdAt)} in <#${job.channelId}> · ${links}`,
  ];
  return {
    type: 'section',
    text: { type: 'mrkdwn', text: truncate(lines.join('\n'), LIMITS.sectionText) },
    accessory: homeJobMenu(job, jobPage),
  };
}

/**
 * Home's jobs: the user's own running jobs, then the last ten that ended, each with its ⋯ menu. At most
 * 2 + HOME_JOB_LIMITS.running + HOME_JOB_LIMITS.recent + 2 blocks.
 */
export function homeJobBlocks(input: HomeJobsInput): KnownBlock[] {
  const own = input.jobs
    .filter((job) => job.requesterId === input.userId)
    .sort((a, b) => b.createdAt - a.createdAt || b.jobId.localeCompare(a.jobId));
  if (own.length === 0)
    return [
      section('*Your jobs*'),
      note(
        'You have not started a job yet. Use *New job*, `/docs-agent`, or "Send to docs agent" on a message.',
      ),
    ];
  const running = own.filter((job) => job.watching);
  const ended = own.filter((job) => !job.watching);
  const blocks: KnownBlock[] = [];
  if (running.length > 0) {
    blocks.push(section(`*Running now* (${formatCount(running.length)})`));
    for (const job of running.slice(0, HOME_JOB_LIMITS.running)) blocks.push(jobSection(job, input.jobPage));
    const hidden = running.length - HOME_JOB_LIMITS.running;
    if (hidden > 0) blocks.push(note(`…and ${formatCount(hidden)} more running`));
  }
  if (ended.length > 0) {
    blocks.push(section('*Your latest jobs*'));
    for (const job of ended.slice(0, HOME_JOB_LIMITS.recent)) blocks.push(jobSection(job, input.jobPage));
  }
  return blocks;
}

/** Agent jobs started this hour against the hourly limit (all projects together). */
export interface HomeUsage {
  used: number;
  limit: number;
}

/** "Usage this hour": "3 of 20 agent jobs this hour", for everyone. */
export function homeUsageBlocks(usage: HomeUsage | undefined): KnownBlock[] {
  if (!usage) return [];
  const used = Math.min(Math.max(0, usage.used), usage.limit);
  const words = usage.limit === 1 ? 'agent job' : 'agent jobs';
  return [
    section(`*Usage this hour*\n${formatCount(used)} of ${formatCount(usage.limit)} ${words} this hour`),
  ];
}

/** What came of a Stop following click on Home. */
export type HomeStopOutcome =
  | { kind: 'stopped'; channelId: string }
  | { kind: 'not_watched' | 'unknown' | 'failed' }
  | { kind: 'refused'; requesterId: string };

/** The answer to a Stop following click, in the person's app DM. */
export function homeStopText(outcome: HomeStopOutcome): string {
  switch (outcome.kind) {
    case 'stopped':
      return `:octagonal_sign: I stopped following your job in <#${outcome.channelId}>. The docs platform can't cancel a running agent job, so it may still finish; its card there says I stopped following.`;
    case 'not_watched':
      return ':information_source: This job had already ended or was stopped before, so there was nothing to stop.';
    case 'unknown':
      return 'I no longer know this job (jobs are kept for 30 days), so there was nothing to stop.';
    case 'refused':
      return `I did not stop following this job: only the person who started it (<@${outcome.requesterId}>) or a docs-agent admin can. Ask them to.`;
    case 'failed':
      return ":warning: I couldn't stop following this job (my storage did not answer), so its progress and result may still be posted. Try again from my Home tab in a minute.";
  }
}
