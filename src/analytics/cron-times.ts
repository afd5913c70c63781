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
