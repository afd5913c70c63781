import { describe, expect, it } from 'vitest';
import { DocsApiError } from '../../src/common/docs-api-error.js';
import { buildReport, type ReportRequest } from '../../src/insights/page-views/report.js';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';
import { describeDocsFailure } from '../../src/slack/messages/failures.js';
import { docsAgentHelpMessage } from '../../src/slack/messages/help.js';
import { jobCardMessage } from '../../src/slack/messages/job-card.js';
import {
  jobListMessage,
  jobStatusErrorMessage,
  jobStatusMessage,
} from '../../src/slack/messages/job-list.js';
import {
  followUpRefusedMessage,
  noticeMessage,
  privateNoticeMessage,
  terminalReplyMessage,
} from '../../src/slack/messages/job-replies.js';
import { pageViewsHelpMessage } from '../../src/slack/messages/page-views-help.js';
import { pageViewsReportMessage } from '../../src/slack/messages/page-views-report.js';
import type { SlackMessage } from '../../src/slack/messages/types.js';
import { checkMessage, SLACK_LIMITS, totalBlockText } from '../support/slack-block-kit-limits.js';

const NOW = Date.parse('2026-11-21T10:00:00Z');
/** Markup of every kind Slack parses, repeated: the worst instruction a user can send. */
const HOSTILE = '<!channel> <@U0EVIL> *bold* _it_ `code` <https://evil.example|click> &amp; > |'
  .repeat(60)
  .slice(0, 4000);
const LONG_LINK = `https://github.com/acme/docs/pull/1?${'q=1&'.repeat(800)}`;
const LONG_REF = `docs-agent/${'very-long-branch-name-'.repeat(20)}`;

function record(i: number, overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: `job_${String(i).padStart(4, '0')}_${'x'.repeat(80)}`,
        teamId: 'T1',
        channelId: 'C1',
        threadTs: `1.${String(i).padStart(6, '0')}`,
        cardTs: `1.${String(i).padStart(6, '0')}`,
        requesterId: 'U0ALICE',
        prompt: HOSTILE,
        origin: 'command',
        status: 'active',
        repository: 'https://github.com/acme/docs',
        ref: LONG_REF,
        model: 'claude-'.repeat(30),
        prLink: null,
      },
      NOW - 3_723_000,
    ),
    updatedAt: NOW,
    ...overrides,
  };
}

function accepted(message: SlackMessage): void {
  const verdict = checkMessage(message);
  expect(verdict, JSON.stringify(verdict)).toEqual({ ok: true });
  expect(message.text.length).toBeGreaterThan(0);
  // Rich text is rendered literally (the quoted instruction); everywhere else markup must be escaped.
  const parsed = message.blocks.filter((block) => block.type !== 'rich_text');
  expect(JSON.stringify(parsed)).not.toMatch(/<!channel>|<@U0EVIL>/);
}

