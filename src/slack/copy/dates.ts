/**
 * Dates and durations written one way in every message (issue 46 §3): durations as "3 min" or "1 h 5 min";
 * day ranges as "18–24 Nov" (both days included; the year only when it is not this year); instants as one
 * Slack date token, `<!date^…^{date_short} at {time}|18 Nov 2026 09:58 UTC>`, which each reader's client
 * shows in their own time zone and locale.
 */

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'] as const;
const DAY_MS = 86_400_000;

/** The one Slack date-token format of an instant; the copy test holds every message to it. */
export const INSTANT_TOKEN = '{date_short} at {time}';

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

/** An instant each reader sees in their own time zone, with a UTC fallback for clients that cannot. */
export function slackTime(epochMs: number): string {
  const seconds = Math.floor(epochMs / 1000);
  const date = new Date(seconds * 1000);
  if (!Number.isFinite(date.getTime())) return 'an unknown time';
  const d = dayOf(date.getTime());
  const fallback = `${d.day} ${MONTHS[d.month]} ${d.year} ${date.toISOString().slice(11, 16)} UTC`;
  return `<!date^${seconds}^${INSTANT_TOKEN}|${fallback}>`;
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

const thisYear = (now: number) => new Date(now).getUTCFullYear();
const written = (d: Day, year: boolean) => `${d.day} ${MONTHS[d.month]}${year ? ` ${d.year}` : ''}`;

/** "18 Nov", or "18 Nov 2025" when not this year (`now` decides which year that is). */
export function formatDay(isoDay: string, now = Date.now()): string {
  const d = parseDay(isoDay);
  return d ? written(d, d.year !== thisYear(now)) : isoDay;
}

/**
 * A range of UTC days from the API's form (`to` exclusive) to the reader's (both ends included): "18–24 Nov",
 * "28 Oct – 3 Nov", "29 Dec 2025 – 4 Jan 2026", one day "18 Nov"; the year only when it is not this year.
 */
export function formatDayRange(from: string, toExclusive: string, now = Date.now()): string {
  const start = parseDay(from);
  const end = parseDay(toExclusive);
  if (!start || !end) return `${from} – ${toExclusive}`;
  const last = dayOf(Date.UTC(end.year, end.month, end.day) - DAY_MS);
  const startTime = Date.UTC(start.year, start.month, start.day);
  const lastTime = Date.UTC(last.year, last.month, last.day);
  const year = thisYear(now);
  if (lastTime <= startTime) return written(start, start.year !== year);
  if (start.year !== last.year) return `${written(start, true)} – ${written(last, true)}`;
  const withYear = last.year !== year;
  if (start.month !== last.month) return `${written(start, false)} – ${written(last, withYear)}`;
  return `${start.day}–${written(last, withYear)}`;
}
