import { FAKE_GITHUB_TOKEN } from '../test/support/fake-github.js';
import { postSigned, slashCommandBody } from '../test/support/slack-signing.js';
import { SIGNING_SECRET } from '../test/support/test-app.js';
import { COUNTED_PER_PR_TARGET, DOORBELL_P95_TARGET_S } from './doorbell-cost.js';
import { FakesProcess, type GitHubReport } from './fakes-process.js';
import { startBenchApp } from './harness.js';
import { sized } from './smoke.js';
import { fmt, median, percentile, type Row, seededRandom } from './stats.js';

/**
 * The doorbell in real time through the product (issue 28): the real app (memory mode, production poll
 * settings: 5 s backing off to 60 s; PR_DOORBELL_INTERVAL_MS 2 s) against the fake Slack, the fake platform
 * and a fake GitHub in a child process. `/docs-agent` jobs are started one every 2 s over signed requests,
 * in three channels in turn, all on one repository;
 * each completes after 10, 30 or 60 s (±10%, in turn), and the fake GitHub opens its PR at that moment.
 * Measured: from the PR's creation to the thread reply carrying the platform's link reaching Slack; the
 * polls per job against a fixed 5 s poller; the pulls-list reads GitHub counted (200) and did not (304).
 */
const JOBS = sized(24, 3);
const START_GAP_MS = sized(2_000, 500);
/** A team's channels: Slack takes about one message a second per channel, which one channel's burst would measure. */
const CHANNELS = ['C0DOCS', 'C0API', 'C0GUIDES'] as const;
/** Job lengths in turn (the smoke run shortens them: it proves the section runs, measures nothing). */
const DURATIONS_S = [10, 30, 60].map((s) => s * sized(1, 0.2));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface LiveSummary {
  reportBranch: boolean;
  p95S: number;
  countedPerPr: number;
  replied: number;
  jobs: number;
}

/** `reportBranch`: the fake platform reports each job's branch a second into it (the PR's head branch). */
export async function runDoorbellLive(reportBranch: boolean): Promise<{ rows: Row[]; summary: LiveSummary }> {
  const fakes = await FakesProcess.start();
  const app = await startBenchApp(fakes.urls, {
    LOG_LEVEL: 'warn',
    GITHUB_TOKEN: FAKE_GITHUB_TOKEN,
    GITHUB_API_URL: fakes.urls.githubUrl ?? '',
    PR_DOORBELL_INTERVAL_MS: '2000',
  });
  try {
    const random = seededRandom(41);
    const durations: number[] = [];
    for (let i = 0; i < JOBS; i += 1) {
      const ack = await postSigned(
        app.url,
        slashCommandBody({
          command: '/docs-agent',
          channel_id: CHANNELS[i % CHANNELS.length]!,
          text: `Document change ${i} of the jobs API`,
          response_url: fakes.responseUrl(`doorbell-${i}`),
        }),
        SIGNING_SECRET,
      );
      if (ack.status !== 200) throw new Error(`doorbell live: ack ${ack.status}`);
      const deadline = Date.now() + 30_000;
      let ids = await fakes.send<string[]>({ cmd: 'jobIds' });
      while (ids.length <= i) {
        if (Date.now() > deadline) throw new Error('doorbell live: the job was not created');
        await sleep(20);
        ids = await fakes.send<string[]>({ cmd: 'jobIds' });
      }
      const afterMs = Math.round(DURATIONS_S[i % DURATIONS_S.length]! * 1000 * (0.9 + 0.2 * random()));
      durations.push(afterMs);
      await fakes.send({ cmd: 'completeAfter', jobs: [{ jobId: ids[i]!, afterMs }], reportBranch });
      await sleep(START_GAP_MS);
    }
    const deadline = Date.now() + Math.max(...durations) + 60_000;
    let report = await fakes.send<GitHubReport>({ cmd: 'githubReport' });
    while (report.prs.length < JOBS || report.prs.some((pr) => pr.repliedAt === null)) {
      if (Date.now() > deadline) break;
      await sleep(250);
      report = await fakes.send<GitHubReport>({ cmd: 'githubReport' });
    }
    return summarise(report, durations, reportBranch);
  } finally {
    await app.stop();
    await fakes.stop();
  }
}

function summarise(
  report: GitHubReport,
  durations: number[],
  reportBranch: boolean,
): { rows: Row[]; summary: LiveSummary } {
  const replied = report.prs.filter((pr) => pr.repliedAt !== null);
  const delaysS = replied.map((pr) => (pr.repliedAt! - pr.createdAt) / 1000);
  const polls = report.prs.reduce((sum, pr) => sum + pr.polls, 0);
  const fixed = durations.reduce((sum, d) => sum + Math.ceil(d / 5_000), 0);
  const counted = report.list.ok;
  // The repository's first read has no ETag to send (one full answer, then its ETag is kept a day): a cost
  // per repository, not per PR, so it is counted apart.
  const summary: LiveSummary = {
    reportBranch,
    p95S: percentile(delaysS, 95),
    countedPerPr: Math.max(0, counted - 1) / Math.max(1, report.prs.length),
    replied: replied.length,
    jobs: durations.length,
  };
  const rows: Row[] = [
    {
      figure: 'jobs (10 / 30 / 60 s, in turn), each with its PR',
      value: `${durations.length}, ${reportBranch ? 'the platform reports each job’s branch' : 'no branch reported while running'}`,
    },
    { figure: 'replies with the PR link', value: `${replied.length}` },
    {
      figure: 'PR created → reply with its link in Slack, p50 / p95 / max (s)',
      value: `${fmt(median(delaysS), 2)} / ${fmt(summary.p95S, 2)} / ${fmt(Math.max(...delaysS), 2)}`,
    },
    { figure: 'docs polls (job GETs), all jobs', value: `${polls}` },
    {
      figure: '(informational) a fixed 5 s poller on the same jobs',
      value: `${fixed} (this run: ${fmt((100 * polls) / fixed)}%; short jobs, see the simulated rows for the share)`,
    },
    {
      figure: 'pulls-list reads: 200 (counted) / 304 (free) / other',
      value: `${counted} / ${report.list.notModified} / ${report.list.other}`,
    },
    {
      figure: 'counted GitHub calls per new PR (after the repository’s first read)',
      value: `${fmt(summary.countedPerPr, 2)} (${fmt(counted / Math.max(1, report.prs.length), 2)} with it)`,
    },
  ];
  return { rows, summary };
}

export function liveVerdict(s: LiveSummary): string[] {
  const verdict = (ok: boolean) => (ok ? 'MET' : 'MISSED');
  return [
    `real time through the product (${s.reportBranch ? 'branch reported' : 'no branch'}): ${s.replied} of ${s.jobs} PR links posted, p95 ${fmt(s.p95S, 2)} s after the PR was created: target ≤ ${DOORBELL_P95_TARGET_S} s ${verdict(s.replied === s.jobs && s.p95S <= DOORBELL_P95_TARGET_S)}`,
    `real time, GitHub calls counted against the rate limit: ${fmt(s.countedPerPr, 2)} per new PR, plus the repository's first read: target ≤ ${COUNTED_PER_PR_TARGET} ${verdict(s.countedPerPr <= COUNTED_PER_PR_TARGET)}`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { table } = await import('./stats.js');
  const started = Date.now();
  for (const reportBranch of [true, false]) {
    const { rows, summary } = await runDoorbellLive(reportBranch);
    console.log(table(rows));
    for (const line of liveVerdict(summary)) console.log(line);
  }
  console.log(`(${fmt((Date.now() - started) / 1000)} s)`);
  process.exit(0);
}
