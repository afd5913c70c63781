import { afterEach, describe, expect, it } from 'vitest';
import { addDays } from '../../src/insights/ranges/dates.js';
import { type Block, chartFillDone, chartOf, utcToday } from '../support/chart-answers.js';
import type { FakeConversation, FakeFeedback, HealthData } from '../support/fake-docs-health.js';
import { waitFor } from '../support/http.js';
import { seededRandom } from '../support/seeded-random.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

const ulid = (n: number) => `01J${String(n).padStart(23, '0')}`;

/** A day's signals: `gap` hits of a search without results, `down` 👎 on one page, `asked` unanswered questions. */
interface Day {
  day: string;
  gap: number;
  down: number;
  asked: number;
}

function dayData(d: Day): HealthData {
  const at = `${d.day}T12:00:00.000Z`;
  return {
    searches: [
      { searchQuery: 'webhook retries', hits: d.gap, ctr: 0, topClickedPage: null, lastSearchedAt: at },
      { searchQuery: 'install', hits: 40, ctr: 0.5, topClickedPage: '/install', lastSearchedAt: at },
    ],
    pages: [{ path: '/docs/webhooks', thumbsUp: 1, thumbsDown: d.down, code: 0, total: d.down + 1 }],
    feedback: votes(d),
    conversations: [],
  };
}

/** The day's 👎 as the platform lists them: contextual feedback marked not helpful, and one 👍. */
function votes(d: Day): FakeFeedback[] {
  const vote = (i: number, helpful: boolean): FakeFeedback => ({
    id: `fb_${d.day}_${i}`,
    path: '/docs/webhooks',
    comment: null,
    createdAt: `${d.day}T0${i % 10}:15:00.000Z`,
    source: 'contextual',
    status: 'pending',
    helpful,
    contact: null,
  });
  return [...Array.from({ length: d.down }, (_, i) => vote(i, false)), vote(d.down, true)];
}

function question(d: Day, i: number, n: number): FakeConversation {
  return {
    id: ulid(n),
    timestamp: `${d.day}T0${i % 10}:30:00.000Z`,
    query: `How do I retry webhook ${i}?`,
    response: 'I could not find that.',
    sources: [],
    resolutionStatus: 'unanswered',
    queryCategory: null,
    pageUrl: null,
  };
}

/** Two weeks of signals: each day its own window, and each week's window the sum of its days. */
function seed(t: TestApp): Day[] {
  const random = seededRandom(11);
  const days: Day[] = Array.from({ length: 14 }, (_, i) => ({
    day: addDays(utcToday(), -(i + 1)),
    gap: 1 + Math.floor(random() * 20),
    down: Math.floor(random() * 6),
    asked: Math.floor(random() * 4),
  }));
  let n = 0;
  for (const week of [days.slice(0, 7), days.slice(7)]) {
    for (const d of week) t.docs.health.byRange.set(`${d.day}..${addDays(d.day, 1)}`, dayData(d));
    const sum = (key: 'gap' | 'down') => week.reduce((s, d) => s + d[key], 0);
    const from = week[week.length - 1]!.day;
    const window = dayData({ day: from, gap: sum('gap'), down: sum('down'), asked: 0 });
    window.feedback = week.flatMap(votes);
    window.conversations = week.flatMap((d) =>
      Array.from({ length: d.asked }, (_, i) => question(d, i, ++n)),
    );
    t.docs.health.byRange.set(`${from}..${addDays(week[0]!.day, 1)}`, window);
  }
  return days;
}

describe('charts in /docs-health', () => {
  it("draws the three signals per day, the week before in words; each adds up to the report's counts", async () => {
    app = await startTestApp({ env: { REPORT_CHARTS: 'true' } });
    const days = seed(app);
    await app.command({ command: '/docs-health', text: '7d' });
    // The first report draws 👎 and unanswered from its own reads; searches per day follow in the background.
    const first = (await waitFor(() => app!.slack.responses[0], { what: 'first report' })).body as {
      blocks: Block[];
    };
    const firstChart = chartOf(first.blocks);
    // The signals of this range as lines; the week before in words, never drawn.
    expect(firstChart?.chart.series.map((s) => s.name)).toEqual(['👎 on pages', 'Unanswered']);
    expect(JSON.stringify(first.blocks)).toContain('The period before: ');
    expect(JSON.stringify(first.blocks)).toContain(
      'Searches that found nothing join this chart in later reports',
    );
    const dayReads = () =>
      app!.docs
        .requestsTo('GET', /\/searches$/)
        .filter((r) => r.query.get('dateTo') === addDays(r.query.get('dateFrom')!, 1));
    await waitFor(() => dayReads().length === 14, {
      what: 'searches per day read in the background',
      timeoutMs: 20_000,
    });
    await chartFillDone(app);

    await app.command({ command: '/docs-health', text: '7d' });
    const body = (await waitFor(() => app!.slack.responses[1], { what: 'report' })).body as {
      text: string;
      blocks: Block[];
    };
    const block = chartOf(body.blocks);
    expect(block, 'the report carries a chart').toBeDefined();
    const { series, axis_config } = block!.chart;
    expect(axis_config.categories).toHaveLength(7);
    expect(series.map((s) => s.name)).toEqual(['Searches, no result', '👎 on pages', 'Unanswered']);
    const totalOf = (i: number) => series[i]!.data.reduce((s, p) => s + p.value, 0);
    const week = days.slice(0, 7);
    const before = days.slice(7);
    const sum = (list: Day[], key: 'gap' | 'down' | 'asked') => list.reduce((s, d) => s + d[key], 0);
    expect([totalOf(0), totalOf(1), totalOf(2)]).toEqual([
      sum(week, 'gap'),
      sum(week, 'down'),
      sum(week, 'asked'),
    ]);
    // The week before's totals, said under the chart.
    const said = JSON.stringify(body.blocks);
    expect(said).toContain(`The period before: ${sum(before, 'gap')} searches, no result`);
    expect(said).toContain(`· ${sum(before, 'down')} 👎 on pages`);
    expect(said).toContain(`· ${sum(before, 'asked')} unanswered`);
    // Oldest day first, as the report reads.
    expect(series[0]!.data.map((p) => p.value)).toEqual([...week].reverse().map((d) => d.gap));
    // The report's own sections say the same numbers: the chart adds, it never replaces.
    const text = JSON.stringify(body.blocks);
    expect(text).toContain(`*${sum(week, 'gap')} searches* with no useful result`);
    expect(text).toContain(`*${sum(week, 'down')} readers flagged this page* 👎`);
    expect(text).toContain(
      `Over the range: ${sum(week, 'gap')} searches, no result · ${sum(week, 'down')} 👎 on pages · ${sum(week, 'asked')} unanswered`,
    );
    expect(body.text).toContain('Peak day:');
    expect(app.slack.blockKit.refusals).toEqual([]);
  });
});
