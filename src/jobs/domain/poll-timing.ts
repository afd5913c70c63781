export interface PollTiming {
  /** Fastest interval, also the first poll delay (POLL_INTERVAL_MS). */
  minMs: number;
  /** Backoff cap (POLL_MAX_INTERVAL_MS). */
  maxMs: number;
}

/** Jobs younger than this are "short": detection delay matters more than calls. */
const SHORT_JOB_MS = 5 * 60 * 1000;
/** For longer jobs the interval is this share of the job's age: the delay stays a small fraction of it. */
const LONG_JOB_FACTOR = 0.09;

/**
 * Delay before the next poll of a job that has been active for `ageMs`.
 * - First 4 intervals: the fastest rate, so 20-second jobs are seen at once.
 * - Up to 5 minutes: a quarter of the age, at most 3× the fastest (15 s by default): median delay stays
 *   under 10 s while calls drop well below fixed polling.
 * - After that: 9% of the age, up to the cap: a 30-minute job costs ~40 calls instead of 360.
 * `random` adds ±10% jitter so jobs started together do not poll together.
 */
export function nextPollDelay(ageMs: number, timing: PollTiming, random: () => number = Math.random): number {
  const { minMs, maxMs } = timing;
  let delay: number;
  if (ageMs < 4 * minMs) delay = minMs;
  else if (ageMs < SHORT_JOB_MS) delay = clamp(ageMs / 4, minMs, 3 * minMs);
  else delay = clamp(ageMs * LONG_JOB_FACTOR, 3 * minMs, maxMs);
  const jittered = delay * (0.9 + 0.2 * random());
  return Math.round(clamp(jittered, minMs, maxMs));
}

/** Delay after a failed poll: exponential from the fastest interval, capped, or what the API asked for. */
export function failedPollDelay(failures: number, timing: PollTiming, retryAfterMs?: number): number {
  const exponential = clamp(timing.minMs * 2 ** Math.min(failures, 16), timing.minMs, timing.maxMs);
  return retryAfterMs === undefined ? exponential : Math.max(retryAfterMs, timing.minMs);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
