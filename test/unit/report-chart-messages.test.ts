import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { HealthReport } from '../../src/insights/health/report.js';
import { comparesPrevious } from '../../src/insights/page-views/views-trend.js';
import { chartBuckets, shiftBuckets } from '../../src/insights/ranges/buckets.js';
import { addDays, daysBetween } from '../../src/insights/ranges/dates.js';
import type { SeriesChart } from '../../src/slack/messages/charts.js';
import { displayCount } from '../../src/slack/messages/format.js';
import { healthReportMessage } from '../../src/slack/messages/health-report.js';
import { LIMITS } from '../../src/slack/messages/limits.js';
import { pageViewsReportMessage } from '../../src/slack/messages/page-views-report.js';
import { hasNewBlocks, withNewBlocks, withoutNewBlocks } from '../../src/slack/new-blocks.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';
import { REPORT } from './listeners/page-views-fixtures.js';

/** Counts as the spec allows them: any number (fractions, negatives, huge values). */
const count = fc.oneof(
  fc.nat({ max: 5_000 }),
  fc.double({ min: -1e6, max: 1e12, noNaN: true }),
  fc.constant(Number.MAX_SAFE_INTEGER),
);
const range = fc
  .record({
    from: fc.date({ min: new Date('2024-01-01'), max: new Date('2027-12-31'), noInvalidDate: true }),
    days: fc.integer({ min: 1, max: 90 }),
  })
  .map(({ from, days }) => {
    const start = from.toISOString().slice(0, 10);
    return { from: start, toExclusive: addDays(start, days) };
  });
const values = (n: number) => fc.array(count, { minLength: n, maxLength: n });

const chartIn = (blocks: Array<{ type: string }>) =>
  (blocks.find((b) => b.type === 'data_visualization') as { chart: SeriesChart } | undefined)?.chart;
const sum = (list: readonly number[]) => list.reduce((a, v) => a + displayCount(v), 0);

describe('report messages with charts', () => {
  it('page views: any 1–90-day range and any counts stay within every limit, lines add up to their days', () => {
    const input = range.chain((r) => {
      const buckets = chartBuckets(r);
      const n = buckets.length;
      return fc.record({ r: fc.constant(r), human: values(n), ai: values(n), ph: values(n), pa: values(n) });
    });
    fc.assert(
      fc.property(input, ({ r, human, ai, ph, pa }) => {
        const buckets = chartBuckets(r);
        const days = daysBetween(r.from, r.toExclusive);
        const previous = comparesPrevious(r)
          ? { buckets: shiftBuckets(buckets, days), human: ph, ai: pa }
          : undefined;
        const report = {
          ...REPORT,
          request: { ...REPORT.request, range: r, label: 'x'.repeat(40), prefix: `/${'p'.repeat(190)}` },
          trend: { current: { buckets, human, ai }, ...(previous ? { previous } : {}) },
        };
        const message = pageViewsReportMessage(report, {
          siteUrl: 'https://docs.acme.dev',
          interactive: true,
          table: true,
        });
        // What Slack gets where it takes the new blocks: the chart and the table, not their stand-ins.
        expect(checkMessage({ ...message, blocks: withNewBlocks(message.blocks) })).toEqual({ ok: true });
        expect(message.text.length).toBeLessThanOrEqual(LIMITS.fallbackText);
        const chart = chartIn(message.blocks)!;
        // Two lines, people and AI: the period before is said in words, never drawn.
        expect(chart.series).toHaveLength(2);
        expect(chart.series.map((s) => s.data.reduce((a, p) => a + p.value, 0))).toEqual(
          [human, ai].map(sum),
        );
        if (previous) expect(JSON.stringify(message.blocks)).toContain('The period before: ');
        // Without the chart, the same report (what a workspace that refuses charts gets) is valid too.
        expect(checkMessage({ ...message, blocks: withoutNewBlocks(message.blocks) })).toEqual({ ok: true });
      }),
      { numRuns: 200 },
    );
  });

  it('docs health: three lines (the three before in words) within every limit, each adding up to its days', () => {
    const input = range.chain((r) => {
      const n = chartBuckets(r).length;
      return fc.record({ r: fc.constant(r), lines: fc.array(values(n), { minLength: 6, maxLength: 6 }) });
    });
    fc.assert(
      fc.property(input, ({ r, lines }) => {
        const buckets = chartBuckets(r);
        const [a, b, c, d, e, f] = lines as [number[], number[], number[], number[], number[], number[]];
        const previous = comparesPrevious(r)
          ? {
              buckets: shiftBuckets(buckets, daysBetween(r.from, r.toExclusive)),
              noResults: d,
              thumbsDown: e,
              unanswered: f,
            }
          : undefined;
        const report: HealthReport = {
          range: r,
          top: 5,
          totalSearches: 10,
          searches: { rows: [], total: 0 },
          pages: { rows: [], total: 0 },
          questions: { rows: [], total: 0 },
          partial: [],
          trend: {
            current: { buckets, noResults: a, thumbsDown: b, unanswered: c },
            ...(previous ? { previous } : {}),
          },
        };
        const message = healthReportMessage(report, { siteUrl: undefined, fixButtons: true, postValue: 'x' });
        expect(checkMessage(message)).toEqual({ ok: true });
        const chart = chartIn(message.blocks)!;
        expect(chart.series.map((s) => s.data.reduce((t, p) => t + p.value, 0))).toEqual([a, b, c].map(sum));
        if (previous) expect(JSON.stringify(message.blocks)).toContain('The period before: ');
        expect(message.text).toMatch(/Peak (day|week|2 days period)|No signals/);
      }),
      { numRuns: 200 },
    );
  });

  it('says the peak in words under the chart and in the notification text', () => {
    const buckets = chartBuckets({ from: '2026-11-02', toExclusive: '2026-11-09' });
    const report = {
      ...REPORT,
      request: { ...REPORT.request, range: { from: '2026-11-02', toExclusive: '2026-11-09' } },
      trend: { current: { buckets, human: [5, 9, 1000, 4, 3, 2, 1], ai: [1, 1, 234, 1, 1, 1, 1] } },
    };
    const message = pageViewsReportMessage(report, { siteUrl: undefined, interactive: false });
    expect(hasNewBlocks(message.blocks)).toBe(true);
    expect(message.text).toContain('Peak day: 4 Nov, 1,234 views (1,000 people · 234 AI)');
    expect(JSON.stringify(message.blocks)).toContain('Peak day: 4 Nov, 1,234 views');
    expect(message.text).toContain('2–8 Nov');
    expect(message.text).toContain('1,200 total, 900 human, 300 AI');
  });
});

