import { createLogger } from '../src/common/logger.js';
import { GitHubPullRequests } from '../src/github/github-pull-requests.js';
import { newJobRecord } from '../src/jobs/domain/job.js';
import { followPullRequest, startFollowing } from '../src/jobs/pull-requests/follow-pull-request.js';
import type { PullRequestFollowDeps } from '../src/jobs/pull-requests/ports.js';
import { createMemoryJobStore } from '../src/state/keyv-job-store.js';
import { FAKE_GITHUB_TOKEN, FakeGitHub } from '../test/support/fake-github.js';
import { fmt, table } from './stats.js';

/**
 * GitHub calls per followed PR over a simulated week (issue 23): the production reader (Octokit, ETags)
 * against the HTTP fake GitHub, the production cadence (PR_FOLLOW_INTERVAL_MS 5 min growing to
 * PR_FOLLOW_MAX_INTERVAL_MS 1 h) on a simulated clock. A PR reviewed, re-checked and merged on day 6.
 * 304s are counted apart (GitHub does not count them against the rate limit). The floor is the calls whose
 * answer changed (one full read, then one call per change, then the merged pull).
 * `npx tsx bench/github-follow.ts`
 */
const DAY = 86_400_000;
const timing = { minMs: 5 * 60_000, maxMs: 60 * 60_000, maxAgeMs: 30 * DAY };
/** Target: counted (non-304) calls per PR-week, and at most this many times the floor. */
export const COUNTED_TARGET = 25;

export interface FollowBenchSummary {
  reads: number;
  calls: number;
  notModified: number;
  counted: number;
  floor: number;
  naiveCounted: number;
}

export async function runGitHubFollow(): Promise<{
  rows: Array<Record<string, string | number>>;
  summary: FollowBenchSummary;
}> {
  const github = await FakeGitHub.start();
  try {
    github.addPull('acme', 'docs', 1, { created_at: '2026-03-01T09:00:00Z' });
    const pull = github.pull('acme', 'docs', 1);
    let now = Date.parse('2026-03-01T10:00:00Z');
    const start = now;
    // What happens to the PR, in simulated time: each is one change a read must pick up.
    const events: Array<[number, () => void]> = [
      [
        0.1 * DAY,
        () => pull.checkRuns.push({ id: 1, name: 'build', status: 'in_progress', conclusion: null }),
      ],
      [0.12 * DAY, () => Object.assign(pull.checkRuns[0]!, { status: 'completed', conclusion: 'success' })],
      [
        1.5 * DAY,
        () =>
          pull.reviews.push({ id: 1, state: 'CHANGES_REQUESTED', user: { login: 'r' }, submitted_at: '' }),
      ],
      [
        3 * DAY,
        () => pull.reviews.push({ id: 2, state: 'APPROVED', user: { login: 'r' }, submitted_at: '' }),
      ],
      [6 * DAY, () => github.merge('acme', 'docs', 1, 'octo-cat', '2026-03-07T10:00:00Z')],
    ];
    const changes = events.length;
    const logger = createLogger({ level: 'silent', secrets: [] });
    // The real in-memory job store (typed: a hand-made partial would rot as the port grows).
    const store = createMemoryJobStore(logger, () => now);
    const deps: PullRequestFollowDeps = {
      reader: new GitHubPullRequests({ token: FAKE_GITHUB_TOKEN, apiUrl: github.url, logger }, () => now),
      store,
      queue: {
        start: () => undefined,
        schedule: async () => undefined,
        cancel: async () => undefined,
        reconcile: async () => 0,
        close: async () => undefined,
      },
      notices: { post: async () => undefined },
      notifier: { updateCard: async () => undefined },
      outcomes: { merged: async () => undefined, unreadable: async () => undefined },
      clock: { now: () => now },
      logger,
      timing,
      webUrl: 'https://github.com',
      random: () => 0.5,
    };
    const record = newJobRecord(
      {
        jobId: 'job_1',
        teamId: null,
        channelId: 'C1',
        threadTs: '1',
        cardTs: '1',
        requesterId: 'U1',
        prompt: 'p',
        origin: 'command',
        status: 'completed',
        repository: null,
        ref: null,
        model: null,
        prLink: 'https://github.com/acme/docs/pull/1',
      },
      now,
    );
    await store.saveJob(record);
    await startFollowing(deps, record, record.prLink!);
    let reads = 0;
    let delay: number | null = timing.minMs;
    while (delay !== null && now - start < 7 * DAY) {
      now += delay;
      while (events[0] && start + events[0][0] <= now) events.shift()![1]();
      delay = await followPullRequest(deps, record.jobId);
      reads += 1;
    }
    const data = github.requests.filter((r) => r.path !== '/rate_limit');
    const notModified = data.filter((r) => r.status === 304).length;
    const counted = data.length - notModified;
    // One full read (pull, reviews, check runs, status), one call per change, the merged pull.
    const floor = 4 + changes;
    // A fixed 5-minute poller without ETags, reading all four every time, for the 6 days until the merge.
    const naiveCounted = Math.ceil((6 * DAY) / timing.minMs) * 4;
    const summary = { reads, calls: data.length, notModified, counted, floor, naiveCounted };
    const rows = [
      { what: 'reads until the merge notice', value: reads },
      { what: 'GitHub calls (all)', value: data.length },
      { what: '… of which 304 Not Modified (free)', value: notModified },
      { what: '… counted against the rate limit', value: counted },
      { what: 'floor (answers that changed)', value: floor },
      { what: 'fixed 5-min poller, no ETags (counted)', value: naiveCounted },
      {
        what: 'counted calls for the week, as a share of one hour of 5,000',
        value: `${fmt((counted / 5000) * 100, 2)} %`,
      },
    ];
    return { rows, summary };
  } finally {
    await github.close();
  }
}

export function followVerdict(s: FollowBenchSummary): string[] {
  const ok = s.counted <= COUNTED_TARGET;
  return [
    `${ok ? 'PASS' : 'FAIL'}: ${s.counted} counted calls for a PR followed 6 days to its merge (target ≤ ${COUNTED_TARGET}; floor ${s.floor}; ${fmt(s.counted / s.floor, 1)}× the floor; a fixed poller without ETags: ${s.naiveCounted})`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { rows, summary } = await runGitHubFollow();
  console.log('## GitHub calls per followed PR over a simulated week');
  console.log(table(rows));
  for (const line of followVerdict(summary)) console.log(line);
}
