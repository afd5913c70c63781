/**
 * The published limits of Slack's 2026 blocks, checked independently of the product's builders:
 * `data_visualization` (docs.slack.dev "Data visualization block", changelog 2026-06-16) and `data_table`
 * (docs.slack.dev "Data table block"). Error strings follow Slack's `invalid_blocks` `errors` array.
 */

export const CHART_BLOCK_LIMITS = {
  title: 50,
  series: 6,
  seriesName: 20,
  points: 20,
  categoryLabel: 20,
  axisLabel: 50,
  segments: 6,
  segmentLabel: 20,
  tableRows: 101,
  tableColumns: 20,
  tableChars: 10_000,
  pageSize: 100,
} as const;

import { checkRichText } from './slack-block-kit-rich-text.js';

type Json = Record<string, unknown>;
const len = (value: unknown) => (typeof value === 'string' ? Array.from(value).length : 0);
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function text(value: unknown, max: number, pointer: string, errors: string[], required = true): void {
  if (value === undefined && !required) return;
  if (typeof value !== 'string' || value.length === 0)
    errors.push(`must be more than 0 characters [json-pointer:${pointer}]`);
  else if (len(value) > max) errors.push(`must be less than ${max + 1} characters [json-pointer:${pointer}]`);
}

function count(
  value: unknown,
  min: number,
  max: number,
  pointer: string,
  errors: string[],
): value is unknown[] {
  if (Array.isArray(value) && value.length >= min && value.length <= max) return true;
  errors.push(`must be between ${min} and ${max} items [json-pointer:${pointer}]`);
  return false;
}

export function checkDataVisualization(block: Json, pointer: string, errors: string[]): void {
  text(block.title, CHART_BLOCK_LIMITS.title, `${pointer}/title`, errors);
  const chart = block.chart;
  if (!isObject(chart)) {
    errors.push(`must provide an object [json-pointer:${pointer}/chart]`);
    return;
  }
  const at = `${pointer}/chart`;
  if (chart.type === 'pie') {
    if (!count(chart.segments, 1, CHART_BLOCK_LIMITS.segments, `${at}/segments`, errors)) return;
    chart.segments.forEach((segment, i) => {
      const s = isObject(segment) ? segment : {};
      text(s.label, CHART_BLOCK_LIMITS.segmentLabel, `${at}/segments/${i}/label`, errors);
      if (typeof s.value !== 'number' || !Number.isFinite(s.value) || s.value <= 0)
        errors.push(`must be greater than 0 [json-pointer:${at}/segments/${i}/value]`);
    });
    return;
  }
  if (chart.type !== 'bar' && chart.type !== 'area' && chart.type !== 'line') {
    errors.push(`must be a valid enum value [json-pointer:${at}/type]`);
    return;
  }
  const axis = chart.axis_config;
  if (!isObject(axis)) {
    errors.push(`must provide an object [json-pointer:${at}/axis_config]`);
    return;
  }
  text(axis.x_label, CHART_BLOCK_LIMITS.axisLabel, `${at}/axis_config/x_label`, errors, false);
  text(axis.y_label, CHART_BLOCK_LIMITS.axisLabel, `${at}/axis_config/y_label`, errors, false);
  if (!count(axis.categories, 1, CHART_BLOCK_LIMITS.points, `${at}/axis_config/categories`, errors)) return;
  const categories = axis.categories;
  categories.forEach((c, i) => {
    text(c, CHART_BLOCK_LIMITS.categoryLabel, `${at}/axis_config/categories/${i}`, errors);
  });
  if (new Set(categories).size !== categories.length)
    errors.push(`must be unique [json-pointer:${at}/axis_config/categories]`);
  if (!count(chart.series, 1, CHART_BLOCK_LIMITS.series, `${at}/series`, errors)) return;
  const names = new Set<unknown>();
  chart.series.forEach((series, i) => {
    const s = isObject(series) ? series : {};
    text(s.name, CHART_BLOCK_LIMITS.seriesName, `${at}/series/${i}/name`, errors);
    if (names.has(s.name)) errors.push(`must be unique [json-pointer:${at}/series/${i}/name]`);
    names.add(s.name);
    if (!count(s.data, 1, CHART_BLOCK_LIMITS.points, `${at}/series/${i}/data`, errors)) return;
    const labels = s.data.map((point) => (isObject(point) ? point.label : undefined));
    // Exactly one point per category, in the axis's order.
    if (labels.length !== categories.length || labels.some((label, j) => label !== categories[j]))
      errors.push(`must match axis_config.categories [json-pointer:${at}/series/${i}/data]`);
    s.data.forEach((point, j) => {
      const value = isObject(point) ? point.value : undefined;
      if (typeof value !== 'number' || !Number.isFinite(value))
        errors.push(`must be a number [json-pointer:${at}/series/${i}/data/${j}/value]`);
    });
  });
}

