import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bucketDays, chartBuckets } from '../../src/insights/ranges/buckets.js';
import { addDays } from '../../src/insights/ranges/dates.js';
import {
  CHART_LIMITS,
  ChartInputError,
  dailyChartBlock,
  pieChartBlock,
  type SeriesChart,
} from '../../src/slack/messages/charts.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

const daysFrom = (from: string, n: number) => Array.from({ length: n }, (_, i) => addDays(from, i));
const chartOf = (block: { chart: unknown }) => block.chart as SeriesChart;

const longLabel = fc.string({ minLength: 0, maxLength: 120, unit: 'grapheme' });
const dailyInput = fc
  .record({
    from: fc.date({ min: new Date('2020-01-01'), max: new Date('2030-12-31'), noInvalidDate: true }),
    length: fc.integer({ min: 1, max: 90 }),
    seriesCount: fc.integer({ min: 1, max: 6 }),
    title: longLabel,
    names: fc.array(longLabel, { minLength: 6, maxLength: 6 }),
    yLabel: longLabel,
    kind: fc.constantFrom('line' as const, 'bar' as const, 'area' as const),
  })
  .chain((r) =>
    fc
      .array(fc.array(fc.nat({ max: 1_000_000 }), { minLength: r.length, maxLength: r.length }), {
        minLength: r.seriesCount,
        maxLength: r.seriesCount,
      })
      .map((values) => ({ ...r, values })),
  );

