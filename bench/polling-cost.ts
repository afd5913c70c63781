import { nextPollDelay, type PollTiming } from '../src/jobs/domain/poll-timing.js';
import { sized } from './smoke.js';
import { fmt, median, percentile, type Row, seededRandom, table } from './stats.js';

/**
 * Time to the PR link against docs API calls, on a simulated clock (issue 16, item 5).
 * Jobs of about 1, 5 and 30 minutes (500 each, ±10% so they end at every phase of the poll schedule), each
 * polled from its creation with the production schedule (`nextPollDelay`, POLL_INTERVAL_MS 5 s,
 * POLL_MAX_INTERVAL_MS 60 s) and with a fixed 5 s poller; a job is seen at the first poll at or after it
 * ended, and its reply follows that poll. Also a log-normal mix of 1,000 jobs (median 3 min, 20 s–30 min).
 */
const PER_CLASS = sized(500, 10);
const CLASSES_MIN = [1, 5, 30] as const;
const timing: PollTiming = { minMs: 5000, maxMs: 60_000 };
/** Targets: p95 delay for jobs under 10 minutes, and calls as a share of the fixed poller's. */
export const P95_TARGET_S = 12;
export const CALL_SHARE_TARGET = 0.4;

function simulate(durationMs: number, next: (ageMs: number) => number): { calls: number; delayS: number } {
  let t = next(0);
  let calls = 1;
  while (t < durationMs) {
    t += next(t);
    calls += 1;
  }
  return { calls, delayS: (t - durationMs) / 1000 };
}

function logNormalMix(random: () => number): number[] {
  return Array.from({ length: 1000 }, () => {
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    const seconds = Math.exp(Math.log(180) + 0.9 * normal);
    return Math.round(Math.min(1800, Math.max(20, seconds)) * 1000);
  });
}

export interface PollingSummary {
  /** Worst p95 delay (s) over the classes under 10 minutes. */
  p95ShortS: number;
  /** Adaptive calls / fixed calls over the 1, 5 and 30 minute jobs together. */
  callShare: number;
  /** The same over the log-normal mix (informational). */
  mixCallShare: number;
}

export function runPollingCost(): { rows: Row[]; summary: PollingSummary } {
  const jitter = seededRandom(11);
  const adaptive = (age: number) => nextPollDelay(age, timing, jitter);
  const fixed = () => 5000;
  const spread = seededRandom(3);
  const rows: Row[] = [];
  let p95ShortS = 0;
  let adaptiveCalls = 0;
  let fixedCalls = 0;
  for (const minutes of CLASSES_MIN) {
    const jobs = Array.from({ length: PER_CLASS }, () =>
      Math.round(minutes * 60_000 * (0.9 + 0.2 * spread())),
    );
    const a = jobs.map((d) => simulate(d, adaptive));
    const f = jobs.map((d) => simulate(d, fixed));
    const sum = (list: { calls: number }[]) => list.reduce((s, o) => s + o.calls, 0);
    const p95 = percentile(
      a.map((o) => o.delayS),
      95,
    );
    if (minutes < 10) p95ShortS = Math.max(p95ShortS, p95);
    adaptiveCalls += sum(a);
    fixedCalls += sum(f);
    rows.push({
      jobs: `${minutes} min (±10%)`,
      'median delay (s)': fmt(median(a.map((o) => o.delayS))),
      'p95 delay (s)': fmt(p95),
      target: minutes < 10 ? `p95 < ${P95_TARGET_S} s` : '—',
      'fixed 5 s: median / p95 (s)': `${fmt(median(f.map((o) => o.delayS)))} / ${fmt(
        percentile(
          f.map((o) => o.delayS),
          95,
        ),
      )}`,
      'calls/job adaptive': fmt(sum(a) / PER_CLASS),
      'calls/job fixed 5 s': fmt(sum(f) / PER_CLASS),
      share: `${fmt((100 * sum(a)) / sum(f))}%`,
    });
  }
  const mix = logNormalMix(seededRandom(7));
  const mixAdaptive = mix.reduce((s, d) => s + simulate(d, adaptive).calls, 0);
  const mixFixed = mix.reduce((s, d) => s + simulate(d, fixed).calls, 0);
  return {
    rows,
    summary: { p95ShortS, callShare: adaptiveCalls / fixedCalls, mixCallShare: mixAdaptive / mixFixed },
  };
}

export function pollingVerdict(s: PollingSummary): string[] {
  return [
    `p95 delay to the PR link, jobs under 10 min: ${fmt(s.p95ShortS)} s: target < ${P95_TARGET_S} s ${
      s.p95ShortS < P95_TARGET_S ? 'MET' : 'MISSED'
    }`,
    `docs API calls for the 1, 5 and 30 min jobs: ${fmt(100 * s.callShare)}% of the fixed 5 s poller's: target ≤ ${
      100 * CALL_SHARE_TARGET
    }% ${s.callShare <= CALL_SHARE_TARGET ? 'MET' : 'MISSED'}`,
    `(informational) log-normal mix of 1,000 jobs, median 3 min: ${fmt(100 * s.mixCallShare)}% of the fixed poller's calls; ` +
      'a job under 10 min cannot go below ~40% while its p95 stays under 12 s (p95 ≈ 0.95 × interval, so the interval must stay ≤ 12.6 s against 5 s)',
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, summary } = runPollingCost();
  console.log(table(rows));
  for (const line of pollingVerdict(summary)) console.log(line);
}
