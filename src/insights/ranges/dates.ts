/**
 * Calendar math for report ranges. Days are plain `YYYY-MM-DD` strings: "today" is computed in a time zone
 * with `Intl`, and everything after that is date arithmetic in UTC, where every day has 24 hours, so DST
 * never shifts a range. A range keeps its time zone: the API gets its local midnights (`apiBounds`). The
 * API's `dateTo` is exclusive; people say inclusive end dates.
 */

export type RangeSpec =
  | { kind: 'days'; days: number }
  | { kind: 'yesterday' }
  | { kind: 'last-week' }
  | { kind: 'this-month' }
  | { kind: 'last-month' }
  | { kind: 'explicit'; from: string; to: string };

/** A range of whole days: `from` inclusive, `toExclusive` exclusive (as the API wants it). */
export interface DateRange {
  from: string;
  toExclusive: string;
  /** Whose midnights bound the days (see `apiBounds`); UTC when absent. */
  timeZone?: string;
}

export const DEFAULT_RANGE: RangeSpec = { kind: 'days', days: 7 };
const DAY_MS = 86_400_000;
const YMD = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isValidTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone });
    return true;
  } catch {
    return false;
  }
}

/** Building a formatter costs far more than using one: one per time zone, reused. */
const dayFormatters = new Map<string, Intl.DateTimeFormat>();

function dayFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = dayFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    dayFormatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The calendar day (`YYYY-MM-DD`) it is at `epochMs` in `timeZone`. */
export function localDate(epochMs: number, timeZone: string): string {
  // Ad-hoc reports are in UTC: no formatter needed (formatToParts was the costliest step of a cached report).
  if (timeZone === 'UTC') return fromUtcMs(epochMs);
  const parts = dayFormatter(timeZone).formatToParts(new Date(epochMs));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${get('year')}-${get('month')}-${get('day')}`;
}

/** True for real calendar days only (`2025-02-30` is not one). */
export function isValidDate(ymd: string): boolean {
  const match = YMD.exec(ymd);
  if (!match) return false;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

function toUtcMs(ymd: string): number {
  const [y, m, d] = ymd.split('-').map(Number) as [number, number, number];
  return Date.UTC(y, m - 1, d);
}

function fromUtcMs(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

export function addDays(ymd: string, days: number): string {
  return fromUtcMs(toUtcMs(ymd) + days * DAY_MS);
}

export function daysBetween(from: string, toExclusive: string): number {
  return Math.round((toUtcMs(toExclusive) - toUtcMs(from)) / DAY_MS);
}

/** ISO weekday, 1 = Monday … 7 = Sunday. */
function isoWeekday(ymd: string): number {
  const day = new Date(toUtcMs(ymd)).getUTCDay();
  return day === 0 ? 7 : day;
}

function firstOfMonth(ymd: string, monthsAhead = 0): string {
  const [y, m] = ymd.split('-').map(Number) as [number, number];
  return fromUtcMs(Date.UTC(y, m - 1 + monthsAhead, 1));
}

/** The days a spec covers when it is `nowMs` in `timeZone`. Full days only, except `this-month` (to date). */
export function resolveRange(spec: RangeSpec, nowMs: number, timeZone: string): DateRange {
  const days = resolveDays(spec, localDate(nowMs, timeZone));
  return timeZone === 'UTC' ? days : { ...days, timeZone };
}

function resolveDays(spec: RangeSpec, today: string): DateRange {
  switch (spec.kind) {
    case 'days':
      return { from: addDays(today, -spec.days), toExclusive: today };
    case 'yesterday':
      return { from: addDays(today, -1), toExclusive: today };
    case 'last-week': {
      const thisMonday = addDays(today, 1 - isoWeekday(today));
      return { from: addDays(thisMonday, -7), toExclusive: thisMonday };
    }
    case 'this-month':
      return { from: firstOfMonth(today), toExclusive: addDays(today, 1) };
    case 'last-month':
      return { from: firstOfMonth(today, -1), toExclusive: firstOfMonth(today) };
    case 'explicit':
      return { from: spec.from, toExclusive: addDays(spec.to, 1) };
  }
}

/** The range of the same length just before `range`, for "change against the previous period". */
export function previousPeriod(range: DateRange): DateRange {
  const length = daysBetween(range.from, range.toExclusive);
  const previous = { from: addDays(range.from, -length), toExclusive: range.from };
  return range.timeZone ? { ...previous, timeZone: range.timeZone } : previous;
}

/** "2025-03-01 – 2025-03-31" (inclusive end, as people read it) or one day. */
export function formatRange(range: DateRange): string {
  const last = addDays(range.toExclusive, -1);
  return last === range.from ? range.from : `${range.from} – ${last}`;
}

/** How a spec reads in a header: "Last 7 days", "Last month", … */
export function describeSpec(spec: RangeSpec): string {
  switch (spec.kind) {
    case 'days':
      return `Last ${spec.days} days`;
    case 'yesterday':
      return 'Yesterday';
    case 'last-week':
      return 'Last week';
    case 'this-month':
      return 'This month (to date)';
    case 'last-month':
      return 'Last month';
    case 'explicit':
      return 'Custom range';
  }
}
