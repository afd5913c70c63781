import { afterEach, describe, expect, it } from 'vitest';
import { addDays } from '../../src/insights/ranges/dates.js';
import { formatDayRange } from '../../src/slack/copy/dates.js';
import { type Block, type ChartSpec, chartOf, utcToday } from '../support/chart-answers.js';
import type { ViewRow } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { ManualTimers } from '../support/manual-timers.js';
import { seededRandom } from '../support/seeded-random.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

/** `days` UTC days before today, each with a few pages of random human and AI views. */
function seedDays(t: TestApp, days: number, seed = 7): Map<string, { human: number; ai: number }> {
  const random = seededRandom(seed);
  const sums = new Map<string, { human: number; ai: number }>();
  for (let i = 1; i <= days; i++) {
    const day = addDays(utcToday(), -i);
    const rows: ViewRow[] = ['/docs/a', '/docs/b', '/docs/c'].map((path) => {
      const human = Math.floor(random() * 500);
      const ai = Math.floor(random() * 200);
      return { path, human, ai, total: human + ai };
    });
    t.docs.viewsByDay.set(day, rows);
    sums.set(day, {
      human: rows.reduce((s, r) => s + r.human, 0),
      ai: rows.reduce((s, r) => s + r.ai, 0),
    });
  }
  return sums;
}

const total = (series: ChartSpec['series'][number] | undefined) =>
  (series?.data ?? []).reduce((s, p) => s + p.value, 0);
/** Totals-only reads of at most `days` days: the chart's points (the report's own reads span its range). */
const dayReads = (t: TestApp, days = 1) =>
  t.docs.requestsTo('GET', /^\/v1\/analytics\/[^/]+\/views$/).filter((r) => {
    const span = Date.parse(r.query.get('dateTo') ?? '') - Date.parse(r.query.get('dateFrom') ?? '');
    return r.query.get('limit') === '1' && span <= days * 86_400_000;
  });

/** **Post to channel** on an ephemeral report, as Slack sends the click. */
function postToChannelClick(t: TestApp, value: unknown) {
  return t.interaction(
    blockActionsPayload({
      triggerId: `${Date.now()}.1.${Math.random().toString(16).slice(2)}`,
      action: { action_id: 'docs_views_post', block_id: 'b1', value: String(value) },
      container: {
        type: 'message',
        channelId: 'C0DOCS',
        messageTs: '1.000001',
        responseUrl: t.slack.responseUrl('button'),
      },
    }),
  );
}

