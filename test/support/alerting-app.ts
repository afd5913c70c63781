import { expect } from 'vitest';
import { AlertFeed } from './alert-feed.js';
import { waitFor } from './http.js';
import { startTestApp } from './test-app.js';

/**
 * The real app checking alerts every second, its docs-health history installed, "webhook retries" found
 * nothing 14 times today, and alerts on in `channels`: each channel gets that alert within seconds. `env`
 * adds settings (e.g. ALLOWED_USER_IDS).
 */
export async function startAlertingApp(channels: string[], env: Record<string, string> = {}) {
  const t = await startTestApp({
    env: { HEALTH_ALERT_INTERVAL_MS: '1000', ANALYTICS_HOURLY_BUDGET: '100000', ...env },
  });
  const feed = new AlertFeed(t.docs, undefined, 5);
  feed.installHistory(Date.now());
  feed.spike.searches = { 'webhook retries': 14 };
  feed.drawToday();
  for (const channel of channels)
    expect(
      (await t.command({ command: '/docs-health', text: 'alerts on', channel_id: channel })).status,
    ).toBe(200);
  const alertIn = (channel: string) =>
    waitFor(
      () => t.slack.messages.find((m) => m.channel === channel && m.text.startsWith('Docs-health alert')),
      { what: `the alert in ${channel}`, timeoutMs: 15_000 },
    );
  return { t, feed, alertIn };
}
