import { AppError } from '../../common/errors.js';
import { cleanUntrusted, collapseWhitespace } from '../../common/untrusted-text.js';
import { chartBuckets, type DayBucket, MAX_CHART_POINTS } from '../../insights/ranges/buckets.js';
import { addDays, daysBetween } from '../../insights/ranges/dates.js';
import { truncate } from './limits.js';

/**
 * Slack's native chart, the `data_visualization` block (changelog 2026-06-16, docs.slack.dev "Data
 * visualization block"). `@slack/types` does not type it, so the types and their published limits live here.
 */
export const CHART_LIMITS = {
  title: 50,
  blockId: 255,
  /** bar, area and line: 1 to 6 series with unique names; pie: 1 to 6 segments. */
  series: 6,
  seriesName: 20,
  /** One data point per category, 1 to 20 per series; each label at most 20 characters. */
  categories: MAX_CHART_POINTS,
  categoryLabel: 20,
  axisLabel: 50,
  segments: 6,
  segmentLabel: 20,
} as const;

export interface ChartDataPoint {
  /** One of `axis_config.categories`. */
  label: string;
  value: number;
}

export interface ChartDataSeries {
  /** The legend entry. */
  name: string;
  data: ChartDataPoint[];
}

export interface ChartAxisConfig {
  /** The x-axis, in order: every series has exactly one point per category. */
  categories: string[];
  x_label?: string;
  y_label?: string;
}

export interface SeriesChart {
  type: 'line' | 'bar' | 'area';
  series: ChartDataSeries[];
  axis_config: ChartAxisConfig;
}

export interface PieChart {
  type: 'pie';
  /** Each value > 0; a slice's share is its value over the sum. */
  segments: ChartDataPoint[];
}

export interface DataVisualizationBlock {
  type: 'data_visualization';
  title: string;
  chart: SeriesChart | PieChart;
  block_id?: string;
}

/** One named line of a daily chart: one value per day of `DailyChartInput.days`. */
export interface DailySeries {
  name: string;
  values: readonly number[];
}

interface ChartText {
  /** Shown above the chart; cut to 50 characters. */
  title: string;
  /** `line` unless told otherwise. */
  kind?: SeriesChart['type'];
  /** The y-axis title ("views", "searches"); cut to 50 characters. */
  yLabel?: string;
  blockId?: string;
}

export interface DailyChartInput extends ChartText {
  /** Consecutive calendar days (`YYYY-MM-DD`), oldest first; any number (long ranges are bucketed). */
  days: readonly string[];
  /** 1 to 6 series, each with one value per day. Names are cut to 20 characters and made unique. */
  series: readonly DailySeries[];
}

export interface BucketedChartInput extends ChartText {
  /** 1 to 20 consecutive buckets of whole days (`chartBuckets`), oldest first. */
  buckets: readonly DayBucket[];
  /** 1 to 6 series, each with one value per bucket. */
  series: readonly DailySeries[];
}

export type ChartInputErrorCode =
  | 'chart_no_days'
  | 'chart_days_not_consecutive'
  | 'chart_series_count'
  | 'chart_series_length'
  | 'chart_too_many_points';

export class ChartInputError extends AppError<ChartInputErrorCode> {}

/**
 * A daily series as a `data_visualization` block. Long ranges are bucketed on a calendar grid (pairs of
 * days past 20 days, weeks from Monday past 39: `chartBuckets`); a bucket's value is the sum of its days,
 * so each series adds up to the same total as its input. Throws `ChartInputError` for input no chart can
 * show (no days, gaps, 0 or more than 6 series, a series of the wrong length).
 */
export function dailyChartBlock(input: DailyChartInput): DataVisualizationBlock {
  const { days, series } = input;
  if (days.length === 0) throw new ChartInputError('chart_no_days', 'A chart needs at least one day');
  const first = days[0]!;
  if (days.some((day, i) => day !== addDays(first, i)))
    throw new ChartInputError('chart_days_not_consecutive', 'Chart days must be consecutive, oldest first');
  if (series.some((s) => s.values.length !== days.length))
    throw new ChartInputError('chart_series_length', 'Every series needs one value per day');
  const buckets = chartBuckets({ from: first, toExclusive: addDays(first, days.length) });
  const bounds = buckets.map((b) => [daysBetween(first, b.from), daysBetween(first, b.toExclusive)] as const);
  return bucketedChartBlock({
    ...input,
    buckets,
    series: series.map((s) => ({ name: s.name, values: bounds.map(([a, b]) => sum(s.values.slice(a, b))) })),
  });
}

