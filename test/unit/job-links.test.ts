import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/common/config.js';
import { DocsApiError } from '../../src/common/docs-api-error.js';
import { jobPageUrl } from '../../src/common/job-links.js';
import type { JobRecord } from '../../src/jobs/domain/job.js';
import { UntrackedJobError } from '../../src/jobs/use-cases/start-job.js';
import {
  nothingToStopMessage,
  sessionStoppedMessage,
  stopChoiceMessage,
} from '../../src/slack/messages/agent-session.js';
import { appHomeView } from '../../src/slack/messages/app-home.js';
import {
  finishedSteps,
  handoverSteps,
  runningStatus,
  runningSteps,
  stoppedSteps,
} from '../../src/slack/messages/assistant-steps.js';
import { describeDocsFailure } from '../../src/slack/messages/failures.js';
import { type CardState, jobCardMessage } from '../../src/slack/messages/job-card.js';
import {
  followUpRefusedMessage,
  noticeMessage,
  privateNoticeMessage,
  terminalReplyMessage,
} from '../../src/slack/messages/job-replies.js';
import type { SlackMessage } from '../../src/slack/messages/types.js';
import { jobRecord } from '../support/job-records.js';
import { checkMessage } from '../support/slack-block-kit-limits.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');
const PR = 'https://github.com/acme/docs/pull/123';
const PATTERN = 'https://dashboard.example.com/projects/{projectId}/jobs/{jobId}';
const JOB_URL = 'https://dashboard.example.com/projects/proj_hidden/jobs/job_7f3a9c';
/** What must never be read in people's view: the job id, the model, the branch, a project id. */
const HIDDEN = ['job_7f3a9c', 'claude-sonnet', 'rate-limits-429', 'proj_'];

function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return jobRecord({ projectId: 'proj_hidden', ...overrides });
}

/**
 * What people read: the notification text and every `text` in the blocks, a mrkdwn link shown as its label.
 * Button URLs and values are not read (the dashboard link holds the id in its path, as it must).
 */
function seen(value: unknown): string {
  const out: string[] = [];
  const walk = (item: unknown, key?: string): void => {
    if (typeof item === 'string') {
      if (key === undefined || key === 'text' || key === 'alt_text' || key === 'title' || key === 'details')
        out.push(item.replace(/<[^|>\s]+\|([^>]*)>/g, '$1'));
    } else if (Array.isArray(item)) for (const inner of item) walk(inner);
    else if (item && typeof item === 'object') for (const [k, v] of Object.entries(item)) walk(v, k);
  };
  walk(value);
  return out.join('\n');
}

function buttons(message: SlackMessage): Array<{ action_id: string; url?: string; type: string }> {
  return message.blocks
    .filter((block) => block.type === 'actions')
    .flatMap(
      (block) => (block as { elements: Array<{ action_id: string; url?: string; type: string }> }).elements,
    );
}

const ENV = {
  SLACK_BOT_TOKEN: 'xoxb-1-2-abc',
  SLACK_SIGNING_SECRET: 'secret-secret',
  DOCS_API_KEY: 'svc_abcdefghijklmnopqrstuvwxyz',
  DOCS_PROJECT_ID: 'proj_1',
};

function problemOf(pattern: string): string {
  try {
    loadConfig({ ...ENV, DOCS_JOB_URL_PATTERN: pattern });
  } catch (error) {
    if (error instanceof ConfigError) return error.problems.join('\n');
    throw error;
  }
  return '';
}

