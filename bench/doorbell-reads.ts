import type { PollTiming } from '../src/jobs/domain/poll-timing.js';
import { fixedCalls, type SimJob, simulateRepository } from './doorbell-sim.js';
import { sized } from './smoke.js';
import { fmt, median, percentile, type Row, seededRandom, table } from './stats.js';

/**
 * Issue 37: job reads when GitHub is the doorbell, on the drill's jobs. One drill: 10 jobs of 25–95 s
 * (uniform) started 5 s apart in one repository, each opening its PR as the platform completes it, no other
 * PRs; run many times (seeded) on the simulated clock of section 9 with the production rules (poll
 * schedules, `rings`, `jobsToRing`, `ringDelayMs`), doorbell every 2 s, 300 ms per read. Job reads are
 * compared with a fixed 5 s poller on the same jobs.
 */
const DRILLS = sized(300, 20);
const JOBS_PER_DRILL = 10;
const START_GAP_MS = 5_000;
const timing: PollTiming = { minMs: 5_000, maxMs: 60_000 };
export const READ_SHARE_TARGET = 0.4;
export const READS_P95_TARGET_S = 4;

function drillJobs(random: () => number): SimJob[] {
  return Array.from({ length: JOBS_PER_DRILL }, (_, i) => {
    const start = i * START_GAP_MS;
    return { start, end: start + Math.round(25_000 + 70_000 * random()) };
  });
}

interface Mode {
  name: string;
  doorbellMs: number;
  watchedBackoff: boolean;
}

const MODES: Mode[] = [
  { name: 'adaptive polling alone', doorbellMs: 0, watchedBackoff: false },
  { name: 'doorbell, adaptive polling (before)', doorbellMs: 2_000, watchedBackoff: false },
  { name: 'doorbell, watched backoff (now)', doorbellMs: 2_000, watchedBackoff: true },
];

export interface ReadsSummary {
  share: number;
  p95S: number;
  worstCaseShare: number;
  worstCaseP95S: number;
}

export async function runDoorbellReads(): Promise<{ rows: Row[]; summary: ReadsSummary }> {
  const rows: Row[] = [];
  const summary: Partial<ReadsSummary> = {};
  for (const branches of [true, false]) {
    for (const mode of MODES) {
      let reads = 0;
      let fixed = 0;
      const delays: number[] = [];
      const jobsRandom = seededRandom(37);
      const random = seededRandom(41);
      for (let drill = 0; drill < DRILLS; drill += 1) {
        const jobs = drillJobs(jobsRandom);
        fixed += jobs.reduce((sum, job) => sum + fixedCalls(job, 5_000), 0);
        const result = await simulateRepository({
          ...{ jobs, otherPrs: [], timing, doorbellMs: mode.doorbellMs, rttMs: 300, random },
          ...{ branches, watchedBackoff: mode.watchedBackoff },
        });
        reads += result.docsCalls;
        delays.push(...result.delays.map((d) => d / 1000));
      }
      rows.push({
        'branch reported': branches ? 'yes (a second in)' : 'no (worst case)',
        mode: mode.name,
        'job reads / drill': fmt(reads / DRILLS),
        'fixed 5 s / drill': fmt(fixed / DRILLS),
        'share of fixed 5 s': `${fmt((100 * reads) / fixed)}%`,
        'PR link p50 / p95 / max (s)': `${fmt(median(delays))} / ${fmt(percentile(delays, 95))} / ${fmt(Math.max(...delays))}`,
      });
      if (mode.watchedBackoff && branches) {
        summary.share = reads / fixed;
        summary.p95S = percentile(delays, 95);
      } else if (mode.watchedBackoff) {
        summary.worstCaseShare = reads / fixed;
        summary.worstCaseP95S = percentile(delays, 95);
      }
    }
  }
  return { rows, summary: summary as ReadsSummary };
}

export function readsVerdict(s: ReadsSummary): string[] {
  const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
  return [
    `drill (10 jobs of 25–95 s, branch reported): job reads ${fmt(100 * s.share)}% of a fixed 5 s poller's: target ≤ ${100 * READ_SHARE_TARGET}% ${verdict(s.share <= READ_SHARE_TARGET)}; PR link p95 ${fmt(s.p95S)} s: target ≤ ${READS_P95_TARGET_S} s ${verdict(s.p95S <= READS_P95_TARGET_S)}`,
    `same drill, no branch reported (each PR rings its candidates in turn): job reads ${fmt(100 * s.worstCaseShare)}%: target ≤ ${100 * READ_SHARE_TARGET}% ${verdict(s.worstCaseShare <= READ_SHARE_TARGET)}; PR link p95 ${fmt(s.worstCaseP95S)} s: target ≤ ${READS_P95_TARGET_S} s ${verdict(s.worstCaseP95S <= READS_P95_TARGET_S)}`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, summary } = await runDoorbellReads();
  console.log(table(rows));
  for (const line of readsVerdict(summary)) console.log(line);
}