describe('every message builder at its edges is accepted by Slack', () => {
  it('job card: 4,000-character instruction full of markup, long branch, 3,000+ character PR link', () => {
    accepted(jobCardMessage({ requesterId: 'U0ALICE', prompt: HOSTILE, state: { phase: 'starting' } }));
    accepted(
      jobCardMessage({
        requesterId: 'U0ALICE',
        prompt: HOSTILE,
        state: {
          phase: 'not_started',
          reason: describeDocsFailure(new DocsApiError('invalid_request', 'x', { apiMessage: HOSTILE }), NOW),
        },
      }),
    );
    for (const status of ['active', 'completed', 'failed', 'archived', 'weird'.repeat(50)]) {
      const tracked = record(1, { status, prLink: status === 'completed' ? LONG_LINK : null });
      accepted(
        jobCardMessage({
          requesterId: 'U0ALICE',
          prompt: HOSTILE,
          state: { phase: 'tracked', record: tracked, now: NOW },
        }),
      );
    }
  });

  it('a list of 30 jobs whose instructions escape to five times their length stays within the total', () => {
    const records = Array.from({ length: 30 }, (_, i) => record(i, { prompt: '&<>'.repeat(1300) }));
    const message = jobListMessage(records, NOW);
    accepted(message);
    const json = JSON.stringify(message.blocks);
    expect(json).toMatch(/…and \d+ more/);
    // Every entry keeps its thread link whole.
    const entries = message.blocks.filter((b) => b.type === 'section').slice(1);
    expect(entries.length).toBeGreaterThan(5);
    for (const entry of entries)
      expect(JSON.stringify(entry)).toMatch(/<https:\/\/slack\.com\/archives\/C1\/p\d+\|thread>/);
    expect(json).not.toMatch(/&a…|&am…|&l…|&g…/);
  });

  it('job list of 30 jobs and status of a job with every field at its longest', () => {
    accepted(
      jobListMessage(
        Array.from({ length: 30 }, (_, i) => record(i)),
        NOW,
      ),
    );
    const job = {
      id: 'job_1'.repeat(60),
      status: 'completed',
      repository: `https://github.com/acme/${'d'.repeat(500)}`,
      ref: LONG_REF,
      model: 'm'.repeat(500),
      prLink: LONG_LINK,
      createdAt: '2026-11-21T09:00:00Z',
    };
    // biome-ignore lint/suspicious/noExplicitAny: the platform's job, as parsed
    accepted(jobStatusMessage(job as any, record(1)));
    accepted(
      jobStatusErrorMessage(HOSTILE, new DocsApiError('invalid_request', 'x', { apiMessage: HOSTILE }), NOW),
    );
  });

  it('thread replies: every outcome with a 3,000+ character link, notices, refusals, private notices', () => {
    for (const outcome of [
      { kind: 'pull_request', prLink: LONG_LINK },
      { kind: 'no_changes', previousPrLink: LONG_LINK },
      { kind: 'failed' },
      { kind: 'archived' },
    ] as const)
      accepted(terminalReplyMessage(record(1, { generation: 2 }), outcome, NOW));
    accepted(noticeMessage({ kind: 'watch_expired', maxAgeMs: 86_400_000 }));
    accepted(noticeMessage({ kind: 'job_gone' }));
    accepted(followUpRefusedMessage(new DocsApiError('invalid_request', 'x', { apiMessage: HOSTILE }), NOW));
    for (const notice of [
      { kind: 'access_denied', reason: 'user' },
      { kind: 'requester_only', requesterId: 'U0ALICE' },
      { kind: 'too_long', length: 400_000, max: 4000 },
      { kind: 'empty' },
      { kind: 'state_unavailable' },
      { kind: 'follow_up_unrecorded', jobId: HOSTILE },
    ] as const)
      accepted(privateNoticeMessage(notice));
    accepted(docsAgentHelpMessage());
    accepted(pageViewsHelpMessage());
  });

  it('top 50 report with 200-character paths and DOCS_SITE_URL stays under the total-text limit', () => {
    const pages = Array.from({ length: 500 }, (_, i) => ({
      path: `/${`section-${i}/`.repeat(20)}`.slice(0, 200),
      human: 1000 - i,
      ai: 500,
      total: 1500 - i,
    }));
    const request: ReportRequest = {
      range: { from: '2025-03-03', toExclusive: '2025-03-10' },
      label: 'Last 7 days',
      timeZone: 'UTC',
      top: 50,
      prefix: undefined,
    };
    const views = {
      range: request.range,
      totals: { human: 1, ai: 1, total: 2 },
      pages,
      partial: false,
      requests: 1,
      fetchedAt: NOW,
    };
    const report = buildReport(request, views, undefined);
    for (const interactive of [true, false]) {
      const message = pageViewsReportMessage(report, {
        siteUrl: 'https://docs.acme.dev/en/latest',
        interactive,
      });
      accepted(message);
      expect(totalBlockText(message.blocks)).toBeLessThanOrEqual(SLACK_LIMITS.totalBlockText);
      // Degraded on purpose: every row is shown, the lower ones without links, and the reader is told.
      const json = JSON.stringify(message.blocks);
      expect(json).toContain('*50.*');
      expect(json).toMatch(/Pages \d+–50 are shown without links: Slack limits how long a message can be/);
    }
  });

  it('a ranking too long even without links shows fewer rows and says so', () => {
    // `&` is escaped to `&amp;`: 150 of them make each row about 800 characters.
    const pages = Array.from({ length: 60 }, (_, i) => ({
      path: `/${i}${'&'.repeat(200)}`,
      human: 100 - i,
      ai: 1,
      total: 101 - i,
    }));
    const request: ReportRequest = {
      range: { from: '2025-03-03', toExclusive: '2025-03-10' },
      label: 'Last 7 days',
      timeZone: 'UTC',
      top: 50,
      prefix: undefined,
    };
    const views = {
      range: request.range,
      totals: { human: 1, ai: 1, total: 2 },
      pages,
      partial: true,
      requests: 1,
      fetchedAt: NOW,
    };
    const message = pageViewsReportMessage(buildReport(request, views, undefined), {
      siteUrl: 'https://docs.acme.dev',
      interactive: true,
    });
    accepted(message);
    const json = JSON.stringify(message.blocks);
    const shown = Number(/Showing the top (\d+) of 50 pages/.exec(json)?.[1]);
    expect(shown).toBeGreaterThan(5);
    expect(shown).toBeLessThan(50);
    expect(json).toContain(`*Top ${shown} pages*`);
    expect(json).toContain(`*${shown}.*`);
    expect(json).not.toContain(`*${shown + 1}.*`);
    expect(json).toContain('Post to channel');
  });
});