describe('DOCS_JOB_URL_PATTERN', () => {
  it('is read when it is an https URL with only {projectId} and {jobId}; unset is no link', () => {
    expect(loadConfig({ ...ENV, DOCS_JOB_URL_PATTERN: PATTERN }).docs.jobUrlPattern).toBe(PATTERN);
    expect(loadConfig(ENV).docs.jobUrlPattern).toBeUndefined();
    expect(loadConfig({ ...ENV, DOCS_JOB_URL_PATTERN: ' ' }).docs.jobUrlPattern).toBeUndefined();
  });

  it.each([
    ['http://dashboard.example.com/jobs/{jobId}', /https:\/\//],
    ['https://dashboard.example.com/{id}/jobs/{jobId}', /only the placeholders/],
    ['https://dashboard.example.com/jobs/{jobId}/{branch}', /only the placeholders/],
    ['https://dashboard.example.com/projects/{projectId}', /must contain \{jobId\}/],
    ['https://{projectId}.example.com/jobs/{jobId}', /host/],
    ['https://dashboard.example.com/jobs/{jobId}|x', /must not contain/],
    ['not a url {jobId}', /https:\/\//],
  ])('refuses %s', (pattern, problem) => {
    expect(problemOf(pattern)).toMatch(new RegExp(`DOCS_JOB_URL_PATTERN .*${problem.source}`));
  });

  it('fills each placeholder with its value URL-encoded', () => {
    expect(jobPageUrl(PATTERN, { projectId: 'proj_hidden', jobId: 'job_7f3a9c' })).toBe(JOB_URL);
    expect(jobPageUrl(PATTERN, { projectId: 'a b', jobId: '../x?y=1#z' })).toBe(
      'https://dashboard.example.com/projects/a%20b/jobs/..%2Fx%3Fy%3D1%23z',
    );
    expect(jobPageUrl(undefined, { projectId: 'p', jobId: 'j' })).toBeUndefined();
    expect(jobPageUrl(PATTERN, { projectId: '', jobId: 'j' })).toBeUndefined();
  });
});

describe('the card links the job page only when the pattern is set', () => {
  const states: Array<[string, Partial<JobRecord>]> = [
    ['running', {}],
    ['done with a PR', { status: 'completed', prLink: PR }],
    ['done without changes', { status: 'completed' }],
    ['failed', { status: 'failed' }],
    ['archived', { status: 'archived' }],
    ['expired', { watchEnded: 'expired' }],
  ];
  it.each(states)('%s: Open in dashboard with the pattern, absent without', (_name, overrides) => {
    const state: CardState = { phase: 'tracked', record: record(overrides), now: NOW };
    const linked = jobCardMessage({ requesterId: 'U0ALICE', prompt: 'Document it', state, jobUrl: JOB_URL });
    const plain = jobCardMessage({ requesterId: 'U0ALICE', prompt: 'Document it', state });
    expect(buttons(linked).find((b) => b.action_id === 'open_job_page')?.url).toBe(JOB_URL);
    expect(JSON.stringify(plain.blocks)).not.toContain('open_job_page');
    expect(JSON.stringify(plain.blocks)).not.toContain('dashboard.example.com');
    for (const card of [linked, plain]) {
      expect(buttons(card).some((b) => b.type === 'overflow' && b.action_id === 'job_card_menu')).toBe(true);
      expect(checkMessage(card)).toEqual({ ok: true });
    }
  });

  it("a failed card's next steps are [Retry] [Open in dashboard], then [Retry] alone without the pattern", () => {
    const state: CardState = { phase: 'tracked', record: record({ status: 'failed' }), now: NOW };
    const linked = jobCardMessage({ requesterId: 'U0ALICE', prompt: 'Document it', state, jobUrl: JOB_URL });
    const plain = jobCardMessage({ requesterId: 'U0ALICE', prompt: 'Document it', state });
    const ids = (card: SlackMessage) => buttons(card).map((b) => b.action_id);
    expect(ids(linked)).toEqual(['job_retry', 'open_job_page', 'job_card_menu']);
    expect(ids(plain)).toEqual(['job_retry', 'job_card_menu']);
  });

  it('a card before the job exists has no job link nor menu (there is no job yet)', () => {
    for (const state of [{ phase: 'starting' }, { phase: 'not_started', reason: 'I could not.' }] as const) {
      const card = jobCardMessage({ requesterId: 'U0ALICE', prompt: 'Document it', state, jobUrl: JOB_URL });
      expect(JSON.stringify(card.blocks)).not.toMatch(/open_job_page|job_card_menu/);
    }
  });
});

describe('the notices that send people to the dashboard link the job, or say where to look', () => {
  it('watch expired: a link with the pattern, words without; never the id', () => {
    const linked = noticeMessage({ kind: 'watch_expired', maxAgeMs: 3_600_000 }, JOB_URL);
    const plain = noticeMessage({ kind: 'watch_expired', maxAgeMs: 3_600_000 });
    expect(JSON.stringify(linked.blocks)).toContain(`<${JOB_URL}|Open it in the docs dashboard>`);
    expect(seen(plain)).toContain("agent jobs list of your docs platform's dashboard");
    expect(seen(plain)).toContain('Copy job ID');
  });

  it('a job started but not saved: linked with the pattern, where to look without', () => {
    const error = new UntrackedJobError('job_7f3a9c', new Error('redis down'));
    const linked = describeDocsFailure(error, NOW, undefined, {}, () => JOB_URL);
    expect(linked).toContain(`<${JOB_URL}|Open it in the docs dashboard>`);
    expect(describeDocsFailure(error, NOW)).toContain("agent jobs list of your docs platform's dashboard");
  });

  it('no "check the docs dashboard" without saying where', () => {
    const texts = [
      describeDocsFailure(new DocsApiError('unavailable', 'no answer', { status: 504 }), NOW),
      describeDocsFailure(new DocsApiError('bad_response', 'unreadable'), NOW),
      describeDocsFailure(new UntrackedJobError('job_7f3a9c', new Error('x')), NOW),
      seen(noticeMessage({ kind: 'watch_expired', maxAgeMs: 1 })),
      seen(privateNoticeMessage({ kind: 'follow_up_unrecorded', jobId: 'job_7f3a9c' })),
    ];
    for (const text of texts) expect(text).not.toMatch(/check (it in )?the docs dashboard/i);
  });
});

/** Every people-facing builder over a table of job states: none shows an id, a model, a branch or a project. */
describe('no job id, model, branch or proj_ id in people’s view, whatever the state', () => {
  const states: Array<[string, Partial<JobRecord>]> = [
    ['running', {}],
    ['running, no branch yet', { ref: null }],
    ['done with a PR', { status: 'completed', prLink: PR }],
    ['done without changes', { status: 'completed' }],
    ['failed', { status: 'failed' }],
    ['archived', { status: 'archived' }],
    ['expired', { watchEnded: 'expired' }],
    ['gone', { watchEnded: 'gone' }],
    ['stopped', { watchEnded: 'stopped' }],
    ['a follow-up run', { generation: 2, prLink: PR }],
  ];

  it.each(states)('%s', (_name, overrides) => {
    const job = record(overrides);
    const outcomes = [
      { kind: 'pull_request', prLink: PR },
      { kind: 'no_changes', previousPrLink: PR },
      { kind: 'no_changes', previousPrLink: null },
      { kind: 'failed' },
      { kind: 'archived' },
    ] as const;
    const views: unknown[] = [
      ...[JOB_URL, undefined].map((jobUrl) =>
        jobCardMessage({
          requesterId: job.requesterId,
          prompt: job.prompt,
          state: { phase: 'tracked', record: job, now: NOW },
          jobUrl,
        }),
      ),
      ...outcomes.map((outcome) => terminalReplyMessage(job, outcome, NOW)),
      ...outcomes.map((outcome) => finishedSteps(job, outcome)),
      noticeMessage({ kind: 'watch_expired', maxAgeMs: 1000 }),
      noticeMessage({ kind: 'watch_expired', maxAgeMs: 1000 }, JOB_URL),
      noticeMessage({ kind: 'job_gone' }),
      sessionStoppedMessage(job),
      nothingToStopMessage(job),
      ...(['instructed', 'following', 'stale'] as const).map((kind) =>
        stopChoiceMessage(kind === 'stale' ? { kind } : { kind, userId: 'U0ALICE' }),
      ),
      runningSteps(job),
      handoverSteps(job),
      stoppedSteps(job),
      runningStatus(job),
      privateNoticeMessage({ kind: 'follow_up_unrecorded', jobId: job.jobId }),
      privateNoticeMessage({ kind: 'follow_up_unrecorded', jobId: job.jobId }, undefined, () => JOB_URL),
      describeDocsFailure(new UntrackedJobError(job.jobId, new Error('x')), NOW),
      describeDocsFailure(
        new UntrackedJobError(job.jobId, new Error('x')),
        NOW,
        undefined,
        {},
        () => JOB_URL,
      ),
      followUpRefusedMessage(new UntrackedJobError(job.jobId, new Error('x')), NOW),
      appHomeView({
        userId: job.requesterId,
        jobs: [job],
        schedules: [{ channelId: 'C1', cron: '0 9 * * 1', timeZone: 'UTC', projectId: 'proj_hidden' }],
      }),
    ];
    for (const view of views) {
      const text = seen(view);
      for (const hidden of HIDDEN) expect(text, JSON.stringify(view)).not.toContain(hidden);
    }
  });
});
