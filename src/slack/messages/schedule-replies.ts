import { kindOf, type ScheduleKind, type WeeklySchedule } from '../../insights/ports.js';
import { describeWeeklyCron } from '../../insights/ranges/cron-times.js';
import { escapeMrkdwn } from '../markup.js';
import { slackTime } from './format.js';

/** How each kind of weekly post is named, and the command that manages it. */
const KINDS: Record<ScheduleKind, { post: string; contents: string; command: string }> = {
  page_views: {
    post: 'weekly page-view post',
    contents: 'the last 7 full days of page views',
    command: '/docs-views',
  },
  health: {
    post: 'weekly docs-health post',
    contents: 'a docs-health report of the last 7 full days (with a fix button per gap)',
    command: '/docs-health',
  },
};

function describeCron(schedule: WeeklySchedule): string {
  return describeWeeklyCron(schedule.cron) ?? `cron \`${escapeMrkdwn(schedule.cron)}\``;
}

export function scheduleConfirmation(
  schedule: WeeklySchedule,
  nextRun: number | undefined,
  replaced: boolean,
): string {
  const { contents, command } = KINDS[kindOf(schedule)];
  const next = nextRun ? ` Next post: ${slackTime(nextRun)}.` : '';
  return `${replaced ? 'Updated' : 'Scheduled'}: every ${describeCron(schedule)} (${escapeMrkdwn(schedule.timeZone)}) I'll post ${contents} in <#${schedule.channelId}>.${next} Stop it with \`${command} unschedule\`. Make sure I'm a member of this channel (\`/invite @docs-agent\`).`;
}

export function schedulesList(
  schedules: Array<WeeklySchedule & { nextRun: number | undefined }>,
  currentChannel: string,
  kind: ScheduleKind = 'page_views',
): string {
  const { post, command } = KINDS[kind];
  if (schedules.length === 0) {
    return `No ${post}s are scheduled. Add one in a channel with \`${command} schedule monday 09:00 Europe/Berlin\`.`;
  }
  const lines = schedules.slice(0, 40).map((s) => {
    const here = s.channelId === currentChannel ? ' (this channel)' : '';
    const origin = s.source === 'env' ? 'set up when docs-agent was deployed' : `by <@${s.createdBy}>`;
    const next = s.nextRun ? `, next ${slackTime(s.nextRun)}` : '';
    return `• <#${s.channelId}>${here}: every ${describeCron(s)} (${escapeMrkdwn(s.timeZone)}), ${origin}${next}`;
  });
  return `*${post[0]!.toUpperCase()}${post.slice(1)}s*\n${lines.join('\n')}`;
}

/** What a member of the channel is told when it has no schedule of this kind. */
export function noScheduleHere(kind: ScheduleKind): string {
  const { post, command } = KINDS[kind];
  return `This channel has no ${post}. Add one with \`${command} schedule monday 09:00 Europe/Berlin\`.`;
}

export function unscheduleReply(removed: boolean, kind: ScheduleKind = 'page_views'): string {
  const { post, command } = KINDS[kind];
  return removed
    ? `Done: this channel will no longer get the ${post}.`
    : `This channel has no ${post}. See all of them with \`${command} schedules\`.`;
}
