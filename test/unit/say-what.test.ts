import { describe, expect, it } from 'vitest';
import { describedPull } from '../../src/github/github-pull-requests.js';
import type { JobRecord } from '../../src/jobs/domain/job.js';
import type { PullRequestFollow } from '../../src/jobs/pull-requests/pull-request.js';
import { finishedSteps, runningStatus, runningSteps } from '../../src/slack/messages/assistant-steps.js';
import { FAILED_CAUSE, jobCardMessage } from '../../src/slack/messages/job-card.js';
import { terminalReplyMessage } from '../../src/slack/messages/job-replies.js';
import { pullRequestNumber } from '../../src/slack/messages/pull-request.js';
import { jobRecord } from '../support/job-records.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const PR = 'https://github.com/acme/docs/pull/123';

function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return jobRecord({ status: 'completed', prLink: PR, ...overrides });
}

function followed(last: Partial<NonNullable<PullRequestFollow['last']>> | null): PullRequestFollow {
  return {
    url: PR,
    startedAt: NOW - 1000,
    reads: 1,
    failures: 0,
    ended: null,
    noticed: false,
    last:
      last === null
        ? null
        : {
            state: 'open',
            draft: false,
            review: 'none',
            checks: 'none',
            openedAt: NOW - 2000,
            mergedAt: null,
            mergedBy: null,
            closedAt: null,
            headSha: 'abc',
            ...last,
          },
  };
}

/** What people see of a message: its notification text and every `text` and `url` in its blocks (not values). */
function seen(message: { text: string; blocks: unknown }): string {
  const out = [message.text];
  const walk = (value: unknown, key?: string): void => {
    if (typeof value === 'string') {
      if (key === 'text' || key === 'url' || key === 'alt_text') out.push(value);
    } else if (Array.isArray(value)) for (const item of value) walk(item);
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(message.blocks);
  return out.join('\n');
}

describe('the PR reply names the pull request', () => {
  it('says "#123 · title" linked and "N files, +A −D" when the followed state has them', () => {
    const reply = terminalReplyMessage(
      record({
        pullRequest: followed({
          title: 'Document the 429 response',
          additions: 42,
          deletions: 3,
          changedFiles: 2,
        }),
      }),
      { kind: 'pull_request', prLink: PR },
      NOW,
    );
    const text = JSON.stringify(reply.blocks);
    expect(text).toContain(`<${PR}|#123 · Document the 429 response> (2 files, +42 −3)`);
    expect(reply.text).toContain('#123');
    expect(checkMessage(reply)).toEqual({ ok: true });
  });

  it('without GitHub access (nothing read): the number from the link only', () => {
    const reply = terminalReplyMessage(record(), { kind: 'pull_request', prLink: PR }, NOW);
    expect(JSON.stringify(reply.blocks)).toContain(`opened pull request <${PR}|#123> (took`);
  });

  it('a hostile title cannot ping, link or hide text', () => {
    const reply = terminalReplyMessage(
      record({ pullRequest: followed({ title: 'Fix <!channel> <https://evil.example|here>' }) }),
      { kind: 'pull_request', prLink: PR },
      NOW,
    );
    const text = JSON.stringify(reply.blocks);
    expect(text).not.toContain('<!channel>');
    expect(text).not.toContain('<https://evil.example');
    expect(checkMessage(reply)).toEqual({ ok: true });
  });

  it('GitHub title and size are cleaned and capped at the read; bad counts are dropped', () => {
    const got = describedPull({
      title: `\u202eevil\u200b ${'x'.repeat(1000)}`,
      additions: 5,
      deletions: -1,
      changed_files: 1.5,
    });
    expect(got.title?.startsWith('evil x')).toBe(true);
    expect(got.title?.length).toBeLessThanOrEqual(200);
    expect(got).toMatchObject({ additions: 5 });
    expect(got.deletions).toBeUndefined();
    expect(got.changedFiles).toBeUndefined();
  });

  it('reads the number only from a /pull/<n> path', () => {
    expect(pullRequestNumber(PR)).toBe(123);
    expect(pullRequestNumber(`${PR}/files`)).toBe(123);
    expect(pullRequestNumber('https://github.com/acme/docs/issues/5')).toBeUndefined();
    expect(pullRequestNumber('not a url')).toBeUndefined();
  });
});

describe('no job id, model or branch in the replies', () => {
  it.each([
    { kind: 'pull_request', prLink: PR },
    { kind: 'failed' },
    { kind: 'archived' },
    { kind: 'no_changes', previousPrLink: null },
  ] as const)('%o', (outcome) => {
    const text = seen(terminalReplyMessage(record(), outcome, NOW));
    for (const secret of ['job_7f3a9c', 'claude-sonnet', 'rate-limits-429', 'proj_'])
      expect(text).not.toContain(secret);
  });
});

describe('a failed card says why and what to do', () => {
  it('gives the cause in words and a Retry button', () => {
    const card = jobCardMessage({
      requesterId: 'U0ALICE',
      prompt: 'Document it',
      state: { phase: 'tracked', record: record({ status: 'failed', prLink: null }), now: NOW },
    });
    const text = JSON.stringify(card.blocks);
    expect(text).toContain('Failed: the agent stopped with an error');
    expect(text).toContain(JSON.stringify(FAILED_CAUSE).slice(1, -1));
    expect(text).toContain('"action_id":"job_retry"');
    expect(checkMessage(card)).toEqual({ ok: true });
  });
});

describe('no job id, model or branch in assistant steps', () => {
  it('running and finished steps and the status line', () => {
    const running = record({ status: 'active', prLink: null });
    const text = JSON.stringify([
      runningSteps(running),
      finishedSteps(record(), { kind: 'pull_request', prLink: PR }),
      finishedSteps(record({ status: 'failed', prLink: null }), { kind: 'failed' }),
      runningStatus(running),
    ]);
    for (const hidden of ['job_7f3a9c', 'claude-sonnet', 'rate-limits-429', 'proj_'])
      expect(text).not.toContain(hidden);
    expect(text).toContain('The agent is editing the docs');
  });
});
