import type { Button, KnownBlock } from '@slack/types';
import type { ScheduleKind } from '../../insights/ports.js';
import { HEADLINE_BLOCK_ID } from './headlines.js';
import { LIMITS, truncate } from './limits.js';
import type { MessageBlock, SlackMessage } from './types.js';

/** The Stop button under a weekly post; its value is the post's kind (the channel is the message's). */
export const WEEKLY_STOP_ACTION = 'weekly_stop';

export { healthHeadline, pageViewsHeadline } from './headlines.js';

const COMMANDS: Record<ScheduleKind, string> = { page_views: '/docs-views', health: '/docs-health' };

/** "Stop these posts" (confirmed first); its value is the post's kind. */
export function weeklyStopButton(kind: ScheduleKind): Button {
  return {
    type: 'button',
    action_id: WEEKLY_STOP_ACTION,
    text: { type: 'plain_text', text: 'Stop these posts' },
    value: kind,
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
  };
}

/**
 * A weekly post: the report with its week in one headline sentence under the title (in place of the report's own), and a footer saying who
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
    elements: [weeklyStopButton(post.kind)],
  };
  const headline: KnownBlock = {
    type: 'section',
    block_id: HEADLINE_BLOCK_ID,
    // Short, as the reports leave about 500 characters of Slack's 12,000 for it and the footer.
    text: { type: 'mrkdwn', text: truncate(post.headline, 240) },
  };
  const [title, ...rest] = message.blocks;
  // The report's own headline (its range's words) gives way to the week's.
  const own = message.blocks.findIndex((b) => b.block_id === HEADLINE_BLOCK_ID);
  const blocks: MessageBlock[] =
    own >= 0
      ? message.blocks.map((b, i) => (i === own ? headline : b))
      : message.blocks.length >= LIMITS.blocks
        ? [...message.blocks]
        : title?.type === 'header'
          ? [title, headline, ...rest]
          : [headline, ...message.blocks];
  for (const block of [footer, stop]) if (blocks.length < LIMITS.blocks) blocks.push(block);
  return { ...message, blocks };
}
