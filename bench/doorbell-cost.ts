import type { PollTiming } from '../src/jobs/domain/poll-timing.js';
import { fixedCalls, type SimJob, type SimResult, simulateRepository } from './doorbell-sim.js';
import { sized } from './smoke.js';
import { fmt, median, percentile, type Row, seededRandom, table } from './stats.js';

/**
 * Time to the PR link with the GitHub doorbell against polling alone (issue 28), on a simulated clock.
 * Jobs of about 1, 5 and 30 minutes (±10%, in turn) start at random (exponential gaps) in one repository,
 * where other people open PRs too; each job opens its PR when it ends. Production poll schedule
 * (POLL_INTERVAL_MS 5 s, POLL_MAX_INTERVAL_MS 60 s), doorbell every 2 s (PR_DOORBELL_INTERVAL_MS), 300 ms
 * per GitHub read and per docs poll. Calls are compared with a fixed 5 s poller on the same jobs.
 */
const JOBS = sized(1_500, 30);
const CLASSES_MIN = [1, 5, 30] as const;
const timing: PollTiming = { minMs: 5_000, maxMs: 60_000 };
const DOORBELL_MS = 2_000;
const RTT_MS = 300;
export const DOORBELL_P95_TARGET_S = 4;
export const DOORBELL_SHARE_TARGET = 0.3;
export const COUNTED_PER_PR_TARGET = 1;

interface Scenario {
  name: string;
  /** Mean gap between job starts in the repository (0: every job alone in its repository). */
  jobGapMin: number;
  /** Mean gap between other people's PRs (0: none). */
  otherPrGapMin: number;
  /** The scenario the targets are read on. */
  target: boolean;
}

const SCENARIOS: Scenario[] = [
  { name: 'one job at a time (hours apart), no other PRs', jobGapMin: 0, otherPrGapMin: 0, target: false },
  {
    name: "a team's repository: a job every 5 min, another PR every 30 min",
    jobGapMin: 5,
    otherPrGapMin: 30,
    target: true,
  },
  {
    name: 'a busy repository: a job every minute, another PR every 10 min',
    jobGapMin: 1,
    otherPrGapMin: 10,
    target: false,
  },
];

function jobsOf(scenario: Scenario, random: () => number): SimJob[] {
  let t = 0;
  return Array.from({ length: JOBS }, (_, i) => {
    const minutes = CLASSES_MIN[i % CLASSES_MIN.length]!;
    t += scenario.jobGapMin > 0 ? -Math.log(1 - random()) * scenario.jobGapMin * 60_000 : 3_600_000;
    const start = Math.round(t);
    return { start, end: start + Math.round(minutes * 60_000 * (0.9 + 0.2 * random())) };
  });
}

function otherPrsOf(scenario: Scenario, until: number, random: () => number): number[] {
  const prs: number[] = [];
  if (scenario.otherPrGapMin <= 0) return prs;
  for (let t = -Math.log(1 - random()) * scenario.otherPrGapMin * 60_000; t < until; ) {
    prs.push(Math.round(t));
    t += -Math.log(1 - random()) * scenario.otherPrGapMin * 60_000;
  }
  return prs;
}

/** The repository's very first read has no ETag yet: one counted call more (its ETag is then kept a day). */
async function run(scenario: Scenario, jobs: SimJob[], doorbellMs: number): Promise<SimResult> {
  const random = seededRandom(doorbellMs + 17);
  const others = otherPrsOf(scenario, Math.max(...jobs.map((j) => j.end)), seededRandom(29));
  const first = doorbellMs > 0 ? 1 : 0;
  if (scenario.jobGapMin > 0) {
    const result = await simulateRepository({
      ...{ jobs, otherPrs: others, timing, doorbellMs, rttMs: RTT_MS, random },
      watchedBackoff: doorbellMs > 0,
    });
    return { ...result, githubCounted: result.githubCounted + first };
  }
  // One job at a time: each job's life simulated alone (the repository's ETag kept between them), summed.
  const total: SimResult = { delays: [], docsCalls: 0, githubReads: 0, githubCounted: first, newPrs: 0 };
  for (const job of jobs) {
    const one = await simulateRepository({
      ...{ jobs: [job], otherPrs: [], timing, doorbellMs, rttMs: RTT_MS, random },
      watchedBackoff: doorbellMs > 0,
    });
    total.delays.push(...one.delays);
    total.docsCalls += one.docsCalls;
    total.githubReads += one.githubReads;
    total.githubCounted += one.githubCounted;
    total.newPrs += one.newPrs;
  }
  return total;
}

