export interface PollTiming {
  /** Fastest interval, also the first poll delay (POLL_INTERVAL_MS). */
  minMs: number;
  /** Backoff cap (POLL_MAX_INTERVAL_MS). */
  maxMs: number;
}

/**
 * Jobs younger than 120 fastest intervals (10 minutes by default) are "short": the PR link should follow
 * within seconds. A poll finds a job that ended uniformly within the interval, so the p95 delay is about
 * 0.95 × the interval (+10% jitter): 2.2 × the fastest interval (11 s by default) keeps it under 12 s.
 * Both follow the configured timing, so a scaled-down timing (benchmarks) keeps the same shape.
 */
const SHORT_JOB_INTERVALS_OF_AGE = 120;
const SHORT_JOB_MAX_INTERVALS = 2.2;
/** For longer jobs the interval is this share of the job's age: the delay stays a small fraction of it. */
const LONG_JOB_FACTOR = 0.1;

/**
 * Delay before the next poll of a job that has been active for `ageMs`.
 * - First 4 intervals: the fastest rate, so 20-second jobs are seen at once.
 * - Up to 10 minutes: half the age, at most 11 s (2.2 fastest intervals): p95 delay < 12 s.
 * - After that: 10% of the age, up to the cap: a 30-minute job costs ~75 calls instead of 360.
 * `random` adds ±10% jitter so jobs started together do not poll together.
 */
export function nextPollDelay(ageMs: number, timing: PollTiming, random: () => number = Math.random): number {
  return jittered(adaptiveDelay(ageMs, timing), timing, random);
}

/**
 * With the GitHub doorbell watching the job's repository a new PR polls the job at once, so its own polls
 * only notice an end without a PR (failed, cancelled, no changes) and the card's progress: after the first
 * poll (which learns the branch, so a PR rings only its job) the delay grows to 3 × the job's age, bounded
 * at 6 fastest intervals (30 s by default: an end without a PR is still seen within it), and never shorter
 * than `nextPollDelay`'s (a long job keeps its own backoff).
 */
const WATCHED_AGE_FACTOR = 3;
const WATCHED_MAX_INTERVALS = 6;

export function watchedPollDelay(
  ageMs: number,
  timing: PollTiming,
  random: () => number = Math.random,
): number {
  const watched = clamp(WATCHED_AGE_FACTOR * ageMs, timing.minMs, WATCHED_MAX_INTERVALS * timing.minMs);
  return jittered(Math.max(adaptiveDelay(ageMs, timing), watched), timing, random);
}

function adaptiveDelay(ageMs: number, timing: PollTiming): number {
  const { minMs, maxMs } = timing;
  const shortMax = SHORT_JOB_MAX_INTERVALS * minMs;
  if (ageMs < 4 * minMs) return minMs;
  if (ageMs < SHORT_JOB_INTERVALS_OF_AGE * minMs) return clamp(ageMs / 2, minMs, shortMax);
  return clamp(ageMs * LONG_JOB_FACTOR, shortMax, maxMs);
}

/** ±10% so jobs started together do not poll together, within the configured bounds. */
function jittered(delay: number, timing: PollTiming, random: () => number): number {
  return Math.round(clamp(delay * (0.9 + 0.2 * random()), timing.minMs, timing.maxMs));
}

/** Delay after a failed poll: exponential from the fastest interval, capped, or what the API asked for. */
export function failedPollDelay(failures: number, timing: PollTiming, retryAfterMs?: number): number {
  const exponential = clamp(timing.minMs * 2 ** Math.min(failures, 16), timing.minMs, timing.maxMs);
  return retryAfterMs === undefined ? exponential : Math.max(retryAfterMs, timing.minMs);
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