/** The fields a `data_table` has: the 2025 `table` block's `column_settings` is not one of them. */
const DATA_TABLE_FIELDS = new Set([
  'type',
  'block_id',
  'caption',
  'rows',
  'page_size',
  'row_header_column_index',
]);

/**
 * `data_table`: a header row of raw_text/raw_number cells, 1 to 100 more rows, 1 to 20 columns; rich_text
 * cells checked as rich text; no field the block does not have.
 */
export function checkDataTable(block: Json, pointer: string, errors: string[]): void {
  for (const key of Object.keys(block))
    if (!DATA_TABLE_FIELDS.has(key))
      errors.push(`must not have additional property '${key}' [json-pointer:${pointer}]`);
  if (typeof block.caption !== 'string' || block.caption.length === 0)
    errors.push(`must be more than 0 characters [json-pointer:${pointer}/caption]`);
  if (block.page_size !== undefined) {
    const size = block.page_size;
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > CHART_BLOCK_LIMITS.pageSize)
      errors.push(`must be between 1 and ${CHART_BLOCK_LIMITS.pageSize} [json-pointer:${pointer}/page_size]`);
  }
  if (!count(block.rows, 2, CHART_BLOCK_LIMITS.tableRows, `${pointer}/rows`, errors)) return;
  const rows = block.rows;
  const width = Array.isArray(rows[0]) ? rows[0].length : 0;
  if (width < 1 || width > CHART_BLOCK_LIMITS.tableColumns)
    errors.push(
      `must be between 1 and ${CHART_BLOCK_LIMITS.tableColumns} items [json-pointer:${pointer}/rows/0]`,
    );
  const rowHeader = block.row_header_column_index;
  if (
    rowHeader !== undefined &&
    (typeof rowHeader !== 'number' || !Number.isInteger(rowHeader) || rowHeader < 0 || rowHeader >= width)
  )
    errors.push(`must be a column index [json-pointer:${pointer}/row_header_column_index]`);
  let chars = 0;
  rows.forEach((row, r) => {
    if (!Array.isArray(row) || row.length !== width) {
      errors.push(`must have ${width} items [json-pointer:${pointer}/rows/${r}]`);
      return;
    }
    row.forEach((cell, c) => {
      const at = `${pointer}/rows/${r}/${c}`;
      if (!isObject(cell)) {
        errors.push(`must provide an object [json-pointer:${at}]`);
        return;
      }
      if (cell.type === 'raw_text') {
        text(cell.text, Number.POSITIVE_INFINITY, `${at}/text`, errors);
        chars += len(cell.text);
      } else if (cell.type === 'raw_number') {
        if (typeof cell.value !== 'number' || !Number.isFinite(cell.value))
          errors.push(`must be a number [json-pointer:${at}/value]`);
        text(cell.text, Number.POSITIVE_INFINITY, `${at}/text`, errors, false);
        chars += len(cell.text) || String(cell.value).length;
      } else if (cell.type === 'rich_text' && r > 0) {
        checkRichText(cell, at, errors);
        chars += JSON.stringify(cell.elements ?? []).length;
      } else errors.push(`must be a valid enum value [json-pointer:${at}/type]`);
    });
  });
  if (chars > CHART_BLOCK_LIMITS.tableChars)
    errors.push(
      `must be less than ${CHART_BLOCK_LIMITS.tableChars + 1} characters [json-pointer:${pointer}/rows]`,
    );
}

/** True when a message's blocks hold a block a workspace without the 2026 blocks refuses. */
export function hasNewBlocks(blocks: unknown): boolean {
  return (
    Array.isArray(blocks) &&
    blocks.some((b) => isObject(b) && (b.type === 'data_visualization' || b.type === 'data_table'))
  );
}