describe('the Block Kit limits the fake Slack enforces', () => {
  const section = (text: string) => ({ type: 'section', text: { type: 'mrkdwn', text } });
  const button = (overrides: Record<string, unknown>) => ({
    type: 'actions',
    elements: [{ type: 'button', action_id: 'a', text: { type: 'plain_text', text: 'Go' }, ...overrides }],
  });
  const refusal = (blocks: unknown[], text = 'x') => {
    const verdict = checkMessage({ text, blocks });
    return verdict.ok ? 'ok' : `${verdict.error} ${'errors' in verdict ? verdict.errors.join(';') : ''}`;
  };

  it('refuses each documented limit by one character or item, and accepts it at the limit', () => {
    expect(refusal([section('a'.repeat(3000))])).toBe('ok');
    expect(refusal([section('a'.repeat(3001))])).toMatch(/invalid_blocks .*\/blocks\/0\/text\/text/);
    expect(refusal(Array.from({ length: 50 }, () => ({ type: 'divider' })))).toBe('ok');
    expect(refusal(Array.from({ length: 51 }, () => ({ type: 'divider' })))).toMatch(
      /json-pointer:\/blocks\]/,
    );
    const fields = (count: number, size: number) => ({
      type: 'section',
      fields: Array.from({ length: count }, () => ({ type: 'mrkdwn', text: 'f'.repeat(size) })),
    });
    expect(refusal([fields(10, 1000)])).toBe('ok');
    expect(refusal([fields(11, 10)])).toMatch(/fields\]/);
    expect(refusal([fields(1, 2001)])).toMatch(/fields\/0\/text/);
    expect(refusal([{ type: 'header', text: { type: 'plain_text', text: 'h'.repeat(151) } }])).toMatch(
      /text\/text/,
    );
    expect(refusal([{ type: 'header', text: { type: 'mrkdwn', text: 'h' } }])).toMatch(/type/);
    const context = (count: number) => ({
      type: 'context',
      elements: Array.from({ length: count }, () => ({ type: 'mrkdwn', text: 'c' })),
    });
    expect(refusal([context(10)])).toBe('ok');
    expect(refusal([context(11)])).toMatch(/elements\]/);
    const actions = (count: number) => ({
      type: 'actions',
      elements: Array.from({ length: count }, (_, i) => ({
        type: 'button',
        action_id: `a${i}`,
        text: { type: 'plain_text', text: 'b' },
      })),
    });
    expect(refusal([actions(25)])).toBe('ok');
    expect(refusal([actions(26)])).toMatch(/elements\]/);
    expect(refusal([button({ text: { type: 'plain_text', text: 'b'.repeat(76) } })])).toMatch(/text\/text/);
    expect(refusal([button({ url: `https://x.dev/${'u'.repeat(3000)}` })])).toMatch(/\/url\]/);
    expect(refusal([button({ value: 'v'.repeat(2001) })])).toMatch(/\/value\]/);
    expect(refusal([button({ action_id: 'a'.repeat(256) })])).toMatch(/action_id\]/);
    expect(refusal([{ ...section('s'), block_id: 'b'.repeat(256) }])).toMatch(/block_id\]/);
    expect(refusal([section('a')], 't'.repeat(40_001))).toBe('msg_too_long ');
  });

  it('refuses a message whose blocks total more than about 12,000 characters of text', () => {
    const blocks = (size: number) => Array.from({ length: 5 }, () => section('a'.repeat(size)));
    expect(refusal(blocks(2400))).toBe('ok');
    expect(refusal(blocks(2401))).toBe('msg_blocks_too_long ');
  });
});
