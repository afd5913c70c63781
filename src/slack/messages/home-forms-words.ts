import type { ScheduleKind } from '../../insights/ports.js';
import { describeWeeklyCron } from '../../insights/ranges/cron-times.js';
import type { MembershipCheck } from '../listeners/actions/channel-membership.js';
import { escapeMrkdwn } from '../markup.js';
import { slackTime } from './format.js';
import { oneLine } from './limits.js';

/** What Home's weekly-post and alert forms answer: in the form's fields (plain text) or privately after. */

const POSTS: Record<ScheduleKind, string> = {
  page_views: 'the last 7 full days of page views',
  health: 'a docs-health report of the last 7 full days',
};
const NAMES: Record<ScheduleKind, string> = { page_views: 'page-views', health: 'docs-health' };

/** The private confirmation once a weekly post is saved from Home. */
export function weeklySavedText(
  s: { kind: ScheduleKind; channelId: string; cron: string; timeZone: string },
  nextRun: number | undefined,
  edited: boolean,
): string {
  const when = describeWeeklyCron(s.cron) ?? 'week';
  const next = nextRun ? ` Next post: ${slackTime(nextRun)}.` : '';
  return `${edited ? 'Updated' : 'Scheduled'}: every ${when} (${escapeMrkdwn(oneLine(s.timeZone, 60))}) I'll post ${POSTS[s.kind]} in <#${s.channelId}>.${next} Change or remove it on my Home tab.`;
}

export function weeklyRemovedText(ref: { kind: ScheduleKind; channelId: string }, removed: boolean): string {
  return removed
    ? `Done: <#${ref.channelId}> will no longer get the weekly ${NAMES[ref.kind]} post.`
    : `<#${ref.channelId}> had no weekly ${NAMES[ref.kind]} post any more, so there was nothing to remove.`;
}

/** A field error: the channel already has a post of this kind (one per kind per channel). */
export function weeklyTakenText(kind: ScheduleKind): string {
  return `That channel already has a weekly ${NAMES[kind]} post. Edit that one on my Home tab, or pick another channel.`;
}

/** A field error under the channel picker of Home's forms: what happened and what to do. */
export function formMembershipProblem(check: Exclude<MembershipCheck, { ok: true }>): string {
  switch (check.reason) {
    case 'not_member':
      return "You're not a member of that channel. Pick a channel you're in.";
    case 'bot_not_member':
      return "I'm not in that channel, so I couldn't post there. Invite me first (/invite @docs-agent), then save again.";
    case 'too_large':
      return 'That channel has too many members for me to check that you are one of them. Use the slash command in that channel instead.';
    default:
      return "I couldn't check who is in that channel just now. Save again in a moment.";
  }
}

/** A field error: the store did not answer, nothing was saved. */
export const FORM_STORAGE_TEXT = "I couldn't reach my storage, so nothing was saved. Save again in a minute.";

/** A field error: the form's answers could not be read (an old or altered form). */
export const FORM_UNREADABLE_TEXT =
  'I could not read this form. Close it and open it again from my Home tab.';

/** The menu or form could not be opened: said in the person's DM with the app. */
export const FORM_NOT_OPENED_TEXT =
  "I couldn't open the form (Slack took too long or refused it). Press the button on my Home tab again.";

/** Alerts: the private confirmations. */
export function alertSavedText(channelId: string, sensitivity: string, edited: boolean): string {
  return `${edited ? 'Updated' : 'Turned on'}: docs-health alerts in <#${channelId}>, ${escapeMrkdwn(oneLine(sensitivity, 10))} sensitivity. Change or turn them off on my Home tab.`;
}

export function alertRemovedText(channelId: string, removed: boolean): string {
  return removed
    ? `Done: <#${channelId}> gets no more docs-health alerts.`
    : `<#${channelId}> had no docs-health alerts any more, so there was nothing to turn off.`;
}

/** A field error: another alert subscription is in that channel already. */
export const ALERT_TAKEN_TEXT =
  'That channel gets docs-health alerts already. Change them on my Home tab, or pick another channel.';

/** Alerts are not set up in this deployment (no docs-health report). */
export const ALERTS_OFF_TEXT =
  'Docs-health alerts are not available here, so nothing was saved. Ask a docs-agent manager about docs-health reports.';

/** A form with no field (a removal's question) answers a refusal by showing it in its place. */
export function nothingChangedAnswer(text: string) {
  return {
    response_action: 'update' as const,
    view: {
      type: 'modal' as const,
      title: { type: 'plain_text' as const, text: 'Nothing changed' },
      close: { type: 'plain_text' as const, text: 'Close' },
      blocks: [
        { type: 'section' as const, text: { type: 'plain_text' as const, text: oneLine(text, 2900) } },
      ],
    },
  };
}
