import { Cron } from 'croner';
import type { Weekday } from './grammar.js';

/** Occurrences of a cron pattern in an IANA time zone (croner does the DST-aware calendar work). */
function cronOf(pattern: string, timeZone: string): Cron {
  return new Cron(pattern, { timezone: timeZone, paused: true });
}

export function weeklyCron(weekday: Weekday, hour: number, minute: number): string {
  return `${minute} ${hour} * * ${weekday}`;
}

/** Undefined when the pattern and zone work, otherwise why not. */
export function cronProblem(pattern: string, timeZone: string): string | undefined {
  try {
    const next = cronOf(pattern, timeZone).nextRun(new Date());
    return next ? undefined : 'never fires';
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** The first occurrence strictly after `afterMs`. */
export function nextOccurrence(pattern: string, timeZone: string, afterMs: number): number | undefined {
  return cronOf(pattern, timeZone).nextRun(new Date(afterMs))?.getTime();
}

/** The last occurrence at or before `atMs`. */
export function previousOccurrence(pattern: string, timeZone: string, atMs: number): number | undefined {
  const [previous] = cronOf(pattern, timeZone).previousRuns(1, new Date(atMs + 1000));
  return previous && previous.getTime() <= atMs ? previous.getTime() : undefined;
}

const WEEKDAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const CRON_DAY_NAMES = ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'];

/**
 * `0 9 * * 1` or `0 9 * * MON` → `Monday at 09:00`; undefined for any pattern that is not one weekly time
 * (the caller shows those raw). Day names are cron's three-letter ones, any case; 7 is Sunday too.
 */
export function describeWeeklyCron(pattern: string): string | undefined {
  const match = /^(\d{1,2}) (\d{1,2}) \* \* ([0-7]|[A-Za-z]{3})$/.exec(pattern.trim().replace(/\s+/g, ' '));
  if (!match) return undefined;
  const [, minute = '', hour = '', day = ''] = match;
  const index = /^\d$/.test(day) ? Number(day) % 7 : CRON_DAY_NAMES.indexOf(day.toUpperCase());
  if (index < 0 || Number(minute) > 59 || Number(hour) > 23) return undefined;
  return `${WEEKDAY_NAMES[index]} at ${hour.padStart(2, '0')}:${minute.padStart(2, '0')}`;
}
