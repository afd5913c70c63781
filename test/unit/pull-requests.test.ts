import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/common/config.js';
import { secretsOf } from '../../src/common/config-secrets.js';
import { createLogger } from '../../src/common/logger.js';
import { checksOf, reviewOf } from '../../src/github/github-pull-requests.js';
import { impactWindows } from '../../src/insights/health/impact.js';
import type { JobRecord } from '../../src/jobs/domain/job.js';
import { followPullRequest } from '../../src/jobs/pull-requests/follow-pull-request.js';
import type { PullRequestFollowDeps, PullRequestNotice } from '../../src/jobs/pull-requests/ports.js';
import {
  nextFollowDelay,
  PullRequestReadError,
  type PullRequestState,
  parsePullRequestLink,
} from '../../src/jobs/pull-requests/pull-request.js';
import { pullRequestNoticeMessage, pullRequestStateLine } from '../../src/slack/messages/pull-request.js';
import { followedRecord, idleQueue } from '../support/pull-request-fixtures.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';
import { fakeJobStore } from './jobs/fake-job-store.js';

const BASE = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  SLACK_SIGNING_SECRET: 'secret-0123456789',
  DOCS_API_KEY: 'svc_0123456789',
  DOCS_PROJECT_ID: 'proj_1',
};
const TOKEN = 'github_pat_0123456789abcdefghijklmnop';

describe('PR links are followed only on the configured web host, strictly', () => {
  it.each([
    [
      'https://github.com/acme/docs/pull/12',
      'https://github.com',
      { owner: 'acme', repo: 'docs', number: 12 },
    ],
    [
      'https://github.com/acme/docs.site/pull/3/files',
      'https://github.com',
      { owner: 'acme', repo: 'docs.site', number: 3 },
    ],
    [
      'https://ghe.example/acme/docs/pull/4',
      'https://ghe.example',
      { owner: 'acme', repo: 'docs', number: 4 },
    ],
    [
      'https://ghe.example/git/acme/docs/pull/5',
      'https://ghe.example/git/',
      { owner: 'acme', repo: 'docs', number: 5 },
    ],
  ])('%s on %s', (link, web, ref) => {
    expect(parsePullRequestLink(link, web)).toEqual(ref);
  });

  it.each([
    'https://gitlab.com/acme/docs/pull/12',
    'http://github.com/acme/docs/pull/12',
    'https://github.com.evil.example/acme/docs/pull/12',
    'https://user:pw@github.com/acme/docs/pull/12',
    'https://github.com/acme/docs/issues/12',
    'https://github.com/acme/docs/pull/0',
    'https://github.com/acme/docs/pull/012',
    'https://github.com/acme/docs/pull/12345678901',
    'https://github.com/acme/docs/pull/12abc',
    'https://github.com/ac<me/docs/pull/1',
    'https://github.com/acme/do|cs/pull/1',
    'https://github.com/acme/%3Cscript%3E/pull/1',
    'https://github.com/-acme/docs/pull/1',
    'https://github.com/acme/../pull/1',
    'https://github.com/acme/docs/pull/1/files/extra',
    'not a url',
    `https://github.com/acme/docs/pull/1?${'a'.repeat(600)}`,
  ])('refuses %s', (link) => {
    expect(parsePullRequestLink(link, 'https://github.com')).toBeUndefined();
  });
});

describe('reviews and checks in one word each', () => {
  it('takes each reviewer’s latest decisive review; changes requested wins', () => {
    const r = (login: string, state: string) => ({ state, user: { login } });
    expect(reviewOf([])).toBe('none');
    expect(reviewOf([r('a', 'COMMENTED')])).toBe('none');
    expect(reviewOf([r('a', 'APPROVED')])).toBe('approved');
    expect(reviewOf([r('a', 'CHANGES_REQUESTED'), r('a', 'APPROVED')])).toBe('approved');
    expect(reviewOf([r('a', 'APPROVED'), r('b', 'CHANGES_REQUESTED')])).toBe('changes_requested');
    expect(reviewOf([r('a', 'CHANGES_REQUESTED'), r('a', 'DISMISSED')])).toBe('none');
  });

  it('fails on any failed run or status, is pending while anything runs', () => {
    const none = { state: 'pending', total_count: 0 };
    const done = (conclusion: string) => ({ status: 'completed', conclusion });
    expect(checksOf([], none)).toBe('none');
    expect(checksOf([done('success'), done('skipped')], none)).toBe('passing');
    expect(checksOf([done('success'), done('failure')], none)).toBe('failing');
    expect(checksOf([done('success'), { status: 'in_progress', conclusion: null }], none)).toBe('pending');
    expect(checksOf([done('success')], { state: 'failure', total_count: 1 })).toBe('failing');
    expect(checksOf([], { state: 'success', total_count: 2 })).toBe('passing');
    expect(checksOf([], { state: 'pending', total_count: 1 })).toBe('pending');
  });
});