/** Values already summed per bucket (one analytics read per bucket) as a `data_visualization` block. */
export function bucketedChartBlock(input: BucketedChartInput): DataVisualizationBlock {
  const { buckets, series } = input;
  if (buckets.length === 0) throw new ChartInputError('chart_no_days', 'A chart needs at least one day');
  if (buckets.length > CHART_LIMITS.categories)
    throw new ChartInputError(
      'chart_too_many_points',
      `A chart takes at most ${CHART_LIMITS.categories} points`,
    );
  if (buckets.some((b, i) => i > 0 && b.from !== buckets[i - 1]!.toExclusive))
    throw new ChartInputError(
      'chart_days_not_consecutive',
      'Chart buckets must be consecutive, oldest first',
    );
  if (series.length === 0 || series.length > CHART_LIMITS.series)
    throw new ChartInputError('chart_series_count', `A chart takes 1 to ${CHART_LIMITS.series} series`);
  if (series.some((s) => s.values.length !== buckets.length))
    throw new ChartInputError('chart_series_length', 'Every series needs one value per bucket');
  const categories = bucketLabels(buckets);
  const names = uniqueNames(series.map((s) => s.name));
  const longest = Math.max(...buckets.map((b) => daysBetween(b.from, b.toExclusive)));
  const chart: SeriesChart = {
    type: input.kind ?? 'line',
    series: series.map((s, i) => ({
      name: names[i]!,
      data: s.values.map((value, b) => ({
        label: categories[b]!,
        value: Number.isFinite(value) ? value : 0,
      })),
    })),
    axis_config: {
      categories,
      x_label: longest === 1 ? 'Day' : longest === 7 ? 'Week (Monday to Sunday)' : `${longest}-day periods`,
      ...(input.yLabel ? { y_label: plainLabel(input.yLabel, CHART_LIMITS.axisLabel, 'Value') } : {}),
    },
  };
  return {
    type: 'data_visualization',
    title: plainLabel(input.title, CHART_LIMITS.title, 'Chart'),
    chart,
    ...(input.blockId ? { block_id: truncate(input.blockId, CHART_LIMITS.blockId) } : {}),
  };
}

/** A pie of named shares; slices that are not > 0 are left out (Slack refuses them). Undefined if none is. */
export function pieChartBlock(
  title: string,
  slices: ReadonlyArray<{ label: string; value: number }>,
): DataVisualizationBlock | undefined {
  const kept = slices.filter((s) => Number.isFinite(s.value) && s.value > 0).slice(0, CHART_LIMITS.segments);
  if (kept.length === 0) return undefined;
  const labels = uniqueNames(
    kept.map((s) => s.label),
    CHART_LIMITS.segmentLabel,
  );
  return {
    type: 'data_visualization',
    title: plainLabel(title, CHART_LIMITS.title, 'Chart'),
    chart: { type: 'pie', segments: kept.map((s, i) => ({ label: labels[i]!, value: s.value })) },
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function monthDay(ymd: string): { month: string; day: number; year: string } {
  const [y, m, d] = ymd.split('-');
  return { month: MONTHS[Number(m) - 1] ?? '?', day: Number(d), year: y!.slice(2) };
}

/**
 * "3 Nov" for a day, "3–9 Nov" or "28 Nov–4 Dec" for a bucket (the copy system's day-first dates); a range
 * of a year or more adds "’25" so labels stay unique. At most 16 characters, under Slack's 20.
 */
function bucketLabels(buckets: readonly DayBucket[]): string[] {
  const withYear = daysBetween(buckets[0]!.from, buckets[buckets.length - 1]!.toExclusive) > 365;
  return buckets.map(({ from, toExclusive }) => {
    const a = monthDay(from);
    const b = monthDay(addDays(toExclusive, -1));
    let label = `${a.day} ${a.month}`;
    if (daysBetween(from, toExclusive) > 1)
      label = a.month === b.month ? `${a.day}–${b.day} ${b.month}` : `${label}–${b.day} ${b.month}`;
    return withYear ? `${label} ’${a.year}` : label;
  });
}

/** Plain text for a chart field: invisible characters out, whitespace collapsed, cut to `max`. */
function plainLabel(text: string, max: number, fallback: string): string {
  const clean = collapseWhitespace(cleanUntrusted(text, 4 * max).text).trim();
  return truncate(clean.length > 0 ? clean : fallback, max);
}

/** Labels cut to `max` and made unique (Slack refuses two series of one name): "Views", "Views 2". */
function uniqueNames(names: readonly string[], max: number = CHART_LIMITS.seriesName): string[] {
  const seen = new Set<string>();
  return names.map((name, i) => {
    let label = plainLabel(name, max, `Series ${i + 1}`);
    for (let n = 2; seen.has(label); n += 1) {
      const suffix = ` ${n}`;
      label = `${truncate(plainLabel(name, max, `Series ${i + 1}`), max - suffix.length)}${suffix}`;
    }
    seen.add(label);
    return label;
  });
}

function sum(values: readonly number[]): number {
  let total = 0;
  for (const value of values) total += Number.isFinite(value) ? value : 0;
  return total;
}
