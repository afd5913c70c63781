import { expect } from 'vitest';
import { AlertFeed } from './alert-feed.js';
import { waitFor } from './http.js';
import { startTestApp, type TestApp } from './test-app.js';

type StartOptions = NonNullable<Parameters<typeof startTestApp>[0]>;

/**
 * The real app checking alerts every second, its docs-health history installed, "webhook retries" found
 * nothing 14 times today, and alerts on in `channels`: each channel gets that alert within seconds. `env`
 * adds settings (e.g. ALLOWED_USER_IDS); `extra` wiring (a clock) and how to start it (a file's Redis lab).
 */
export async function startAlertingApp(
  channels: string[],
  env: Record<string, string> = {},
  extra: Pick<StartOptions, 'agentOptions'> & { start?: (options: StartOptions) => Promise<TestApp> } = {},
) {
  const start = extra.start ?? startTestApp;
  const t = await start({
    env: { HEALTH_ALERT_INTERVAL_MS: '1000', ANALYTICS_HOURLY_BUDGET: '100000', ...env },
    ...(extra.agentOptions ? { agentOptions: extra.agentOptions } : {}),
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
