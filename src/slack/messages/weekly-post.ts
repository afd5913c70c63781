import type { KnownBlock } from '@slack/types';
import type { HealthReport } from '../../insights/health/report.js';
import type { PageViewsReport } from '../../insights/page-views/report.js';
import type { ScheduleKind } from '../../insights/ports.js';
import { formatPercentChange, percentChange } from '../copy/changes.js';
import { formatShare } from '../copy/counts.js';
import { untrustedMrkdwn } from '../markup.js';
import { displayCount } from './format.js';
import { LIMITS, oneLine, truncate } from './limits.js';
import type { MessageBlock, SlackMessage } from './types.js';

/** The Stop button under a weekly post; its value is the post's kind (the channel is the message's). */
export const WEEKLY_STOP_ACTION = 'weekly_stop';

const n = (value: number) => displayCount(value).toLocaleString('en-US');
const COMMANDS: Record<ScheduleKind, string> = { page_views: '/docs-views', health: '/docs-health' };

/** ", ▲ 8% on the week before" / ", no change on the week before" / "" when there is nothing to compare with. */
function change(now: number, before: number | undefined): string {
  const pct = percentChange(now, before);
  return pct === undefined ? '' : `, ${formatPercentChange(pct)} on the week before`;
}

/** The week's page views in one sentence: the total, its change, the AI share and the most read page. */
export function pageViewsHeadline(report: PageViewsReport): string {
  const total = displayCount(report.totals.total);
  const ai = formatShare(total > 0 ? displayCount(report.totals.ai) / total : 0);
  const top = report.top[0];
  const most = top ? `; most read: \`${untrustedMrkdwn(oneLine(top.path, 80))}\`` : '';
  return `*This week: ${n(total)} views*${change(total, report.previousTotals?.total)}, ${ai} of them by AI${most}.`;
}

/** The week's docs health in one sentence: its biggest gap first, then the other two signals. */
export function healthHeadline(report: HealthReport): string {
  const search = report.searches.rows[0];
  const page = report.pages.rows[0];
  const question = report.questions.rows[0];
  if (!search && !page && !question) return '*This week readers found what they looked for*: no gaps to fix.';
  const parts = [
    search
      ? `searches for “${untrustedMrkdwn(oneLine(search.query, 60))}” found nothing ${n(search.hits)} times`
      : undefined,
    page ? `\`${untrustedMrkdwn(oneLine(page.path, 60))}\` got ${n(page.thumbsDown)} 👎` : undefined,
    question ? `${n(report.questions.total)} questions went unanswered` : undefined,
  ].filter((p): p is string => p !== undefined);
  const [first, ...rest] = parts;
  return `*This week ${first}*${rest.length > 0 ? `; ${rest.join('; ')}` : ''}.`;
}

/**
 * A weekly post: the report with its week in one headline sentence under the title, and a footer saying who
 * set it up, how to manage it and a Stop button (confirmed). Within Slack's 50 blocks: the footer's button
 * goes only where there is room, the words always.
 */
export function weeklyPost(
  message: SlackMessage,
  post: { kind: ScheduleKind; headline: string; setUpBy: string | undefined },
): SlackMessage {
  const command = COMMANDS[post.kind];
  const who = post.setUpBy ? `<@${post.setUpBy}>` : 'a workspace admin';
  const footer: KnownBlock = {
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `Weekly post set up by ${who} · manage: \`${command} schedules\` · stop: the button or \`${command} unschedule\``,
      },
    ],
  };
  const stop: KnownBlock = {
    type: 'actions',
    block_id: 'weekly_post_stop',
    elements: [
      {
        type: 'button',
        action_id: WEEKLY_STOP_ACTION,
        text: { type: 'plain_text', text: 'Stop these posts' },
        value: post.kind,
        confirm: {
          title: { type: 'plain_text', text: 'Stop these weekly posts?' },
          text: {
            type: 'plain_text',
            text: 'No more of these weekly posts in this channel. You can set them up again.',
          },
          confirm: { type: 'plain_text', text: 'Stop' },
          deny: { type: 'plain_text', text: 'Keep them' },
          style: 'danger',
        },
      },
    ],
  };
  const headline: KnownBlock = {
    type: 'section',
    // Short, as the reports leave about 500 characters of Slack's 12,000 for it and the footer.
    text: { type: 'mrkdwn', text: truncate(post.headline, 240) },
  };
  const [title, ...rest] = message.blocks;
  const blocks: MessageBlock[] =
    message.blocks.length >= LIMITS.blocks
      ? [...message.blocks]
      : title?.type === 'header'
        ? [title, headline, ...rest]
        : [headline, ...message.blocks];
  for (const block of [footer, stop]) if (blocks.length < LIMITS.blocks) blocks.push(block);
  return { ...message, blocks };
}
