import { DEFAULT_RANGE, daysBetween, isValidDate, isValidTimeZone, type RangeSpec } from './dates.js';

export const DEFAULT_TOP = 10;
export const MAX_TOP = 50;
export const MAX_EXPLICIT_DAYS = 366;
const MAX_PREFIX_CHARS = 200;

export interface ReportParams {
  range: RangeSpec;
  top: number;
  /** Only pages whose path starts with this (e.g. `/api`). */
  prefix: string | undefined;
}

export type Weekday = 0 | 1 | 2 | 3 | 4 | 5 | 6;

export type PageViewsCommand =
  | { kind: 'help' }
  | { kind: 'report'; params: ReportParams; csv: boolean }
  | { kind: 'schedule'; weekday: Weekday; hour: number; minute: number; timeZone: string | undefined }
  | { kind: 'schedules' }
  | { kind: 'unschedule' }
  | { kind: 'invalid'; token: string; problem: string };

const RANGE_WORDS: Record<string, RangeSpec> = {
  yesterday: { kind: 'yesterday' },
  'last-week': { kind: 'last-week' },
  'this-month': { kind: 'this-month' },
  'last-month': { kind: 'last-month' },
};

/** Cron day-of-week numbers (0 = Sunday). */
const WEEKDAYS: Record<string, Weekday> = {
  sun: 0,
  sunday: 0,
  mon: 1,
  monday: 1,
  tue: 2,
  tues: 2,
  tuesday: 2,
  wed: 3,
  wednesday: 3,
  thu: 4,
  thur: 4,
  thurs: 4,
  thursday: 4,
  fri: 5,
  friday: 5,
  sat: 6,
  saturday: 6,
};

export const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

const invalid = (token: string, problem: string): PageViewsCommand => ({ kind: 'invalid', token, problem });

/**
 * Parses `/docs-views` text: `[range] [top N] [path-prefix] [csv]` in any order, `help`, or the schedule
 * sub-commands. Never guesses: anything it cannot read is reported with the exact token.
 */
export function parsePageViewsCommand(text: string | undefined): PageViewsCommand {
  const tokens = (text ?? '').trim().split(/\s+/).filter(Boolean);
  const first = tokens[0]?.toLowerCase();
  if (first === undefined) return { kind: 'report', params: defaultParams(), csv: false };
  if (/^(help|-h|--help|\?)$/.test(first)) return { kind: 'help' };
  if (first === 'schedule') return parseSchedule(tokens.slice(1));
  if (first === 'schedules') return tokens.length === 1 ? { kind: 'schedules' } : extra(tokens[1]!);
  if (first === 'unschedule') return tokens.length === 1 ? { kind: 'unschedule' } : extra(tokens[1]!);

  let range: RangeSpec | undefined;
  let rangeToken = '';
  let top: number | undefined;
  let prefix: string | undefined;
  let csv = false;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    const lower = token.toLowerCase();
    const word = RANGE_WORDS[lower];
    const explicit = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/.exec(token);
    if (word || explicit || /^\d+d$/i.test(token) || token.includes('..')) {
      if (range)
        return invalid(token, `is a second date range (already have \`${rangeToken}\`); give one range`);
      const parsed = word ?? parseRangeToken(token);
      if ('problem' in parsed) return invalid(token, parsed.problem);
      range = parsed;
      rangeToken = token;
    } else if (lower === 'top' || /^top\d+$/.test(lower)) {
      if (top !== undefined) return invalid(token, 'is a second `top`; give it once');
      const raw = lower === 'top' ? tokens[++i] : lower.slice(3);
      if (raw === undefined)
        return invalid(token, `needs a number after it, such as \`top 20\` (1–${MAX_TOP})`);
      if (!/^\d+$/.test(raw)) return invalid(raw, `is not a number; write \`top 20\` (1–${MAX_TOP})`);
      const n = Number(raw);
      if (n < 1 || n > MAX_TOP) return invalid(raw, `is out of range for \`top\`: use 1–${MAX_TOP}`);
      top = n;
    } else if (lower === 'csv') {
      csv = true;
    } else if (token.startsWith('/')) {
      if (prefix !== undefined) return invalid(token, `is a second path prefix (already have \`${prefix}\`)`);
      if (Array.from(token).length > MAX_PREFIX_CHARS)
        return invalid(token.slice(0, 40), `starts a path prefix longer than ${MAX_PREFIX_CHARS} characters`);
      prefix = token;
    } else if (WEEKDAYS[lower] !== undefined || /^\d{1,2}:\d{2}$/.test(token)) {
      return invalid(token, 'belongs to a schedule: write `schedule <weekday> <HH:MM> [time zone]`');
    } else {
      return invalid(token, 'is not a range, `top N`, a path prefix (starting with `/`) or `csv`');
    }
  }
  return { kind: 'report', params: { range: range ?? DEFAULT_RANGE, top: top ?? DEFAULT_TOP, prefix }, csv };
}