export interface DoorbellSummary {
  p95S: number;
  share: number;
  countedPerPr: number;
  adaptiveP95S: number;
  adaptiveShare: number;
}

export async function runDoorbellCost(): Promise<{ rows: Row[]; summary: DoorbellSummary }> {
  const rows: Row[] = [];
  let summary: DoorbellSummary | undefined;
  for (const scenario of SCENARIOS) {
    const jobs = jobsOf(scenario, seededRandom(5));
    const fixed = jobs.reduce((sum, job) => sum + fixedCalls(job, 5_000), 0);
    const alone = await run(scenario, jobs, 0);
    const rung = await run(scenario, jobs, DOORBELL_MS);
    for (const [mode, result] of [
      ['adaptive polling alone', alone],
      ['adaptive + doorbell', rung],
    ] as const) {
      const delaysS = result.delays.map((d) => d / 1000);
      rows.push({
        repository: scenario.name,
        mode,
        'PR link delay p50 / p95 / max (s)': `${fmt(median(delaysS))} / ${fmt(percentile(delaysS, 95))} / ${fmt(Math.max(...delaysS))}`,
        'p95, jobs < 10 min (s)': fmt(
          percentile(
            delaysS.filter((_, i) => CLASSES_MIN[i % CLASSES_MIN.length]! < 10),
            95,
          ),
        ),
        'docs calls/job': fmt(result.docsCalls / jobs.length),
        'share of fixed 5 s': `${fmt((100 * result.docsCalls) / fixed)}%`,
        'GitHub reads (304 free)': mode === 'adaptive polling alone' ? '—' : result.githubReads,
        'counted / new PRs':
          mode === 'adaptive polling alone' ? '—' : `${result.githubCounted} / ${result.newPrs}`,
      });
    }
    if (scenario.target)
      summary = {
        p95S: percentile(rung.delays, 95) / 1000,
        share: rung.docsCalls / fixed,
        countedPerPr: rung.githubCounted / rung.newPrs,
        adaptiveP95S: percentile(alone.delays, 95) / 1000,
        adaptiveShare: alone.docsCalls / fixed,
      };
  }
  return { rows, summary: summary! };
}

export function doorbellVerdict(s: DoorbellSummary): string[] {
  const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
  return [
    `team repository, PR link p95 after the PR is created: ${fmt(s.p95S)} s (polling alone ${fmt(s.adaptiveP95S)} s): target ≤ ${DOORBELL_P95_TARGET_S} s ${verdict(s.p95S <= DOORBELL_P95_TARGET_S)}`,
    `team repository, docs API calls: ${fmt(100 * s.share)}% of a fixed 5 s poller's (polling alone ${fmt(100 * s.adaptiveShare)}%): target ≤ ${100 * DOORBELL_SHARE_TARGET}% ${verdict(s.share <= DOORBELL_SHARE_TARGET)}`,
    `team repository, GitHub calls counted against the rate limit: ${fmt(s.countedPerPr, 2)} per new PR (304s apart): target ≤ ${COUNTED_PER_PR_TARGET} ${verdict(s.countedPerPr <= COUNTED_PER_PR_TARGET)}`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const started = Date.now();
  const { rows, summary } = await runDoorbellCost();
  console.log(table(rows));
  for (const line of doorbellVerdict(summary)) console.log(line);
  console.log(`(${fmt((Date.now() - started) / 1000)} s)`);
}
