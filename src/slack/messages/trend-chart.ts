import type { ContextBlock } from '@slack/types';
import type { ChartMissing } from '../../insights/bucket-reads.js';
import type { HealthTrend } from '../../insights/health/health-trend.js';
import type { ViewsTrend } from '../../insights/page-views/views-trend.js';
import type { DayBucket } from '../../insights/ranges/buckets.js';
import { daysBetween } from '../../insights/ranges/dates.js';
import { bucketedChartBlock, type DailySeries, type DataVisualizationBlock } from './charts.js';
import { displayCount } from './format.js';

/** A trend as a chart with the sentence that carries its numbers (the chart adds, it never replaces). */
export interface TrendChart {
  chart: DataVisualizationBlock;
  /** "Peak day: 5 Nov, 1,234 (1,000 human · 234 AI)": also in the message's notification text. */
  peak: string;
  /** The peak sentence as a context block under the chart. */
  note: ContextBlock;
}

/** One line of a trend: a name and one count per bucket; `part`s are listed beside the peak's total. */
export interface TrendLine {
  name: string;
  values: readonly number[];
}

/** A line's name inside a sentence: "Human" → "human", acronyms ("AI") kept. */
const prose = (name: string) =>
  /^[A-Z][a-z]/.test(name) ? `${name[0]!.toLowerCase()}${name.slice(1)}` : name;

const count = (value: number) => String(displayCount(value)).replace(/\B(?=(\d{3})+$)/g, ',');

/** "day", "week" or "2 days": what one point of the chart holds. */
export function pointUnit(buckets: readonly DayBucket[]): string {
  const longest = Math.max(...buckets.map((b) => daysBetween(b.from, b.toExclusive)));
  return longest === 1 ? 'day' : longest === 7 ? 'week' : `${longest} days`;
}

/** "up 12%", "down 3%", "as many", or "" when the period before had none. */
function versus(now: number, before: number): string {
  if (before <= 0) return '';
  const pct = Math.round(((now - before) / before) * 100);
  return pct === 0 ? ' (as many now)' : ` (now ${pct > 0 ? 'up' : 'down'} ${Math.abs(pct)}%)`;
}

const sumOf = (values: readonly number[]) => values.reduce((a, v) => a + displayCount(v), 0);

/**
 * The chart of `lines` over `buckets`, and the peak of the summed current lines: the bucket with the
 * most, its label as on the chart's axis. The period before is said in words under it (each line's total
 * then, and the change), never drawn as more lines: a chart of two lines reads at a glance.
 */
export function trendChart(input: {
  /** The chart's title for what one point holds ("day", "week", "2 days"); at most 50 characters. */
  title: (unit: string) => string;
  yLabel: string;
  buckets: readonly DayBucket[];
  lines: readonly TrendLine[];
  /** The period before, said in words: each line's total then, matched to a current line by name. */
  previous?: readonly TrendLine[];
  blockId: string;
  /** Says each line's total over the range beside the peak (when the chart's counts are not the report's). */
  withTotals?: boolean;
}): TrendChart {
  const unit = pointUnit(input.buckets);
  const series: DailySeries[] = input.lines.map((line) => ({
    name: line.name,
    values: line.values.map(displayCount),
  }));
  const chart = bucketedChartBlock({
    title: input.title(unit),
    buckets: input.buckets,
    series,
    kind: 'line',
    yLabel: input.yLabel,
    blockId: input.blockId,
  });
  const sums = input.buckets.map((_, i) =>
    input.lines.reduce((s, l) => s + displayCount(l.values[i] ?? 0), 0),
  );
  const top = sums.reduce((best, value, i) => (value > sums[best]! ? i : best), 0);
  const label = chart.chart.type === 'pie' ? '' : (chart.chart.axis_config.categories[top] ?? '');
  const parts =
    input.lines.length > 1
      ? ` (${input.lines.map((l) => `${count(l.values[top] ?? 0)} ${prose(l.name)}`).join(' · ')})`
      : '';
  const peak =
    sums[top] === 0
      ? `No ${input.yLabel} in any ${unit} of the range`
      : `Peak ${unit === 'day' || unit === 'week' ? unit : `${unit} period`}: ${label}, ${count(sums[top]!)} ${input.yLabel}${parts}`;
  const totals = input.withTotals
    ? `Over the range: ${input.lines.map((l) => `${count(l.values.reduce((a, v) => a + displayCount(v), 0))} ${prose(l.name)}`).join(' · ')}. `
    : '';
  const before = input.previous
    ? ` The period before: ${input.previous
        .map((l) => {
          const then = sumOf(l.values);
          const now = sumOf(input.lines.find((line) => line.name === l.name)?.values ?? []);
          return `${count(then)} ${prose(l.name)}${versus(now, then)}`;
        })
        .join(' · ')}.`
    : '';
  return {
    chart,
    peak,
    note: {
      type: 'context',
      elements: [{ type: 'mrkdwn', text: `:chart_with_upwards_trend: ${totals}${peak}.${before}` }],
    },
  };
}

