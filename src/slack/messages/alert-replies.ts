import type { Sensitivity } from '../../insights/alerts/rules.js';
import type { AlertSubscription } from '../../insights/ports.js';
import { slackTime } from './format.js';
import { invalidPageViewsCommandMessage } from './page-views-replies.js';

const WHAT: Record<Sensitivity, string> = {
  low: 'only the biggest jumps (at least 10 events and 4× the usual day; traffic down 90%)',
  normal: 'clear jumps (at least 5 events and 3× the usual day; traffic down 80%)',
  high: 'smaller jumps too (at least 3 events and 2× the usual day; traffic down 70%)',
};

const checks = (intervalMs: number) =>
  intervalMs % 3_600_000 === 0
    ? `every ${intervalMs / 3_600_000 === 1 ? 'hour' : `${intervalMs / 3_600_000} hours`}`
    : `every ${Math.max(1, Math.round(intervalMs / 60_000))} min`;

export function alertsOnReply(
  subscription: AlertSubscription,
  previous: AlertSubscription | undefined,
  intervalMs: number,
): string {
  const changed = previous ? ` (was ${previous.sensitivity})` : '';
  return [
    `:bell: Docs-health alerts are on in <#${subscription.channelId}>, sensitivity *${subscription.sensitivity}*${changed}: ${WHAT[subscription.sensitivity]}.`,
    `The bot checks ${checks(intervalMs)}: searches that found nothing, pages flagged 👎, questions the assistant could not answer and top pages whose views collapsed, each against its own last 28 days. One alert per signal per 7 days, with a *Fix* button. \`/docs-health alerts off\` stops them.`,
  ].join('\n');
}

export function alertsOffReply(removed: boolean): string {
  return removed
    ? ':no_bell: Docs-health alerts are off in this channel.'
    : 'Docs-health alerts were not on in this channel. `/docs-health alerts on` turns them on.';
}

export function alertsStatusReply(subscription: AlertSubscription | undefined, intervalMs: number): string {
  if (!subscription) {
    return 'Docs-health alerts are off in this channel. `/docs-health alerts on [sensitivity low|normal|high]` turns them on.';
  }
  return `:bell: Docs-health alerts are on in this channel, sensitivity *${subscription.sensitivity}* (${WHAT[subscription.sensitivity]}), checked ${checks(intervalMs)}; turned on by <@${subscription.createdBy}> ${slackTime(subscription.createdAt)}. \`/docs-health alerts off\` stops them.`;
}

export function invalidAlertsCommand(command: string, token: string, problem: string): string {
  return `${invalidPageViewsCommandMessage(command, token, problem)} Alerts: \`${command} alerts on [sensitivity low|normal|high]\`, \`${command} alerts off\`, \`${command} alerts\`.`;
}
