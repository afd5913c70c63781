import { afterEach, describe, expect, it } from 'vitest';
import type { Evidence } from '../../src/insights/health/evidence.js';
import { encodeEvidenceRef } from '../../src/insights/health/evidence-ref.js';
import { impactWindows } from '../../src/insights/health/impact.js';
import { FakeDocs } from '../support/fake-docs.js';
import { emptyHealthData } from '../support/fake-docs-health.js';
import { FAKE_GITHUB_TOKEN, FakeGitHub } from '../support/fake-github.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { ManualTimers } from '../support/manual-timers.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Issue 23: with GitHub access "did it work?" counts from the merge day (after) against the days before the
 * PR was opened (before); a PR closed without merge gets no comparison and the thread is told once.
 */

const SEEN = Date.parse('2026-03-10T12:00:00Z');
const OPENED = '2026-03-10T09:00:00Z';
const MERGED = '2026-03-12T15:04:00Z';
const started = Date.now();
const clock = { now: () => SEEN + (Date.now() - started) };
const PR = 'https://github.com/acme/docs/pull/77';
const range = { from: '2026-03-01', toExclusive: '2026-03-08' };
const page: Evidence = {
  kind: 'page',
  path: '/guides/auth',
  thumbsDown: 9,
  thumbsUp: 2,
  comments: [],
  range,
};

const apps: TestApp[] = [];
const fakes: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
  for (const fake of fakes.splice(0)) await fake.close();
});

async function setUp(withToken = true, pullExists = true) {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  const github = await FakeGitHub.start();
  fakes.push(slack, docs, github);
  // Another PR of the repository: #77 itself answers 404 unless added.
  github.addPull('acme', 'docs', pullExists ? 77 : 78, { created_at: OPENED });
  const timers = new ManualTimers(clock.now());
  const env: Record<string, string> = {
    GITHUB_API_URL: github.url,
    PR_FOLLOW_INTERVAL_MS: '40',
    PR_FOLLOW_MAX_INTERVAL_MS: '100',
    ...(withToken ? { GITHUB_TOKEN: FAKE_GITHUB_TOKEN } : {}),
  };
  const app = await startTestApp({ slack, docs, env, agentOptions: { clock, impactTimers: timers } });
  apps.push(app);
  const result = await app.agent.jobs.start({
    teamId: 'T1',
    channelId: 'C0HEALTH',
    threadTs: null,
    requesterId: 'U1',
    prompt: 'Fix the gap',
    origin: 'health_fix',
    evidenceRef: encodeEvidenceRef(page),
  });
  if (!result.ok) throw new Error(`job did not start: ${result.stage}`);
  const record = result.record;
  docs.complete(record.jobId, PR);
  await waitFor(() => slack.threadReplies('C0HEALTH', record.threadTs).some((m) => m.text.includes(PR)), {
    what: 'terminal reply',
  });
  return { slack, docs, github, timers, app, record };
}

const impactPosts = (slack: FakeSlack) => slack.messages.filter((m) => m.text.startsWith('Did it work?'));
const key = (w: { from: string; toExclusive: string }) => `${w.from}..${w.toExclusive}`;

describe('"did it work?" from the merge day (memory)', () => {
  it('is scheduled at the merge, compares the days after the merge day with the days before the PR opened', async () => {
    const { slack, docs, github, timers, app } = await setUp();
    await waitFor(() => github.requestsTo(/\/pulls\/77$/).length > 0, { what: 'first read' });
    expect(app.logs.some((l) => l.includes('impact check scheduled'))).toBe(false);

    const windows = impactWindows(Date.parse(MERGED), 14, Date.parse(OPENED));
    expect(windows.after).toEqual({ from: '2026-03-13', toExclusive: '2026-03-27' });
    expect(windows.before).toEqual({ from: '2026-02-24', toExclusive: '2026-03-10' });
    docs.health.byRange.set(key(windows.before), {
      ...emptyHealthData(),
      pages: [{ path: '/guides/auth', thumbsUp: 2, thumbsDown: 9, code: 0, total: 11 }],
    });
    docs.health.byRange.set(key(windows.after), {
      ...emptyHealthData(),
      pages: [{ path: '/guides/auth', thumbsUp: 5, thumbsDown: 1, code: 0, total: 6 }],
    });
    github.merge('acme', 'docs', 77, 'octo-cat', MERGED);
    await waitFor(() => app.logs.some((l) => l.includes('impact check scheduled (counted from the merge)')), {
      what: 'the check scheduled at the merge',
    });
    // Due after the window following the merge day, not the PR's day.
    await timers.advanceTo(windows.dueAt - 1);
    expect(impactPosts(slack)).toEqual([]);
    await timers.advanceTo(windows.dueAt);
    const [post] = await waitFor(() => (impactPosts(slack).length ? impactPosts(slack) : undefined), {
      what: 'the impact post',
    });
    const blocks = JSON.stringify(post!.blocks);
    expect(blocks).toContain('*👎:* 9 → 1 (▼ 89%) ✅');
    expect(blocks).toContain('13–26 Mar');
    expect(blocks).toContain('24 Feb – 9 Mar');
    expect(blocks).toContain('Counted from the day the pull request was merged');
  });

  it('a PR closed without merge: no comparison ever, and the thread is told once, plainly', async () => {
    const { slack, github, timers, app, record } = await setUp();
    await waitFor(() => github.requestsTo(/\/pulls\/77$/).length > 0, { what: 'first read' });
    github.closeWithoutMerge('acme', 'docs', 77, MERGED);
    const notices = () =>
      slack
        .threadReplies('C0HEALTH', record.threadTs)
        .filter((m) => m.text.includes('closed without merging'));
    await waitFor(() => notices().length === 1, { what: 'the close notice' });
    expect(JSON.stringify(notices()[0]!.blocks)).toContain('there will be no \\"did it work?\\" comparison');
    await timers.advanceTo(SEEN + 60 * 24 * 60 * 60 * 1000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(impactPosts(slack)).toEqual([]);
    expect(app.logs.some((l) => l.includes('impact check scheduled'))).toBe(false);
    expect(notices()).toHaveLength(1);
  });

  it('a followed PR GitHub does not show (404) falls back to the PR’s day', async () => {
    const { github, app } = await setUp(true, false);
    await waitFor(() => github.requests.some((r) => r.status === 404), { what: 'the 404' });
    const scheduled = () => app.logs.filter((l) => l.includes('impact check scheduled'));
    await waitFor(() => scheduled().length > 0, { what: 'the fallback check' });
    expect(scheduled()).toHaveLength(1);
    expect(scheduled()[0]).toContain("impact check scheduled (counted from the PR's day)");
  });

  it('without GitHub access it counts from the PR’s day and says so', async () => {
    const { slack, docs, github, timers } = await setUp(false);
    const windows = impactWindows(SEEN, 14);
    docs.health.byRange.set(key(windows.before), emptyHealthData());
    docs.health.byRange.set(key(windows.after), emptyHealthData());
    await timers.advanceTo(windows.dueAt);
    const [post] = await waitFor(() => (impactPosts(slack).length ? impactPosts(slack) : undefined), {
      what: 'the impact post',
    });
    expect(JSON.stringify(post!.blocks)).toContain("Counted from the pull request's day");
    expect(github.requests).toEqual([]);
  });
});
