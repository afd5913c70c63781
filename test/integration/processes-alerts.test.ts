import { afterEach, describe, expect, it } from 'vitest';
import { AlertFeed } from '../support/alert-feed.js';
import type { BotProcess } from '../support/bot-process.js';
import type { FakeSlack, StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { bot, fakes, redisServer, stopProcesses } from '../support/process-helpers.js';

/*
 * Docs-health alerts with real bot processes (`node --import tsx src/main.ts`) on a fake analytics feed of
 * Poisson noise: the check runs every second, "today" is drawn again before every check.
 */

afterEach(stopProcesses);

const CHANNEL = 'C0ALERTS';
const ENV = { HEALTH_ALERT_INTERVAL_MS: '1000', ANALYTICS_HOURLY_BUDGET: '100000' };

const alertsIn = (slack: FakeSlack) =>
  slack.messages.filter(
    (m) =>
      m.channel === CHANNEL &&
      !m.thread_ts &&
      String(m.metadata?.event_payload.key).startsWith('health-alert:'),
  );
const checksDone = (bots: BotProcess[]) =>
  bots.flatMap((b) => b.logs).filter((l) => l.msg === 'docs-health alert check done');
/** Checks that judged (a full baseline was there and nothing was skipped). */
const judged = (bots: BotProcess[]) => checksDone(bots).filter((l) => l.skipped === 0);

async function subscribe(
  via: BotProcess,
  slack: FakeSlack,
  sensitivity = 'normal',
  channel = CHANNEL,
): Promise<void> {
  const before = slack.responses.length;
  const ack = await via.command({
    command: '/docs-health',
    channel_id: channel,
    response_url: slack.responseUrl(`subscribe-${channel}`),
    text: `alerts on sensitivity ${sensitivity}`,
  });
  expect(ack.status).toBe(200);
  await waitFor(() => slack.responses.length > before, { what: 'the alerts on reply' });
  expect(String(slack.responses.at(-1)?.body.text)).toContain('Docs-health alerts are on');
}

/**
 * A new seeded draw of today's noise after every check (so each check judges a different noisy day, from
 * the same seeded sequence every run), until stopped.
 */
function keepDrawing(feed: AlertFeed, bots: BotProcess[]): () => void {
  let seen = 0;
  const timer = setInterval(() => {
    const done = checksDone(bots).length;
    if (done === seen) return;
    seen = done;
    feed.drawToday();
  }, 50);
  return () => clearInterval(timer);
}

function fixButton(message: StoredMessage): { action_id: string; value: string } | undefined {
  const blocks = (message.blocks ?? []) as Array<{ type: string; elements?: Array<Record<string, string>> }>;
  const button = blocks.flatMap((b) => (b.type === 'actions' ? (b.elements ?? []) : []))[0];
  return button ? { action_id: button.action_id!, value: button.value! } : undefined;
}

describe('docs-health alerts (processes)', () => {
  it('noise never alerts; a spike alerts once with Fix, not again next interval, and one follow-up when it keeps rising', async () => {
    const { slack, docs } = await fakes();
    const feed = new AlertFeed(docs);
    feed.installHistory(Date.now());
    feed.drawToday();
    const a = await bot({ name: 'a', slack, docs, env: ENV });
    // Ten subscribed channels of one project: each check still reads each signal once.
    await subscribe(a, slack);
    for (let i = 1; i < 10; i += 1) await subscribe(a, slack, 'normal', `C0ALERTS${i}`);
    const stop = keepDrawing(feed, [a]);
    try {
      // 28 days of noise, then many intervals of noisy "todays": no alert in any channel.
      await waitFor(() => judged([a]).length >= 12, { what: '12 judged checks', timeoutMs: 40_000 });
      const calls = docs.requestsTo('GET', /^\/v1\/analytics\//).length;
      const checks = checksDone([a]).length;
      expect(
        slack.messages
          .filter((m) => String(m.metadata?.event_payload.key).startsWith('health-alert:'))
          .map((m) => m.text),
      ).toEqual([]);
      // The baseline: 28 past days × 4 reads, once. Then 5 reads per check (one may be under way).
      expect(calls - 28 * 4).toBeGreaterThanOrEqual(5 * checks);
      expect(calls - 28 * 4).toBeLessThan(5 * checks + 5);

      // A spike: 14 searches for a term usually searched 0–1 times a day.
      feed.spike.searches = { 'webhook retries': 14 };
      feed.drawToday();
      await waitFor(() => alertsIn(slack).length > 0, { what: 'the alert', timeoutMs: 10_000 });
      const [alert] = alertsIn(slack);
      expect(alert!.text).toMatch(/Searches for “webhook retries” found nothing \d+ times today — /);
      const fix = fixButton(alert!);
      expect(fix?.action_id).toBe('health_fix_search_1');
      expect(fix?.value).toMatch(/^ev_/);

      // The same spike for several more intervals: still one alert, no follow-up.
      const seen = judged([a]).length;
      await waitFor(() => judged([a]).length >= seen + 4, { what: '4 more checks', timeoutMs: 20_000 });
      expect(alertsIn(slack)).toHaveLength(1);
      expect(slack.threadReplies(CHANNEL, alert!.ts)).toHaveLength(0);

      // It keeps rising: one follow-up in the alert's thread, then no more.
      feed.spike.searches = { 'webhook retries': 60 };
      await waitFor(() => slack.threadReplies(CHANNEL, alert!.ts).length > 0, {
        what: 'the follow-up',
        timeoutMs: 10_000,
      });
      feed.spike.searches = { 'webhook retries': 200 };
      const after = judged([a]).length;
      await waitFor(() => judged([a]).length >= after + 3, { what: '3 more checks', timeoutMs: 20_000 });
      expect(alertsIn(slack).map((m) => m.text)).toEqual([alert!.text]);
      const replies = slack.threadReplies(CHANNEL, alert!.ts);
      expect(replies).toHaveLength(1);
      expect(replies[0]!.text).toContain('Still rising');
    } finally {
      stop();
    }
  }, 90_000);

  it('two replicas on one redis-server: one alert, however many checks either runs, and after both restart', async () => {
    const { slack, docs } = await fakes();
    const redis = await redisServer();
    const feed = new AlertFeed(docs, undefined, 31);
    feed.installHistory(Date.now());
    feed.drawToday();
    const [a, b] = await Promise.all([
      bot({ name: 'a', slack, docs, redisUrl: redis.url, env: ENV }),
      bot({ name: 'b', slack, docs, redisUrl: redis.url, env: ENV }),
    ]);
    await subscribe(b, slack);
    const stop = keepDrawing(feed, [a, b]);
    try {
      await waitFor(() => judged([a, b]).length >= 3, { what: 'judged checks', timeoutMs: 40_000 });
      expect(alertsIn(slack)).toHaveLength(0);
      feed.spike.searches = { 'webhook retries': 14 };
      feed.drawToday();
      await waitFor(() => alertsIn(slack).length > 0, { what: 'the alert', timeoutMs: 15_000 });
      const seen = judged([a, b]).length;
      await waitFor(() => judged([a, b]).length >= seen + 4, { what: '4 more checks', timeoutMs: 20_000 });
      expect(alertsIn(slack)).toHaveLength(1);
      // Each interval was checked once (one replica per interval).
      const ticks = checksDone([a, b]).map((l) => String(l.tick));
      expect(new Set(ticks).size).toBe(ticks.length);

      // Both replicas SIGKILLed, a new one started on the same Redis: the spike goes on, the alert stands.
      await Promise.all([a.kill(), b.kill()]);
      const c = await bot({ name: 'c', slack, docs, redisUrl: redis.url, env: ENV });
      await waitFor(() => judged([c]).length >= 3, { what: '3 checks after the restart', timeoutMs: 20_000 });
      expect(alertsIn(slack)).toHaveLength(1);
    } finally {
      stop();
    }
  }, 90_000);
});