function defaultParams(): ReportParams {
  return { range: DEFAULT_RANGE, top: DEFAULT_TOP, prefix: undefined };
}

function extra(token: string): PageViewsCommand {
  return invalid(token, 'is unexpected here: this sub-command takes no arguments');
}

function parseRangeToken(token: string): RangeSpec | { problem: string } {
  const lastDays = /^(\d{1,6})d$/i.exec(token);
  if (lastDays) {
    const days = Number(lastDays[1]);
    if (days < 1 || days > MAX_EXPLICIT_DAYS)
      return { problem: `is not a number of days from 1 to ${MAX_EXPLICIT_DAYS}, such as \`7d\` or \`14d\`` };
    return { kind: 'days', days };
  }
  if (/^\d+d$/i.test(token))
    return { problem: `is not a number of days from 1 to ${MAX_EXPLICIT_DAYS}, such as \`7d\` or \`14d\`` };
  const match = /^(\d{4}-\d{2}-\d{2})\.\.(\d{4}-\d{2}-\d{2})$/.exec(token);
  if (!match)
    return { problem: 'is not a date range: write `YYYY-MM-DD..YYYY-MM-DD`, e.g. `2025-03-01..2025-03-31`' };
  const [, from, to] = match as unknown as [string, string, string];
  if (!isValidDate(from)) return { problem: `has \`${from}\`, which is not a calendar date` };
  if (!isValidDate(to)) return { problem: `has \`${to}\`, which is not a calendar date` };
  if (to < from) return { problem: 'ends before it starts; put the earlier date first' };
  if (daysBetween(from, to) + 1 > MAX_EXPLICIT_DAYS)
    return { problem: `covers more than ${MAX_EXPLICIT_DAYS} days; pick a shorter range` };
  return { kind: 'explicit', from, to };
}

function parseSchedule(args: string[]): PageViewsCommand {
  const usage =
    'write `schedule <weekday> <HH:MM> [IANA time zone]`, e.g. `schedule monday 09:00 Europe/Berlin`';
  const [dayToken, timeToken, zoneToken, ...rest] = args;
  if (dayToken === undefined) return invalid('schedule', `needs a weekday and a time: ${usage}`);
  const weekday = WEEKDAYS[dayToken.toLowerCase()];
  if (weekday === undefined) return invalid(dayToken, `is not a weekday: ${usage}`);
  if (timeToken === undefined) return invalid(dayToken, `needs a time after it: ${usage}`);
  const time = /^(\d{1,2}):(\d{2})$/.exec(timeToken);
  const hour = Number(time?.[1]);
  const minute = Number(time?.[2]);
  if (!time || hour > 23 || minute > 59)
    return invalid(timeToken, 'is not a 24-hour time such as `09:00` or `17:30`');
  if (zoneToken !== undefined && !isValidTimeZone(zoneToken))
    return invalid(
      zoneToken,
      'is not an IANA time zone such as `Europe/Berlin`, `America/New_York` or `UTC`',
    );
  if (rest[0] !== undefined) return invalid(rest[0], `is unexpected after the time zone: ${usage}`);
  return { kind: 'schedule', weekday, hour, minute, timeZone: zoneToken };
}
