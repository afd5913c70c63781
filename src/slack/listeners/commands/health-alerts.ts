import type { AlertsCommand } from '../../../insights/alerts/alert-command.js';
import {
  alertsOffReply,
  alertsOnReply,
  alertsStatusReply,
  invalidAlertsCommand,
} from '../../messages/alert-replies.js';
import { describePageViewsFailure } from '../../messages/page-views-replies.js';
import type { SlackDeps } from '../deps.js';

export type HealthAlertsDeps = Pick<SlackDeps, 'limits'> & {
  alerts: NonNullable<NonNullable<SlackDeps['health']>['alerts']>;
  now(): number;
};

/**
 * `/docs-health alerts …` in a channel: subscribe it (`on`, with a sensitivity), unsubscribe it (`off`) or
 * say its state. Who may is who may use `/docs-health` there (and schedule its weekly post): the access
 * check ran before. A store failure is answered, never thrown.
 */
export async function answerAlertsCommand(
  deps: HealthAlertsDeps,
  parsed: AlertsCommand,
  command: { command: string; user_id: string; channel_id: string },
): Promise<string> {
  const { alerts } = deps;
  try {
    switch (parsed.kind) {
      case 'invalid':
        return invalidAlertsCommand(command.command, parsed.token, parsed.problem);
      case 'alerts_status':
        return alertsStatusReply(await alerts.status(command.channel_id), alerts.intervalMs);
      case 'alerts_off':
        return alertsOffReply(await alerts.unsubscribe(command.channel_id));
      case 'alerts_on': {
        const { subscription, previous } = await alerts.subscribe(
          command.channel_id,
          command.user_id,
          parsed.sensitivity,
        );
        return alertsOnReply(subscription, previous, alerts.intervalMs);
      }
    }
  } catch (error) {
    return describePageViewsFailure(error, deps.now(), deps.limits);
  }
}
