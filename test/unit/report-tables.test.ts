import { describe, expect, it } from 'vitest';
import type { HealthWindow } from '../../src/insights/health/ports.js';
import { buildHealthReport } from '../../src/insights/health/report.js';
import { buildReport, type ReportRequest } from '../../src/insights/page-views/report.js';
import type { RangePageViews } from '../../src/insights/ports.js';
import { chartBuckets } from '../../src/insights/ranges/buckets.js';
import { healthReportMessage } from '../../src/slack/messages/health-report.js';
import { pageViewsReportMessage } from '../../src/slack/messages/page-views-report.js';
import type { SlackMessage } from '../../src/slack/messages/types.js';
import { weeklyPost } from '../../src/slack/messages/weekly-post.js';
import { NO_GATE, withoutNewBlocks } from '../../src/slack/new-blocks.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

// biome-ignore lint/suspicious/noExplicitAny: inspecting Block Kit JSON
type Json = any;

function views(count: number, pathOf = (i: number) => `/docs/page-${i}`): RangePageViews {
  const pages = Array.from({ length: count }, (_, i) => ({
    path: pathOf(i),
    human: (count - i) * 7,
    ai: (count - i) * 3,
    total: (count - i) * 10,
  }));
  const sum = (key: 'human' | 'ai' | 'total') => pages.reduce((s, p) => s + p[key], 0);
  return {
    range: { from: '2025-03-03', toExclusive: '2025-03-10' },
    totals: { human: sum('human'), ai: sum('ai'), total: sum('total') },
    pages,
    partial: false,
    requests: 1,
    fetchedAt: Date.parse('2025-03-10T09:00:00Z'),
  };
}

const request = (top: number): ReportRequest => ({
  range: { from: '2025-03-03', toExclusive: '2025-03-10' },
  label: 'Last 7 days',
  timeZone: 'UTC',
  top,
  prefix: undefined,
});

/** What Slack gets: where it takes the table, and where it refused it (the gate's retry). */
async function sent(message: SlackMessage) {
  const withTable = (await NO_GATE.blocksFor(message.blocks))!;
  const refused = withoutNewBlocks(message.blocks);
  return { withTable: withTable as Json[], refused: refused as Json[] };
}

