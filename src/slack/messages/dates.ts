/**
 * Dates and durations written one way in every message: durations as "3 min" or "1 h 5 min", day ranges as
 * "18–24 Nov 2026" (both days included), and instants as Slack date tokens, which each reader's client shows
 * in their own time zone.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const DAY_MS = 86_400_000;

/** "45 s", "3 min", "1 h 5 min", "2 h": how long something ran (minutes rounded once past the first). */
export function formatDuration(ms: number): string {
  const totalSeconds = Number.isFinite(ms) ? Math.max(0, Math.round(ms / 1000)) : 0;
  if (totalSeconds < 60) return `${totalSeconds} s`;
  const totalMinutes = Math.round(totalSeconds / 60);
  const hours = Math.floor(totalMinutes / 60);
  const minutes = totalMinutes % 60;
  if (hours === 0) return `${minutes} min`;
  return minutes === 0 ? `${hours} h` : `${hours} h ${minutes} min`;
}

/** The Slack date-token formats the messages use. */
export type SlackDateToken = '{time}' | '{date_short}' | '{date_short_pretty} at {time}' | '{ago}';

/** An instant each reader sees in their own time zone, with a UTC fallback for clients that cannot. */
export function slackTime(epochMs: number, token: SlackDateToken = '{time}'): string {
  const seconds = Math.floor(epochMs / 1000);
  const fallback = `${new Date(seconds * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  return `<!date^${seconds}^${token}|${fallback}>`;
}

interface Day {
  day: number;
  month: number;
  year: number;
}

function parseDay(isoDay: string): Day | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(isoDay);
  if (!match) return undefined;
  const time = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return Number.isFinite(time) ? dayOf(time) : undefined;
}

function dayOf(time: number): Day {
  const date = new Date(time);
  return { day: date.getUTCDate(), month: date.getUTCMonth(), year: date.getUTCFullYear() };
}

/** "18 Nov 2026". */
export function formatDay(isoDay: string): string {
  const d = parseDay(isoDay);
  return d ? `${d.day} ${MONTHS[d.month]} ${d.year}` : isoDay;
}

/**
 * A range of UTC days from the API's form (`to` exclusive) to the reader's (both ends included):
 * "18–24 Nov 2026", "28 Oct – 3 Nov 2026", "29 Dec 2025 – 4 Jan 2026", or one day "18 Nov 2026".
 */
export function formatDayRange(from: string, toExclusive: string): string {
  const start = parseDay(from);
  const end = parseDay(toExclusive);
  if (!start || !end) return `${from} – ${toExclusive}`;
  const last = dayOf(Date.UTC(end.year, end.month, end.day) - DAY_MS);
  const startTime = Date.UTC(start.year, start.month, start.day);
  const lastTime = Date.UTC(last.year, last.month, last.day);
  if (lastTime <= startTime) return `${start.day} ${MONTHS[start.month]} ${start.year}`;
  if (start.year !== last.year)
    return `${start.day} ${MONTHS[start.month]} ${start.year} – ${last.day} ${MONTHS[last.month]} ${last.year}`;
  if (start.month !== last.month)
    return `${start.day} ${MONTHS[start.month]} – ${last.day} ${MONTHS[last.month]} ${last.year}`;
  return `${start.day}–${last.day} ${MONTHS[last.month]} ${last.year}`;
}