describe('cadence', () => {
  const timing = { minMs: 60_000, maxMs: 3_600_000, maxAgeMs: 30 * 86_400_000 };
  it('starts at the interval, doubles every 6 reads, stops growing at the maximum', () => {
    const mid = () => 0.5;
    expect(nextFollowDelay(0, timing, mid)).toBe(60_000);
    expect(nextFollowDelay(6, timing, mid)).toBe(120_000);
    expect(nextFollowDelay(12, timing, mid)).toBe(240_000);
    expect(nextFollowDelay(1_000, timing, mid)).toBe(3_600_000);
    expect(nextFollowDelay(0, timing, () => 0)).toBe(60_000);
  });
});

describe('config', () => {
  it('is off without a token, with github.com defaults, and the token is a secret', () => {
    const off = loadConfig(BASE);
    expect(off.github).toMatchObject({
      token: undefined,
      apiUrl: 'https://api.github.com',
      webUrl: 'https://github.com',
      followDays: 30,
    });
    const on = loadConfig({
      ...BASE,
      GITHUB_TOKEN: TOKEN,
      GITHUB_API_URL: 'https://ghe.example/api/v3/',
      GITHUB_WEB_URL: 'https://ghe.example',
    });
    expect(on.github.apiUrl).toBe('https://ghe.example/api/v3');
    expect(secretsOf(on)).toContain(TOKEN);
  });

  it('refuses a malformed token, a bad URL and a maximum below the interval, together', () => {
    expect(() =>
      loadConfig({
        ...BASE,
        GITHUB_TOKEN: 'not a token <x>',
        GITHUB_WEB_URL: 'ftp://x',
        PR_FOLLOW_INTERVAL_MS: '5000',
        PR_FOLLOW_MAX_INTERVAL_MS: '1000',
        PR_FOLLOW_DAYS: '0',
      }),
    ).toThrow(/GITHUB_TOKEN[\s\S]*GITHUB_WEB_URL[\s\S]*PR_FOLLOW_DAYS[\s\S]*PR_FOLLOW_MAX_INTERVAL_MS/);
  });

  it('refuses an API on another GitHub than the links, and plain http off loopback, for every API URL', () => {
    expect(() =>
      loadConfig({ ...BASE, GITHUB_TOKEN: TOKEN, GITHUB_API_URL: 'https://ghe.example/api/v3' }),
    ).toThrow(/GITHUB_API_URL \(ghe\.example\) and GITHUB_WEB_URL \(github\.com\) must name the same GitHub/);
    for (const name of ['GITHUB_API_URL', 'DOCS_API_URL', 'SLACK_API_URL'])
      expect(() => loadConfig({ ...BASE, [name]: 'http://api.example.com' })).toThrow(
        new RegExp(`${name}[^\\n]*must use https://`),
      );
    // A local proxy or a test's fake may be plain http, and a loopback GitHub API may serve any web host.
    const local = loadConfig({
      ...BASE,
      GITHUB_API_URL: 'http://127.0.0.1:9000',
      DOCS_API_URL: 'http://localhost:9001',
      SLACK_API_URL: 'http://[::1]:9002/api/',
    });
    expect(local.github.apiUrl).toBe('http://127.0.0.1:9000');
  });
});

describe('impact windows from the merge day', () => {
  it('after: the days after the merge day; before: the days before the PR opened', () => {
    const w = impactWindows(Date.parse('2026-03-12T15:00:00Z'), 7, Date.parse('2026-03-01T08:00:00Z'));
    expect(w.after).toEqual({ from: '2026-03-13', toExclusive: '2026-03-20' });
    expect(w.before).toEqual({ from: '2026-02-22', toExclusive: '2026-03-01' });
  });
});

