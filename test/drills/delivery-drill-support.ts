import type { FakeSlack, StoredMessage } from '../support/fake-slack.js';
import { bot, onCleanup, terminalReplies } from '../support/process-helpers.js';
import { SlackRateTiers } from '../support/slack-rate-tiers.js';

/** Fast polls so jobs end quickly; info logs for the figures. */
export const DRILL_ENV = { POLL_INTERVAL_MS: '100', POLL_MAX_INTERVAL_MS: '200', LOG_LEVEL: 'info' };

/** The terminal reply's post into this card's thread (the one carrying the pull request link). */
export const replyPost = (card: StoredMessage) => (args: Record<string, unknown>) =>
  args.thread_ts === card.ts && String(args.text ?? '').includes('/pull/');

export const cardText = (slack: FakeSlack, card: StoredMessage) =>
  slack.message(card.channel, card.ts)?.text ?? '';

export const cardIsFinal = (slack: FakeSlack, card: StoredMessage) =>
  cardText(slack, card).includes('Done: pull request opened');

export function replica(
  name: string,
  slack: FakeSlack,
  docs: Parameters<typeof bot>[0]['docs'],
  url: string,
  env: Record<string, string> = {},
) {
  return bot({ name, slack, docs, redisUrl: url, env: { ...DRILL_ENV, ...tierEnv(slack), ...env } });
}

/**
 * `DRILL_SLACK_TIER=distributed` runs the delivery drills with Slack's limits for a distributed app on
 * the fake (conversations.history/.replies once a "minute" per workspace, 429 with Retry-After, 15 a page;
 * the minute is `DRILL_MINUTE_MS`, default 2 s) and the bots set for it (SLACK_APP_TIER, pacing scaled).
 */
function tierEnv(slack: FakeSlack): Record<string, string> {
  if (process.env.DRILL_SLACK_TIER !== 'distributed') return {};
  const scale = 60_000 / Number(process.env.DRILL_MINUTE_MS ?? 2_000);
  slack.rateTiers ??= new SlackRateTiers({ scale, distributed: true, burst: Math.ceil(4 * scale) });
  return { SLACK_APP_TIER: 'distributed', SLACK_TIER_RATE_PERCENT: String(Math.round(100 * scale)) };
}

/**
 * The most copies of each card's terminal reply visible at any moment (sampled every 20 ms): a duplicate
 * deleted later was still seen by people in the thread, so "never two" is checked all along.
 */
export function peakReplies(slack: FakeSlack, cards: StoredMessage[]): { peak: number; twoForMs: number } {
  const seen = { peak: 0, twoForMs: 0 };
  let last = Date.now();
  const timer = setInterval(() => {
    const now = Date.now();
    const most = Math.max(0, ...cards.map((card) => terminalReplies(slack, card).length));
    if (most > 1) seen.twoForMs += now - last;
    last = now;
    seen.peak = Math.max(seen.peak, most);
  }, 20);
  onCleanup(async () => clearInterval(timer));
  return seen;
}
