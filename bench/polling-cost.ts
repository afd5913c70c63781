import { nextPollDelay, type PollTiming } from '../src/jobs/domain/poll-timing.js';
import { fmt, median, percentile, seededRandom, table } from './stats.js';

/**
 * Benchmark 2: polling cost against detection delay, on a simulated clock.
 * 1,000 jobs with durations from 20 s to 30 min, log-normally spread around ~3 minutes. Each job is
 * polled from its creation; a job is detected at the first poll at or after it finished.
 */
const JOBS = 1000;
const MIN_S = 20;
const MAX_S = 30 * 60;

function durations(random: () => number): number[] {
  return Array.from({ length: JOBS }, () => {
    // Box-Muller normal → log-normal with median 180 s, sigma 0.9 (most jobs 1–8 minutes).
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const seconds = Math.exp(Math.log(180) + 0.9 * normal);
    return Math.round(Math.min(MAX_S, Math.max(MIN_S, seconds)) * 1000);
  });
}

interface Outcome {
  calls: number;
  delayMs: number;
}

function simulate(durationMs: number, next: (ageMs: number) => number): Outcome {
  let t = next(0);
  let calls = 1;
  while (t < durationMs) {
    t += next(t);
    calls += 1;
  }
  return { calls, delayMs: t - durationMs };
}

export function runPollingCost(): {
  rows: Array<Record<string, string | number>>;
  summary: Record<string, number>;
} {
  const timing: PollTiming = { minMs: 5000, maxMs: 60_000 };
  const jobs = durations(seededRandom(7));
  const jitter = seededRandom(11);
  const strategies = {
    adaptive: (age: number) => nextPollDelay(age, timing, jitter),
    'fixed 5 s': () => 5000,
  };
  const rows: Array<Record<string, string | number>> = [];
  const calls: Record<string, number> = {};
  const delays: Record<string, { medianShortS: number; p95LongPct: number }> = {};
  for (const [name, next] of Object.entries(strategies)) {
    const outcomes = jobs.map((d) => ({ d, ...simulate(d, next) }));
    const short = outcomes.filter((o) => o.d < 5 * 60_000);
    const long = outcomes.filter((o) => o.d >= 5 * 60_000);
    const total = outcomes.reduce((sum, o) => sum + o.calls, 0);
    calls[name] = total;
    delays[name] = {
      medianShortS: median(short.map((o) => o.delayMs / 1000)),
      p95LongPct: percentile(
        long.map((o) => (100 * o.delayMs) / o.d),
        95,
      ),
    };
    rows.push({
      poller: name,
      'GET calls': total,
      'calls/job': fmt(total / JOBS),
      'median delay <5 min (s)': fmt(median(short.map((o) => o.delayMs / 1000))),
      'p95 delay <5 min (s)': fmt(
        percentile(
          short.map((o) => o.delayMs / 1000),
          95,
        ),
      ),
      'p95 delay/age ≥5 min': `${fmt(
        percentile(
          long.map((o) => (100 * o.delayMs) / o.d),
          95,
        ),
      )}%`,
    });
  }
  const ratio = calls.adaptive! / calls['fixed 5 s']!;
  return {
    rows,
    summary: {
      jobs: JOBS,
      shortJobs: jobs.filter((d) => d < 5 * 60_000).length,
      medianDurationS: median(jobs) / 1000,
      callRatio: ratio,
      adaptiveMedianShortS: delays.adaptive!.medianShortS,
      adaptiveP95LongPct: delays.adaptive!.p95LongPct,
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, summary } = runPollingCost();
  console.log(table(rows));
  console.log(`adaptive uses ${fmt(summary.callRatio! * 100)}% of the fixed poller's calls (target ≤ 40%)`);
}
