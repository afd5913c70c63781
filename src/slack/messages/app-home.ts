import type { HomeView, KnownBlock } from '@slack/types';
import type { JobRecord } from '../../jobs/domain/job.js';
import type { MonthFeedback } from '../../jobs/job-feedback.js';
import { PRODUCT_NAME } from '../copy/product-name.js';
import { escapeMrkdwn } from '../markup.js';
import { firstRunBlocks } from './first-run.js';
import { slackTime } from './format.js';
import { homeAlertBlocks } from './home-alerts-form.js';
import { type HomeJobsInput, type HomeUsage, homeJobBlocks, homeUsageBlocks } from './home-jobs.js';
import { homeWeeklyBlocks } from './home-schedules-form.js';
import { type HomeThisWeek, homeReportButtons, homeThisWeekBlocks } from './home-this-week.js';
import { LIMITS, oneLine, truncate } from './limits.js';
import { HOME_SETTINGS_ACTION, type HomeSettings, homeSettingsBlocks } from './project-settings.js';

/** The Home button that opens the job modal (the same modal as the message shortcut). */
export const HOME_NEW_JOB_ACTION = 'home_new_job';

/** Slack allows 100 blocks in a Home view; these caps keep every section visible within them. */
export const HOME_LIMITS = { blocks: 100, schedules: 25, budgets: 10 } as const;

export interface HomeSchedule {
  channelId: string;
  /** Croner pattern and zone as the schedule stores them. */
  cron: string;
  timeZone: string;
  nextRunAt?: number;
  projectId?: string;
  /** What the schedule posts (e.g. page views, docs health), when schedules say it. */
  kind?: string;
  /** The same as the store names it (the ⋯ menu's Edit and Remove find the schedule by it). */
  scheduleKind?: 'page_views' | 'health';
}

/** A channel the user subscribed to docs-health alerts. */
export interface HomeAlertChannel {
  channelId: string;
  sensitivity: string;
}

export interface HomeBudget {
  /** e.g. "Agent jobs in proj_a" or "Page-view queries". */
  label: string;
  left: number;
  limit: number;
  resetsAt?: number;
}

/** No job id, model, branch or project id in Home (issue 46): the channel says where a job or schedule is. */
export interface AppHomeInput {
  userId: string;
  teamId?: string | null;
  /** The user's jobs; anything started by someone else is dropped here as well, Home being private. */
  jobs: JobRecord[];
  schedules: HomeSchedule[];
  /** The hourly budgets, for managers only (an operator's figures); absent: no budget section. */
  budgets?: HomeBudget[] | undefined;
  /** This month's ratings of pull requests (the feedback buttons), everyone's; absent when unknown. */
  feedback?: MonthFeedback;
  /** Channels the user subscribed to docs-health alerts; absent: no alert section. */
  alerts?: HomeAlertChannel[];
  /** OAuth mode: docs projects (admins), or the prompt to connect one; absent: no Settings section. */
  settings?: HomeSettings;
  /** A job's page on the docs dashboard (DOCS_JOB_URL_PATTERN); absent: its menus offer no such link. */
  jobPage?: HomeJobsInput['jobPage'];
  /** Agent jobs started this hour of the hourly limit; absent: no usage line. */
  usage?: HomeUsage | undefined;
  /** "This week in your docs", from the analytics cache only; absent: no such section. */
  thisWeek?: HomeThisWeek | undefined;
}

/** The user's own Home tab. Pure; at most 100 blocks whatever the input. */
export function appHomeView(input: AppHomeInput): HomeView {
  // What everyone comes for first (New job, their jobs); the managers' settings and budgets last.
  const blocks: KnownBlock[] = [
    { type: 'header', text: { type: 'plain_text', text: PRODUCT_NAME } },
    {
      type: 'actions',
      elements: [
        {
          type: 'button',
          action_id: HOME_NEW_JOB_ACTION,
          style: 'primary',
          text: { type: 'plain_text', text: 'New job' },
        },
        ...homeReportButtons(),
        // Managers only (a member's click would only be refused); asked again on the click.
        ...(input.settings?.manage
          ? [
              {
                type: 'button' as const,
                action_id: HOME_SETTINGS_ACTION,
                text: { type: 'plain_text' as const, text: 'Settings' },
              },
            ]
          : []),
      ],
    },
    ...firstRunBlocks(input),
    { type: 'divider' },
    ...homeThisWeekBlocks(input.thisWeek),
    ...homeJobBlocks({ userId: input.userId, jobs: input.jobs, jobPage: input.jobPage }),
    ...homeUsageBlocks(input.usage),
    { type: 'divider' },
    ...homeWeeklyBlocks(input.schedules),
    ...(input.alerts ? homeAlertBlocks(input.alerts) : []),
    { type: 'divider' },
    ...feedbackBlocks(input.feedback),
    ...(input.settings ? [{ type: 'divider' } as const, ...homeSettingsBlocks(input.settings)] : []),
    ...(input.budgets ? budgetBlocks(input.budgets) : []),
  ];
  return { type: 'home', blocks: blocks.slice(0, HOME_LIMITS.blocks) };
}

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } };
}

function note(text: string): KnownBlock {
  return { type: 'context', elements: [{ type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) }] };
}

/** A link that opens the channel in Slack without needing a permalink lookup. */
export function channelLink(channelId: string, teamId?: string | null): string {
  const params = new URLSearchParams({ channel: channelId, ...(teamId ? { team: teamId } : {}) });
  return `https://slack.com/app_redirect?${params.toString()}`;
}

/** Home when the bot's state store did not answer: says so instead of showing an empty list. */
export function appHomeUnavailableView(): HomeView {
  return {
    type: 'home',
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: PRODUCT_NAME } },
      section(
        ":warning: I can't reach my storage right now, so I can't show your jobs. Open this tab again in a minute; `/docs-agent list` in a channel still shows the jobs running there.",
      ),
    ],
  };
}

/** "PRs rated useful this month", from everyone's 👍 / 👎 on the bot's pull request replies. */
function feedbackBlocks(feedback: MonthFeedback | undefined): KnownBlock[] {
  if (!feedback) return [];
  const line =
    feedback.rated === 0
      ? 'None rated yet: 👍 or 👎 under a pull request reply rates it.'
      : `*${feedback.useful}* of ${feedback.rated} rated (👍 outnumber 👎)`;
  return [section(`*PRs rated useful this month*\n${line}`)];
}

function budgetBlocks(budgets: HomeBudget[]): KnownBlock[] {
  if (budgets.length === 0) return [section('*Budgets this hour*'), note('No hourly limits are set.')];
  const lines = budgets.slice(0, HOME_LIMITS.budgets).map((b) => {
    const left = Math.max(0, Math.min(b.left, b.limit));
    const resets = left === 0 && b.resetsAt ? ` · more from ${slackTime(b.resetsAt)}` : '';
    return `• ${escapeMrkdwn(oneLine(b.label, 100))}: *${left}* of ${b.limit} left${resets}`;
  });
  return [section('*Budgets this hour*'), section(lines.join('\n'))];
}
