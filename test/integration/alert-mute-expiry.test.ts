import { createClient } from '@redis/client';
import { describe, expect, it } from 'vitest';
import { MUTE_MS } from '../../src/insights/alerts/health-alerts.js';
import { startAlertingApp } from '../support/alerting-app.js';
import { appsOnRedis } from '../support/apps-on-redis.js';
import { waitFor } from '../support/http.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import type { TestApp } from '../support/test-app.js';

/*
 * Issue 46 §1: "🔕 Muted by @bob until …" leaves the alert when the mute ends, and the mute menu comes back.
 * The end is owed when the mute is set (an edit due at its end, in the outbox), so it survives a restart and
 * any replica runs it once. The real app over signed HTTP, in memory and on a real redis-server. Memory: the
 * outbox's clock is moved past the end. Redis keeps time itself (`TIME` in its scripts) and cannot be moved:
 * the test checks the record is due seven days on, then makes it due now, which is what the seven days do;
 * two replicas then race for it, and the alert is still updated once.
 */
const CHANNEL = 'C0ALERTS';
const lab = appsOnRedis();

type Block = { type: string; block_id?: string; elements?: Array<Record<string, unknown>> };
const blocksOf = (t: TestApp, ts: string) =>
  (t.slack.messages.find((m) => m.channel === CHANNEL && m.ts === ts)?.blocks ?? []) as Block[];
const hasMenu = (blocks: Block[]) =>
  blocks.some((b) => b.type === 'actions' && b.elements?.some((e) => e.type === 'overflow'));
const mutedLine = (blocks: Block[]) => blocks.find((b) => b.block_id === 'shared_muted');
const updatesOf = (t: TestApp, ts: string) =>
  t.slack.callsOf('chat.update').filter((c) => c.args.channel === CHANNEL && c.args.ts === ts).length;

/**
 * Waits for `count` more alert checks (each a pass of the apps' timers, the reconciler's among them), on any
 * of the apps: with two replicas on one Redis, either may take the check from the shared queue.
 */
async function checksPass(apps: TestApp[], count: number): Promise<void> {
  const since = apps.map((a) => a.logs.length);
  const checks = () =>
    apps.reduce((n, a, i) => n + a.logs.slice(since[i]).filter((l) => l.includes('alert check')).length, 0);
  await waitFor(() => checks() >= count, { what: `${count} more alert checks`, timeoutMs: 15_000 });
}

/** Redis: the mute's end as recorded (due in seven days), then made due now. */
async function endMuteInRedis(url: string): Promise<void> {
  const client = createClient({ url });
  await client.connect();
  try {
    const [hash] = await client.keys('*delivery:shared-unmute:*');
    expect(hash, 'the mute end recorded in Redis').toBeDefined();
    const dueIn = Number(await client.hGet(hash!, 'notBefore')) - Date.now();
    expect(dueIn).toBeGreaterThan(MUTE_MS - 60_000);
    const member = hash!.slice(hash!.indexOf('delivery:') + 'delivery:'.length);
    const [dueSet] = await client.keys('*deliveries:due:intermediate');
    expect(await client.zScore(dueSet!, member)).toBeGreaterThan(Date.now() + MUTE_MS - 60_000);
    // Owed from its end: a day to deliver it counts from then, not from the mute.
    expect(Number(await client.hGet(hash!, 'createdAt')) - Date.now()).toBeGreaterThan(MUTE_MS - 60_000);
    await client.hSet(hash!, { notBefore: '0', createdAt: String(Date.now()) });
    await client.zAdd(dueSet!, { score: 0, value: member });
  } finally {
    await client.quit();
  }
}

describe.each([
  ['memory', false],
  ['Redis', true],
])('a muted alert at the end of its mute (%s)', (_mode, useRedis) => {
  it('shows the mute line until the end, then is updated once: the line goes, the menu is back', async () => {
    let shift = 0;
    const redisUrl = useRedis ? lab.freshRedisUrl() : undefined;
    const { t, alertIn } = await startAlertingApp([CHANNEL], redisUrl ? { REDIS_URL: redisUrl } : {}, {
      agentOptions: { outboxClock: { now: () => Date.now() + shift } },
      start: (options) => lab.start(options),
    });
    const alert = await alertIn(CHANNEL);
    const actions = (alert.blocks as Block[]).find((b) => b.type === 'actions')!;
    const menu = actions.elements!.find((e) => e.type === 'overflow') as {
      action_id: string;
      options: Array<{ value: string }>;
    };
    const chosen = await t.interaction(
      blockActionsPayload({
        triggerId: t.slack.surfaces.mintTriggerId('U0BOB'),
        userId: 'U0BOB',
        action: { action_id: menu.action_id, selected: menu.options[0]!.value, text: 'Mute' },
        container: {
          type: 'message',
          ...{ channelId: CHANNEL, messageTs: alert.ts, responseUrl: t.slack.responseUrl() },
          message: { text: alert.text, blocks: alert.blocks as unknown[] },
        },
      }),
    );
    expect(chosen.status).toBe(200);
    const line = await waitFor(() => mutedLine(blocksOf(t, alert.ts)), { what: 'the mute line' });
    expect(JSON.stringify(line)).toContain('🔕 Muted by <@U0BOB> until');
    expect(hasMenu(blocksOf(t, alert.ts))).toBe(false);

    // Before its end the line stays: reconciler passes go by and nothing changes.
    const muted = updatesOf(t, alert.ts);
    await checksPass([t], 2);
    expect(updatesOf(t, alert.ts)).toBe(muted);
    expect(mutedLine(blocksOf(t, alert.ts))).toBeDefined();

    // Redis: a second replica on the same Redis and Slack, whose reconciler races the first's for the end.
    const apps = [t];
    if (redisUrl) {
      const second = await lab.start({
        slack: t.slack,
        docs: t.docs,
        env: { HEALTH_ALERT_INTERVAL_MS: '1000', ANALYTICS_HOURLY_BUDGET: '100000', REDIS_URL: redisUrl },
      });
      apps.push(second);
      await endMuteInRedis(redisUrl);
    } else shift = MUTE_MS + 60_000;
    await waitFor(() => !mutedLine(blocksOf(t, alert.ts)) && hasMenu(blocksOf(t, alert.ts)), {
      what: 'the alert without its mute line, with its menu',
      timeoutMs: 10_000,
    });
    // Its Fix and "I'll look" stay; the menu is the alert's own (its signal's value).
    const after = blocksOf(t, alert.ts).find((b) => b.type === 'actions')!;
    expect(after.elements!.map((e) => e.type)).toEqual(['button', 'button', 'overflow']);
    expect(JSON.stringify(after)).toContain(menu.options[0]!.value);
    // Once: later passes owe nothing more.
    await checksPass(apps, 2);
    expect(updatesOf(t, alert.ts)).toBe(muted + 1);
  }, 60_000);
});