describe('page-view reports as Slack-native data', () => {
  it('says what matters most first: a headline under the title, in words', () => {
    const report = buildReport(request(5), views(20), { human: 1000, ai: 100, total: 1100 });
    const message = pageViewsReportMessage(report, { siteUrl: undefined, interactive: true });
    const second = message.blocks[1] as Json;
    expect(second.block_id).toBe('report_headline');
    // 2,100 views now against 1,100 before: up 91%; 630 of 2,100 by AI: 30%.
    expect(second.text.text).toBe(
      '*Last 7 days: 2,100 views*, ▲ 91% on the 7 days before, 30% of them by AI; most read: `/docs/page-0` (200 views).',
    );
  });

  it('puts the top pages in a data table where allowed, and the list in its place where Slack refuses it', async () => {
    const report = buildReport(request(12), views(20), undefined);
    const message = pageViewsReportMessage(report, {
      siteUrl: 'https://docs.acme.dev',
      interactive: true,
      table: true,
    });
    const { withTable, refused } = await sent(message);
    expect(checkMessage({ text: message.text, blocks: withTable })).toEqual({ ok: true });
    expect(checkMessage({ text: message.text, blocks: refused })).toEqual({ ok: true });

    const table = withTable.find((b) => b.type === 'data_table');
    expect(table.caption).toBe('Top 12 pages');
    expect(table.rows).toHaveLength(13);
    expect(table.rows[0].map((c: Json) => c.text)).toEqual(['Page', 'Views', 'vs last period', 'AI %']);
    expect(table.rows[1][0].elements[0].elements[0]).toEqual({
      type: 'link',
      url: 'https://docs.acme.dev/docs/page-0',
      text: '/docs/page-0',
    });
    expect(table.rows[1].slice(1)).toEqual([
      { type: 'raw_number', value: 200, text: '200' },
      // No period before read: not known, never a made-up figure.
      { type: 'raw_text', text: '—' },
      { type: 'raw_number', value: 30, text: '30.0%' },
    ]);
    // Where the table goes, the list does not: the ranking is said once.
    expect(JSON.stringify(withTable)).not.toContain('*Top 12 pages*');

    expect(refused.some((b) => b.type === 'data_table')).toBe(false);
    expect(JSON.stringify(refused)).toContain('*Top 12 pages* (█ human · ░ AI)');
    expect(JSON.stringify(refused)).toContain('*12.* <https://docs.acme.dev/docs/page-11|/docs/page-11>');
  });

  it('without the table option (senders outside the gate) keeps the list alone', () => {
    const report = buildReport(request(5), views(20), undefined);
    const message = pageViewsReportMessage(report, { siteUrl: undefined, interactive: false });
    expect(message.blocks.some((b) => b.type === 'data_table')).toBe(false);
    expect(JSON.stringify(message.blocks)).toContain('*Top 5 pages*');
  });

  it('cleans hostile paths in table cells, and fits 50 long ones within Slack limits', async () => {
    const hostile = (i: number) => `/docs/\u202Eevil\u200B-${i}-${'x'.repeat(400)}`;
    const report = buildReport(request(50), views(50, hostile), undefined);
    const message = pageViewsReportMessage(report, {
      siteUrl: 'https://docs.acme.dev',
      interactive: true,
      table: true,
    });
    const { withTable, refused } = await sent(message);
    expect(checkMessage({ text: message.text, blocks: withTable })).toEqual({ ok: true });
    expect(checkMessage({ text: message.text, blocks: refused })).toEqual({ ok: true });
    const table = withTable.find((b) => b.type === 'data_table');
    expect(JSON.stringify(table)).not.toMatch(/\u202E|\u200B/);
    // All 50: the first rows linked while the rest still fit as plain paths, as the list does.
    expect(table.caption).toBe('Top 50 pages');
    expect(table.rows[1][0].type).toBe('rich_text');
    expect(table.rows[50][0].type).toBe('raw_text');
  });

  it('draws two lines, people and AI, and says the period before in words', () => {
    const range = { from: '2025-03-03', toExclusive: '2025-03-10' };
    const buckets = chartBuckets(range);
    const report = {
      ...buildReport(request(5), views(5), { human: 50, ai: 10, total: 60 }),
      trend: {
        current: { buckets, human: [10, 20, 30, 40, 50, 60, 70], ai: [1, 2, 3, 4, 5, 6, 7] },
        previous: {
          buckets: chartBuckets({ from: '2025-02-24', toExclusive: '2025-03-03' }),
          human: [20, 20, 20, 20, 20, 20, 20],
          ai: [4, 4, 4, 4, 4, 4, 4],
        },
      },
    };
    const message = pageViewsReportMessage(report, { siteUrl: undefined, interactive: true });
    const chart = message.blocks.find((b) => b.type === 'data_visualization') as Json;
    expect(chart.chart.series.map((s: Json) => s.name)).toEqual(['People', 'AI']);
    expect(chart.title).toBe('Views per day: people and AI');
    // 280 people and 28 AI now; 140 and 28 the week before.
    expect(JSON.stringify(message.blocks)).toContain(
      'The period before: 140 people (now up 100%) · 28 AI (as many now).',
    );
  });

  it('a weekly post puts its week in place of the report headline, never both', () => {
    const report = buildReport(request(5), views(5), undefined);
    const message = pageViewsReportMessage(report, { siteUrl: undefined, interactive: false });
    const post = weeklyPost(message, {
      kind: 'page_views',
      headline: '*This week: 150 views*',
      setUpBy: 'U1',
    });
    const headlines = post.blocks.filter((b) => b.block_id === 'report_headline') as Json[];
    expect(headlines).toHaveLength(1);
    expect(headlines[0].text.text).toBe('*This week: 150 views*');
    expect(post.blocks[1]).toBe(headlines[0]);
  });
});

describe('docs-health reports in readers words', () => {
  const window = (): HealthWindow => ({
    dateFrom: '2025-03-03',
    dateTo: '2025-03-10',
    totalSearches: 400,
    searches: [{ searchQuery: 'rotate keys', hits: 40, ctr: 0, topClickedPage: null }],
    pages: [{ path: '/auth', thumbsUp: 0, thumbsDown: 3 }],
    feedback: [],
    conversations: [
      {
        id: 'c1',
        query: 'How do I rotate keys?',
        timestamp: '2025-03-04T00:00:00Z',
        resolutionStatus: 'unanswered',
      },
      {
        id: 'c2',
        query: 'How do I rotate keys?',
        timestamp: '2025-03-05T00:00:00Z',
        resolutionStatus: 'unanswered',
      },
    ],
    partial: [],
    requests: 4,
  });

  it('says the biggest gap first, then each row as readers would', () => {
    const report = buildHealthReport(window(), { top: 5 });
    const message = healthReportMessage(report, { siteUrl: undefined, fixButtons: true, postValue: '7d' });
    expect(checkMessage(message)).toEqual({ ok: true });
    const headline = message.blocks[1] as Json;
    expect(headline.block_id).toBe('report_headline');
    expect(headline.text.text).toMatch(
      /^\*[^*]+: searches for “rotate keys” found nothing useful 40 times\*; 3 readers flagged `\/auth`; 1 question went unanswered\.$/,
    );
    const json = JSON.stringify(message.blocks);
    expect(json).toContain('“rotate keys”  *40 searches* with no useful result · 10% of all searches');
    expect(json).toContain('`/auth`  *3 readers flagged this page* 👎');
    expect(json).toContain('“How do I rotate keys?”  asked *2 times*, no answer found');
  });
});
