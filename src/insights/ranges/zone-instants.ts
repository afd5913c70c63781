import type { DateRange } from './dates.js';

/**
 * Where a range's days begin and end as the API should see them. The platform reads a bare `YYYY-MM-DD` as
 * a UTC day, so a range in another time zone is sent as the instants of its local midnights with their
 * offsets (`2026-01-05T00:00:00+13:00`): the spec accepts ISO 8601, and no local hour falls between weeks.
 */

const MINUTE_MS = 60_000;

/** One formatter per time zone: building one costs far more than using it. */
const partFormatters = new Map<string, Intl.DateTimeFormat>();

function partFormatter(timeZone: string): Intl.DateTimeFormat {
  let formatter = partFormatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    partFormatters.set(timeZone, formatter);
  }
  return formatter;
}

/** The local wall-clock time at `epochMs`, read as if it were UTC (so `- epochMs` is the offset). */
function wallClockMs(epochMs: number, timeZone: string): number {
  const parts = partFormatter(timeZone).formatToParts(new Date(epochMs));
  const get = (type: string) => Number(parts.find((p) => p.type === type)?.value ?? 0);
  return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'));
}

/** Minutes the zone is ahead of UTC at `epochMs` (Auckland in January: 780). */
export function offsetMinutes(epochMs: number, timeZone: string): number {
  const whole = Math.floor(epochMs / 1000) * 1000;
  return Math.round((wallClockMs(whole, timeZone) - whole) / MINUTE_MS);
}

/**
 * The first instant of calendar day `ymd` in `timeZone`. Usually local 00:00; where a DST change skips
 * midnight (Santiago, Beirut…), the day begins at the change.
 */
export function startOfLocalDay(ymd: string, timeZone: string): number {
  const [y, m, d] = ymd.split('-').map(Number) as [number, number, number];
  const midnightAsUtc = Date.UTC(y, m - 1, d);
  // The offset before and after a change near midnight: one of the two candidates is the day's start.
  const early = midnightAsUtc - offsetMinutes(midnightAsUtc - 86_400_000, timeZone) * MINUTE_MS;
  const late = midnightAsUtc - offsetMinutes(midnightAsUtc + 86_400_000, timeZone) * MINUTE_MS;
  const candidates = [early, late]
    .filter((ms) => new Date(wallClockMs(ms, timeZone)).toISOString().slice(0, 10) === ymd)
    .sort((a, b) => a - b);
  return candidates[0] ?? Math.max(early, late);
}

/** `2026-01-05T00:00:00+13:00`: the instant as the zone's wall clock with its offset. */
export function localInstant(epochMs: number, timeZone: string): string {
  const offset = offsetMinutes(epochMs, timeZone);
  const wall = new Date(epochMs + offset * MINUTE_MS).toISOString().slice(0, 19);
  if (offset === 0) return `${wall}Z`;
  const abs = Math.abs(offset);
  const hh = String(Math.floor(abs / 60)).padStart(2, '0');
  const mm = String(abs % 60).padStart(2, '0');
  return `${wall}${offset < 0 ? '-' : '+'}${hh}:${mm}`;
}

/**
 * The API's `dateFrom`/`dateTo` for a range: bare days for UTC (what the platform assumes), else the
 * range's local midnights as instants. Cache keys use these too, so one key means one span of time.
 */
export function apiBounds(range: DateRange): { dateFrom: string; dateTo: string } {
  const timeZone = range.timeZone;
  if (!timeZone || timeZone === 'UTC') return { dateFrom: range.from, dateTo: range.toExclusive };
  return {
    dateFrom: localInstant(startOfLocalDay(range.from, timeZone), timeZone),
    dateTo: localInstant(startOfLocalDay(range.toExclusive, timeZone), timeZone),
  };
}