/** Views per day of a page-view report: people and AI; the previous period's in words. */
export function viewsTrendChart(trend: ViewsTrend): TrendChart {
  const { current, previous } = trend;
  return trendChart({
    title: (unit) => `Views per ${unit}: people and AI`,
    yLabel: 'views',
    buckets: current.buckets,
    lines: [
      { name: 'People', values: current.human },
      { name: 'AI', values: current.ai },
    ],
    ...(previous
      ? {
          previous: [
            { name: 'People', values: previous.human },
            { name: 'AI', values: previous.ai },
          ],
        }
      : {}),
    blockId: 'views_trend',
  });
}

/** A `/docs-health` report's daily counts: the reader signals, and the period before's beside them. */
export function healthTrendChart(trend: HealthTrend): TrendChart {
  const { current, previous } = trend;
  // Searches without results per day join once read (they may still be filling in the background).
  const searches = (series: HealthTrend['current'], name: string) =>
    series.noResults ? [{ name, values: series.noResults }] : [];
  return trendChart({
    title: (unit) => `Reader signals per ${unit}`,
    yLabel: 'signals',
    buckets: current.buckets,
    lines: [
      ...searches(current, 'Searches, no result'),
      { name: '👎 on pages', values: current.thumbsDown },
      { name: 'Unanswered', values: current.unanswered },
    ],
    ...(previous
      ? {
          previous: [
            // Line for line with the current ones: searches only where both periods have them.
            ...(current.noResults ? searches(previous, 'Searches, no result') : []),
            { name: '👎 on pages', values: previous.thumbsDown },
            { name: 'Unanswered', values: previous.unanswered },
          ],
        }
      : {}),
    blockId: 'health_trend',
    withTotals: true,
  });
}

const note = (text: string): ContextBlock => ({
  type: 'context',
  elements: [{ type: 'mrkdwn', text: `:information_source: ${text}` }],
});

/** Under a health chart drawn without its searches line: when it comes. */
export function searchesLaterNote(reads: number): ContextBlock {
  return note(
    `Searches that found nothing join this chart in later reports: their ${reads} daily ${reads === 1 ? 'read is' : 'reads are'} made in the background.`,
  );
}

/** Said where the chart would be when a report has none: the numbers are complete either way. */
export function chartMissingNote(reason: ChartMissing, reads?: number): ContextBlock {
  if (reason === 'later') {
    return note(
      `No chart this time: it needs ${reads ?? 'more'} analytics requests, over a fifth of the hourly budget, so it is read in the background for later reports and weekly posts. The numbers here are complete.`,
    );
  }
  const why =
    reason === 'budget'
      ? 'the hourly analytics budget is nearly used up, and reports come first'
      : 'the daily counts could not be read just now';
  return note(`No chart this time: ${why}. The numbers here are complete.`);
}
