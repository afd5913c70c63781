/** Node's timers overflow past 2^31-1 ms (~24.8 days) and then fire after 1 ms: never ask for more. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/** A delay from outside data made safe for a timer: NaN and negatives are 0, anything above `maxMs` is `maxMs`. */
export function boundedDelay(ms: number, maxMs: number = MAX_TIMER_MS): number {
  if (Number.isNaN(ms) || ms <= 0) return 0;
  return Math.min(ms, maxMs);
}

/** Exponential backoff with full jitter: `random` is injectable so tests are exact. */
export function backoffDelay(
  attempt: number,
  { baseMs, maxMs, random = Math.random }: { baseMs: number; maxMs: number; random?: () => number },
): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt));
  return Math.round(ceiling / 2 + (ceiling / 2) * random());
}

/**
 * Parses a `Retry-After` header (delta-seconds or an HTTP date) into milliseconds from `now`.
 * Returns undefined when absent or unreadable, so callers fall back to their own backoff.
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}