const pr = (over: Partial<PullRequestState> = {}): PullRequestState => ({
  state: 'open',
  draft: false,
  review: 'none',
  checks: 'none',
  openedAt: 0,
  mergedAt: null,
  mergedBy: null,
  closedAt: null,
  headSha: 'abc',
  ...over,
});

describe('what users see', () => {
  const follow = (last: PullRequestState | null) => ({
    url: 'https://github.com/a/b/pull/1',
    startedAt: 0,
    last,
    reads: 1,
    failures: 0,
    ended: null,
    noticed: false,
  });
  it('one line per state', () => {
    expect(pullRequestStateLine(undefined)).toBeUndefined();
    expect(pullRequestStateLine(follow(pr({ draft: true })))).toContain('Pull request *draft*');
    expect(pullRequestStateLine(follow(pr({ review: 'changes_requested', checks: 'failing' })))).toContain(
      '*open* · changes requested · checks failing',
    );
    expect(pullRequestStateLine(follow(pr({ state: 'closed' })))).toContain('*closed* without merging');
  });

  it('a hostile login is not shown as a name; notices fit Block Kit', () => {
    const hostile = pr({ state: 'merged', mergedBy: '<!channel>*x*', mergedAt: 1_700_000_000_000 });
    const message = pullRequestNoticeMessage('https://github.com/a/b/pull/1', {
      kind: 'merged',
      pr: hostile,
    });
    expect(JSON.stringify(message)).not.toContain('<!channel>');
    expect(message.text).toContain('merged by someone');
    expect(checkMessage(message)).toEqual({ ok: true });
    expect(pullRequestStateLine(follow(hostile))).not.toContain('<!channel>');
  });
});

describe('followPullRequest', () => {
  const logger = createLogger({ level: 'silent', secrets: [], destination: { write: () => undefined } });
  function harness(read: () => Promise<PullRequestState>, now = 0) {
    const records = new Map<string, JobRecord>();
    const record = followedRecord();
    records.set('job_1', record);
    const notices: PullRequestNotice[] = [];
    const unreadable: string[] = [];
    const deps: PullRequestFollowDeps = {
      reader: { read },
      store: fakeJobStore(records),
      queue: idleQueue(),
      notices: { post: async (_r, n) => void notices.push(n) },
      notifier: { updateCard: async () => undefined },
      outcomes: { merged: async () => undefined, unreadable: async (r) => void unreadable.push(r.jobId) },
      clock: { now: () => now },
      logger,
      timing: { minMs: 1_000, maxMs: 10_000, maxAgeMs: 30 * 86_400_000 },
      webUrl: 'https://github.com',
    };
    return { deps, records, notices, unreadable };
  }

  it('reports a PR still open after PR_FOLLOW_DAYS once, and stops', async () => {
    let reads = 0;
    const h = harness(async () => {
      reads += 1;
      return pr();
    }, 31 * 86_400_000);
    expect(await followPullRequest(h.deps, 'job_1')).toBeNull();
    expect(await followPullRequest(h.deps, 'job_1')).toBeNull();
    expect(reads).toBe(0);
    expect(h.notices).toEqual([{ kind: 'still_open', days: 30, impactCancelled: false }]);
  });

  it('stops on a PR it may not read (404/403) without a thread message; retries when GitHub is down', async () => {
    const gone = harness(async () => {
      throw new PullRequestReadError('github_unreadable', '404');
    });
    expect(await followPullRequest(gone.deps, 'job_1')).toBeNull();
    expect(gone.records.get('job_1')?.pullRequest?.unreadable).toBe(true);
    expect(gone.notices).toEqual([]);
    // A health fix's "did it work?" then counts from the PR's day instead of waiting for a merge never seen.
    expect(gone.unreadable).toEqual(['job_1']);
    const down = harness(async () => {
      throw new PullRequestReadError('github_unavailable', '503', 30_000);
    });
    expect(await followPullRequest(down.deps, 'job_1')).toBe(30_000);
    expect(down.records.get('job_1')?.pullRequest?.failures).toBe(1);
  });

  it('a merge is announced once even when read again', async () => {
    const h = harness(async () => pr({ state: 'merged', mergedBy: 'octo', mergedAt: 5 }));
    expect(await followPullRequest(h.deps, 'job_1')).toBeNull();
    expect(await followPullRequest(h.deps, 'job_1')).toBeNull();
    expect(h.notices.map((n) => n.kind)).toEqual(['merged']);
  });
});