describe('the fake Slack checks data_table blocks against the published limits', () => {
  const cell = (text: string) => ({ type: 'raw_text', text });
  const table = (rows: unknown[][], extra: Record<string, unknown> = {}) => ({
    text: 'x',
    blocks: [{ type: 'data_table', caption: 'Top pages', rows, ...extra }],
  });
  it('accepts a table within them and refuses each limit broken', () => {
    const header = [cell('Page'), cell('Views')];
    const row = [cell('/docs/a'), { type: 'raw_number', value: 12 }];
    expect(checkMessage(table([header, row]))).toEqual({ ok: true });
    expect(checkMessage(table([header])).ok).toBe(false);
    expect(checkMessage(table([header, ...Array(101).fill(row)])).ok).toBe(false);
    expect(checkMessage(table([header, [cell('/docs/a')]])).ok).toBe(false);
    expect(checkMessage(table([Array(21).fill(cell('c')), Array(21).fill(cell('c'))])).ok).toBe(false);
    expect(checkMessage(table([header, [cell('x'.repeat(10_001)), row[1]]])).ok).toBe(false);
    expect(checkMessage(table([[{ type: 'rich_text', elements: [] }, cell('Views')], row])).ok).toBe(false);
    expect(checkMessage(table([header, row], { page_size: 101 })).ok).toBe(false);
    // The 2025 table block's column settings are not a data_table field; a link cell needs its url.
    expect(checkMessage(table([header, row], { column_settings: [{ align: 'right' }] })).ok).toBe(false);
    expect(checkMessage(table([header, row], { row_header_column_index: -1 })).ok).toBe(false);
    const link = (url: unknown) => ({
      type: 'rich_text',
      elements: [{ type: 'rich_text_section', elements: [{ type: 'link', url, text: '/docs/a' }] }],
    });
    expect(checkMessage(table([header, [link('https://docs.acme.dev/a'), row[1]]]))).toEqual({ ok: true });
    expect(checkMessage(table([header, [link(''), row[1]]])).ok).toBe(false);
    expect(checkMessage({ text: 'x', blocks: [{ type: 'data_table', rows: [header, row] }] }).ok).toBe(false);
  });
});
