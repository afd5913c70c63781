import type { DeliveryStore, Outbox } from '../delivery/ports.js';
import type { HealthAlert } from '../insights/alerts/alert.js';
import type { AlertPublisher } from '../insights/ports.js';
import { healthAlertFollowUpMessage, healthAlertMessage } from './messages/health-alert.js';

/** An alert's post is remembered past its 7 days (a late retry never posts it twice). */
const ALERT_KEEP_MS = 8 * 24 * 60 * 60 * 1000;

/**
 * Docs-health alerts through the outbox: recorded under their deterministic key before any attempt, posted
 * once whoever owes them, retried by any replica; the follow-up goes in the alert's thread once Slack has
 * confirmed the alert (its ts, from the outbox's record).
 */
export class SlackAlertPublisher implements AlertPublisher {
  constructor(
    private readonly outbox: Outbox,
    private readonly deliveries: Pick<DeliveryStore, 'get'>,
    private readonly siteUrl: string | undefined,
  ) {}

  async postAlert(alert: HealthAlert, key: string): Promise<void> {
    await this.outbox.owe({
      key,
      target: { kind: 'post', channel: alert.channelId, threadTs: null },
      payload: healthAlertMessage(alert, { siteUrl: this.siteUrl }),
      priority: 'reply',
      keepMs: ALERT_KEEP_MS,
    });
  }

  async postedTs(key: string): Promise<string | undefined> {
    const delivery = await this.deliveries.get(key);
    return delivery?.state === 'posted' ? delivery.postedTs : undefined;
  }

  async postFollowUp(alert: HealthAlert, previous: number, threadTs: string, key: string): Promise<void> {
    await this.outbox.owe({
      key,
      target: { kind: 'post', channel: alert.channelId, threadTs },
      payload: healthAlertFollowUpMessage(alert, previous, { siteUrl: this.siteUrl }),
      priority: 'reply',
      keepMs: ALERT_KEEP_MS,
    });
  }
}
