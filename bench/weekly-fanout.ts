import { FakeDocs, makeViewRows } from '../test/support/fake-docs.js';
import { FakeSlack } from '../test/support/fake-slack.js';
import { ManualTimers } from '../test/support/manual-timers.js';
import { postSigned, slashCommandBody } from '../test/support/slack-signing.js';
import { SIGNING_SECRET } from '../test/support/test-app.js';
import { startBenchApp } from './harness.js';
import { sized } from './smoke.js';

/**
 * 50 channels whose weekly posts fire at the same minute (issue 16, item 6), memory mode: the real app with
 * a manual clock for the weekly scheduler, 50 channels each scheduling `monday 09:00 Europe/Berlin`, then
 * the clock moves to that minute. Counted: page-view calls to the fake platform (10,000 paths, 50 ms) until
 * all 50 posts are out. They all ask for the same range, so the floor is one report's pages.
 */
const CHANNELS = sized(50, 2);
const PATHS = sized(10_000, 300);

const waitUntil = async (what: string, done: () => boolean, timeoutMs = 120_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`weekly fan-out: timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

export async function runWeeklyFanout(): Promise<{
  channels: number;
  posts: number;
  calls: number;
  ms: number;
}> {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  docs.latencyMs = 50;
  docs.defaultViews = makeViewRows(PATHS);
  // Monday 2025-03-24, 08:59 in Berlin: one minute before the posts.
  const timers = new ManualTimers(Date.parse('2025-03-24T07:59:00Z'));
  const app = await startBenchApp(
    { slackUrl: slack.url, slackApiUrl: slack.apiUrl, docsUrl: docs.url },
    { LOG_LEVEL: 'warn', SLACK_CHANNEL_POST_INTERVAL_MS: '0' },
    { clock: { now: timers.now }, schedulerTimers: timers },
  );
  try {
    for (let i = 0; i < CHANNELS; i++) {
      const body = slashCommandBody({
        command: '/docs-views',
        text: 'schedule monday 09:00 Europe/Berlin',
        channel_id: `C0WEEK${String(i).padStart(3, '0')}`,
        response_url: slack.responseUrl(`schedule${i}`),
      });
      const ack = await postSigned(app.url, body, SIGNING_SECRET);
      if (ack.status !== 200) throw new Error(`weekly fan-out: schedule ack ${ack.status}`);
    }
    await waitUntil('50 schedule confirmations', () => slack.responses.length >= CHANNELS);
    const viewCalls = () => docs.requestsTo('GET', /\/views$/).length;
    const before = viewCalls();
    const started = Date.now();
    await timers.advanceTo(Date.parse('2025-03-24T08:00:00Z'));
    const posts = () => slack.callsOf('chat.postMessage').length;
    await waitUntil('50 weekly posts', () => posts() >= CHANNELS);
    const ms = Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 500));
    return { channels: CHANNELS, posts: posts(), calls: viewCalls() - before, ms };
  } finally {
    await app.stop();
    await slack.close();
    await docs.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(await runWeeklyFanout());
  process.exit(0);
}