describe('charts in page-view reports', () => {
  it("draws last week's daily views and the week before: every series adds up to the report's totals", async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'true' } });
    const days = seedDays(app, 14);
    await app.command({ command: '/docs-views', text: '7d' });
    const body = (await waitFor(() => app!.slack.responses[0], { what: 'report' })).body as {
      text: string;
      blocks: Block[];
    };
    const block = chartOf(body.blocks);
    expect(block, 'the report carries a chart').toBeDefined();
    const chart = block!.chart;
    expect(chart.axis_config.categories).toHaveLength(7);
    // Two lines, people and AI; the week before is said in words under the chart.
    expect(chart.series.map((s) => s.name)).toEqual(['People', 'AI']);

    const sum = (from: number, to: number, key: 'human' | 'ai') =>
      Array.from(
        { length: to - from },
        (_, i) => days.get(addDays(utcToday(), -(from + i + 1)))![key],
      ).reduce((a, b) => a + b, 0);
    const [human, ai] = chart.series;
    expect(total(human)).toBe(sum(0, 7, 'human'));
    expect(total(ai)).toBe(sum(0, 7, 'ai'));
    // The same numbers the report states in words: the chart adds, it never replaces.
    const fmt = (v: number) => v.toLocaleString('en-US');
    expect(JSON.stringify(body.blocks)).toContain(`The period before: ${fmt(sum(7, 14, 'human'))} people`);
    expect(JSON.stringify(body.blocks)).toContain(`· ${fmt(sum(7, 14, 'ai'))} AI`);
    expect(JSON.stringify(body.blocks)).toContain(`*Human*\\n${fmt(total(human))}`);
    expect(JSON.stringify(body.blocks)).toContain(`*AI*\\n${fmt(total(ai))}`);
    // The notification text states the range, the totals and the peak day.
    const peak = [...Array(7).keys()]
      .map((i) => ({ i, views: human!.data[i]!.value + ai!.data[i]!.value }))
      .sort((a, b) => b.views - a.views || a.i - b.i)[0]!;
    expect(body.text).toContain(formatDayRange(addDays(utcToday(), -7), utcToday()));
    expect(body.text).toContain(`${fmt(total(human) + total(ai))} total`);
    expect(body.text).toContain(
      `Peak day: ${chart.axis_config.categories[peak.i]}, ${fmt(peak.views)} views`,
    );
    expect(app.slack.blockKit.refusals).toEqual([]);

    // One totals-only read per day, 14 days: a repeat costs none (and is answered with its chart again).
    expect(dayReads(app)).toHaveLength(14);
    await app.command({ command: '/docs-views', text: '7d' });
    const again = (await waitFor(() => app!.slack.responses[1], { what: 'second report' })).body as {
      blocks: Block[];
    };
    expect(chartOf(again.blocks)?.chart.series).toEqual(chart.series);
    expect(dayReads(app)).toHaveLength(14);
  });

  it('holds the limits for a 90-day report: weekly points, human and AI, no previous period', async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'true', ANALYTICS_HOURLY_BUDGET: '200' } });
    const days = seedDays(app, 90);
    await app.command({ command: '/docs-views', text: '90d' });
    const body = (await waitFor(() => app!.slack.responses[0], { what: 'report' })).body as {
      blocks: Block[];
    };
    const chart = chartOf(body.blocks)!.chart;
    expect(chart.axis_config.categories.length).toBeLessThanOrEqual(20);
    expect(chart.series.map((s) => s.name)).toEqual(['People', 'AI']);
    const all = [...days.values()];
    expect(total(chart.series[0])).toBe(all.reduce((s, d) => s + d.human, 0));
    expect(total(chart.series[1])).toBe(all.reduce((s, d) => s + d.ai, 0));
    // One read per point (a week, or the part of one the range holds), not one per day.
    expect(dayReads(app, 7)).toHaveLength(chart.axis_config.categories.length);
    expect(app.slack.blockKit.refusals).toEqual([]);
  });

  it('leaves the chart out, saying why, when its reads would eat into the budget kept for reports', async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'true', ANALYTICS_HOURLY_BUDGET: '20' } });
    seedDays(app, 14);
    await app.command({ command: '/docs-views', text: '7d' });
    const body = (await waitFor(() => app!.slack.responses[0], { what: 'report' })).body as {
      blocks: Block[];
    };
    expect(chartOf(body.blocks)).toBeUndefined();
    expect(JSON.stringify(body.blocks)).toContain(
      'No chart this time: the hourly analytics budget is nearly used up',
    );
    expect(JSON.stringify(body.blocks)).toContain('*Total views*');
    // Not one chart read was spent: the 20 units minus the report's 2 would have left fewer than 10.
    expect(dayReads(app)).toHaveLength(0);
  });

  it('where Slack refuses charts, each report goes out once without them, and the refusal happens once', async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'true' } });
    seedDays(app, 14);
    app.slack.blockKit.refuseNewBlocks = true;

    // /docs-views through response_url: refused once, then the same report without the chart.
    await app.command({ command: '/docs-views', text: '7d' });
    const answer = (await waitFor(() => app!.slack.responses[0], { what: 'report' })).body as {
      blocks: Block[];
    };
    expect(chartOf(answer.blocks)).toBeUndefined();
    expect(JSON.stringify(answer.blocks)).toContain('Peak day');
    expect(JSON.stringify(answer.blocks)).toContain('Post to channel');
    expect(app.slack.blockKit.refusals).toHaveLength(1);

    // Post to channel: remembered, so no second refusal; the channel gets the report exactly once.
    const button = answer.blocks
      .flatMap((b) => (b.type === 'actions' ? (b.elements as Array<Record<string, unknown>>) : []))
      .find((e) => e.action_id === 'docs_views_post');
    await postToChannelClick(app, button!.value);
    const posted = await app.slack.waitForCall('chat.postMessage', (c) => c.args.channel === 'C0DOCS');
    expect(chartOf(posted.args.blocks as Block[])).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const inChannel = app.slack.messages.filter((m) => m.channel === 'C0DOCS');
    expect(inChannel).toHaveLength(1);
    expect(inChannel[0]!.text).toContain('Peak day');
    expect(app.slack.blockKit.refusals).toHaveLength(1);
  });

  it('a refused Post to channel is posted once more without the chart, once', async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'true' } });
    seedDays(app, 14);
    await app.command({ command: '/docs-views', text: '7d' });
    const answer = (await waitFor(() => app!.slack.responses[0], { what: 'report' })).body as {
      blocks: Block[];
    };
    expect(chartOf(answer.blocks)).toBeDefined();
    app.slack.blockKit.refuseNewBlocks = true;
    const button = answer.blocks
      .flatMap((b) => (b.type === 'actions' ? (b.elements as Array<Record<string, unknown>>) : []))
      .find((e) => e.action_id === 'docs_views_post');
    await postToChannelClick(app, button!.value);
    await waitFor(() => app!.slack.messages.find((m) => m.channel === 'C0DOCS'), { what: 'channel post' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const posts = app.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0DOCS');
    expect(posts).toHaveLength(2);
    expect(chartOf(posts[0]!.args.blocks as Block[])).toBeDefined();
    expect(chartOf(posts[1]!.args.blocks as Block[])).toBeUndefined();
    expect(JSON.stringify(posts[1]!.args.blocks)).toContain('*Total views*');
    expect(app.slack.messages.filter((m) => m.channel === 'C0DOCS')).toHaveLength(1);
    expect(app.slack.blockKit.refusals).toHaveLength(1);
  });

  it('a weekly post (through the outbox) that Slack refuses goes out once without its chart', async () => {
    // Monday 2025-03-24, 08:59 in Berlin.
    const timers = new ManualTimers(Date.parse('2025-03-24T07:59:00Z'));
    app = await startTestApp({
      env: { REPORT_CHARTS: 'true', LOG_LEVEL: 'info' },
      agentOptions: { clock: { now: timers.now }, schedulerTimers: timers },
    });
    for (let i = 1; i <= 14; i++)
      app.docs.viewsByDay.set(addDays('2025-03-24', -i), [
        { path: '/docs/a', human: 10 * i, ai: i, total: 11 * i },
      ]);
    await app.command({ command: '/docs-views', text: 'schedule monday 09:00 Europe/Berlin' });
    await waitFor(() => app!.slack.responses[0], { what: 'schedule confirmation' });
    app.slack.blockKit.refuseNewBlocks = true;

    await timers.advanceTo(Date.parse('2025-03-24T08:00:00Z'));
    await waitFor(() => app!.slack.messages.find((m) => m.channel === 'C0DOCS'), { what: 'weekly post' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const posts = app.slack.callsOf('chat.postMessage').filter((c) => c.args.channel === 'C0DOCS');
    expect(posts).toHaveLength(2);
    expect(chartOf(posts[0]!.args.blocks as Block[])).toBeDefined();
    const kept = JSON.stringify(posts[1]!.args.blocks);
    expect(chartOf(posts[1]!.args.blocks as Block[])).toBeUndefined();
    // The same report as before charts: its sections and numbers, not just the plain text.
    expect(kept).toContain('*Total views*');
    expect(kept).toContain('Peak day: 17 Mar');
    expect(app.slack.messages.filter((m) => m.channel === 'C0DOCS')).toHaveLength(1);
    expect(app.slack.blockKit.refusals).toHaveLength(1);
  });
});