describe('dailyChartBlock', () => {
  it('holds every published limit for 1 to 90 days, any labels, and keeps each series total', () => {
    fc.assert(
      fc.property(dailyInput, (r) => {
        const days = daysFrom(r.from.toISOString().slice(0, 10), r.length);
        const block = dailyChartBlock({
          title: r.title,
          days,
          kind: r.kind,
          yLabel: r.yLabel,
          series: r.values.map((values, i) => ({ name: r.names[i]!, values })),
        });
        // The fake Slack's independent checker accepts it.
        expect(checkMessage({ text: 'x', blocks: [block] })).toEqual({ ok: true });
        const chart = chartOf(block);
        expect(chart.axis_config.categories.length).toBeLessThanOrEqual(CHART_LIMITS.categories);
        expect(chart.series).toHaveLength(r.values.length);
        chart.series.forEach((series, i) => {
          const total = r.values[i]!.reduce((a, b) => a + b, 0);
          expect(series.data.reduce((a, p) => a + p.value, 0)).toBe(total);
        });
      }),
      { numRuns: 400 },
    );
  });

  it('shows days up to 20, then pairs, then weeks from Monday (90 days: 14 points at most)', () => {
    expect(bucketDays(1)).toBe(1);
    expect(bucketDays(20)).toBe(1);
    expect(bucketDays(28)).toBe(2);
    expect(bucketDays(39)).toBe(2);
    expect(bucketDays(40)).toBe(7);
    expect(bucketDays(90)).toBe(7);
    const week = dailyChartBlock({
      title: 'Views',
      days: daysFrom('2026-11-02', 7),
      series: [{ name: 'Human', values: [1, 2, 3, 4, 5, 6, 7] }],
    });
    expect(chartOf(week).axis_config.categories).toEqual([
      '2 Nov',
      '3 Nov',
      '4 Nov',
      '5 Nov',
      '6 Nov',
      '7 Nov',
      '8 Nov',
    ]);
    // 2026-09-01 is a Tuesday: the first week is cut to Tuesday–Sunday, the others run Monday to Sunday.
    const quarter = dailyChartBlock({
      title: 'Views',
      days: daysFrom('2026-09-01', 90),
      series: [{ name: 'Human', values: Array(90).fill(1) }],
    });
    const categories = chartOf(quarter).axis_config.categories;
    expect(categories).toHaveLength(13);
    expect(categories[0]).toBe('1–6 Sep');
    expect(categories[4]).toBe('28 Sep–4 Oct');
    expect(categories[12]).toBe('23–29 Nov');
    expect(chartOf(quarter).series[0]!.data.map((p) => p.value)).toEqual([6, ...Array(12).fill(7)]);
  });

  it('keeps buckets on a grid: a range moved by a day shares all but its edge buckets', () => {
    const today = chartBuckets({ from: '2026-10-01', toExclusive: '2026-10-29' });
    const tomorrow = chartBuckets({ from: '2026-10-02', toExclusive: '2026-10-30' });
    const shared = tomorrow.filter((b) =>
      today.some((t) => t.from === b.from && t.toExclusive === b.toExclusive),
    );
    expect(tomorrow.length - shared.length).toBeLessThanOrEqual(2);
    expect(today.length).toBeLessThanOrEqual(CHART_LIMITS.categories);
  });

  it('makes names unique and plain, and cuts the title to 50 characters', () => {
    const block = dailyChartBlock({
      title: `Daily views\u202e of ${'a'.repeat(80)}`,
      days: daysFrom('2026-01-30', 3),
      series: [
        { name: 'A very long series name indeed', values: [1, 2, 3] },
        { name: 'A very long series name indeed', values: [1, 2, 3] },
      ],
    });
    expect(Array.from(block.title)).toHaveLength(50);
    expect(block.title).not.toContain('\u202e');
    const names = chartOf(block).series.map((s) => s.name);
    expect(new Set(names).size).toBe(2);
    for (const name of names) expect(Array.from(name).length).toBeLessThanOrEqual(20);
    expect(chartOf(block).axis_config.categories).toEqual(['30 Jan', '31 Jan', '1 Feb']);
  });

  it('refuses input no chart can show, with a code', () => {
    const codeOf = (run: () => unknown) => {
      try {
        run();
      } catch (error) {
        return error instanceof ChartInputError ? error.code : 'other';
      }
      return 'none';
    };
    const one = [{ name: 'x', values: [1] }];
    expect(codeOf(() => dailyChartBlock({ title: 't', days: [], series: [] }))).toBe('chart_no_days');
    expect(codeOf(() => dailyChartBlock({ title: 't', days: ['2026-01-01'], series: [] }))).toBe(
      'chart_series_count',
    );
    expect(
      codeOf(() => dailyChartBlock({ title: 't', days: ['2026-01-01'], series: Array(7).fill(one[0]) })),
    ).toBe('chart_series_count');
    expect(
      codeOf(() => dailyChartBlock({ title: 't', days: ['2026-01-01', '2026-01-03'], series: one })),
    ).toBe('chart_days_not_consecutive');
    expect(
      codeOf(() => dailyChartBlock({ title: 't', days: ['2026-01-01', '2026-01-02'], series: one })),
    ).toBe('chart_series_length');
  });

  it('the fake Slack refuses a chart past a limit (so the property above can fail)', () => {
    const block = dailyChartBlock({
      title: 'Views',
      days: daysFrom('2026-11-02', 7),
      series: [{ name: 'Human', values: [1, 2, 3, 4, 5, 6, 7] }],
    });
    const tooMany = {
      ...block,
      chart: { ...chartOf(block), series: Array(7).fill(chartOf(block).series[0]) },
    };
    expect(checkMessage({ text: 'x', blocks: [tooMany] }).ok).toBe(false);
    const longTitle = { ...block, title: 'x'.repeat(51) };
    expect(checkMessage({ text: 'x', blocks: [longTitle] }).ok).toBe(false);
    const categories = Array.from({ length: 21 }, (_, i) => `d${i}`);
    const wide = {
      ...block,
      chart: {
        type: 'line',
        axis_config: { categories },
        series: [{ name: 'a', data: categories.map((label) => ({ label, value: 1 })) }],
      },
    };
    expect(checkMessage({ text: 'x', blocks: [wide] }).ok).toBe(false);
  });
});

describe('pieChartBlock', () => {
  it('drops slices that are not > 0 and stays within the limits', () => {
    const block = pieChartBlock('Share', [
      { label: 'Human readers of the docs site', value: 10 },
      { label: 'AI', value: 0 },
    ]);
    expect(block?.chart).toEqual({ type: 'pie', segments: [{ label: 'Human readers of th…', value: 10 }] });
    expect(checkMessage({ text: 'x', blocks: [block] })).toEqual({ ok: true });
    expect(pieChartBlock('Share', [{ label: 'AI', value: 0 }])).toBeUndefined();
  });
});
