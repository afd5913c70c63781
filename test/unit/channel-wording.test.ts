import { describe, expect, it } from 'vitest';
import { DocsApiError, type DocsApiErrorCode } from '../../src/common/docs-api-error.js';
import { buildHealthReport } from '../../src/insights/health/report.js';
import { newJobRecord } from '../../src/jobs/domain/job.js';
import { accessDeniedMessage } from '../../src/slack/command-text.js';
import { describeDocsFailure } from '../../src/slack/messages/failures.js';
import { healthReportMessage } from '../../src/slack/messages/health-report.js';
import { jobCardMessage } from '../../src/slack/messages/job-card.js';
import { feedbackAnswerText } from '../../src/slack/messages/job-feedback.js';
import { privateNoticeMessage, terminalReplyMessage } from '../../src/slack/messages/job-replies.js';
import { describePageViewsFailure } from '../../src/slack/messages/page-views-replies.js';

/** An operator's variable (`DOCS_API_KEY`, `ALLOWED_USER_IDS`…): words for logs and managers, not channels. */
const VARIABLE = /[A-Z_]{6,}/;
const NOW = Date.parse('2026-11-21T10:00:00Z');
const CODES: DocsApiErrorCode[] = [
  'unauthorized',
  'forbidden',
  'rate_limited',
  'invalid_request',
  'not_found',
  'unavailable',
  'bad_response',
];

const record = (overrides: object = {}) => ({
  ...newJobRecord(
    {
      jobId: 'job_0001',
      teamId: 'T1',
      channelId: 'C1',
      threadTs: '1.1',
      cardTs: '1.1',
      requesterId: 'U0AL',
      prompt: 'Document the rate limit response',
      origin: 'command',
      status: 'failed',
      repository: 'https://github.com/acme/docs',
      ref: 'docs-agent/rate',
      model: 'claude',
      prLink: null,
    },
    NOW - 185_000,
  ),
  ...overrides,
});

describe('channel-visible wording names no operator variable', () => {
  const rendered: Array<[string, string]> = [
    ...CODES.map((code): [string, string] => [
      `job failure ${code}`,
      describeDocsFailure(new DocsApiError(code, 'x', { status: 400 }), NOW),
    ]),
    ...CODES.map((code): [string, string] => [
      `report failure ${code}`,
      describePageViewsFailure(new DocsApiError(code, 'x', { status: 400 }), NOW),
    ]),
    ...(['user', 'channel', 'external'] as const).map((reason): [string, string] => [
      `refusal ${reason}`,
      accessDeniedMessage(reason),
    ]),
    ...(['user', 'channel'] as const).map((reason): [string, string] => [
      `notice ${reason}`,
      JSON.stringify(privateNoticeMessage({ kind: 'access_denied', reason } as never)),
    ]),
    ...(['unknown_job', 'state_unavailable', 'not_allowed', 'channel_not_allowed'] as const).map(
      (why): [string, string] => [`rating ${why}`, feedbackAnswerText({ ok: false, why })],
    ),
    [
      'failed card',
      JSON.stringify(
        jobCardMessage({
          requesterId: 'U0AL',
          prompt: 'Document the rate limit response',
          state: { phase: 'tracked', record: record(), now: NOW },
        }),
      ),
    ],
    ['failed reply', JSON.stringify(terminalReplyMessage(record(), { kind: 'failed' } as never, NOW))],
    [
      'health report',
      JSON.stringify(
        healthReportMessage(
          buildHealthReport({
            dateFrom: '2026-11-18',
            dateTo: '2026-11-25',
            totalSearches: 10,
            searches: [{ searchQuery: 'rate limit', hits: 4, ctr: 0, topClickedPage: null }],
            pages: [],
            feedback: [],
            conversations: [],
            partial: ['pages'],
            requests: 3,
          }),
          { siteUrl: undefined, fixButtons: true, postValue: '7d' },
        ),
      ),
    ],
  ];

  it.each(rendered)('%s', (_name, text) => {
    expect(text.length).toBeGreaterThan(0);
    expect(text).not.toMatch(VARIABLE);
    expect(text).not.toMatch(/exclusive|0\.000001/);
  });
});
