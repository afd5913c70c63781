/**
 * The copy test's fixtures (test/unit/copy-system.test.ts): job records, reports from the playground's demo
 * data, connections, errors and outcomes, in the states the messages are rendered in.
 */
import { demoHealth, demoViews } from '../../demo/demo-data.js';
import { DocsApiError } from '../../src/common/docs-api-error.js';
import { AppError } from '../../src/common/errors.js';
import { buildHealthReport } from '../../src/insights/health/report.js';
import { buildReport } from '../../src/insights/page-views/report.js';
import { type JobRecord, newJobRecord } from '../../src/jobs/domain/job.js';

// biome-ignore lint/suspicious/noExplicitAny: each module's exports are called with the arguments they take
export type Module = Record<string, any>;
export type Renders = Record<string, Record<string, (m: Module) => unknown[]>>;

export const NOW = Date.parse('2026-11-21T10:00:00Z');
export const JOB_ID = 'job_7f3a9c';
export const PROJECT_ID = 'proj_acme_docs';
export const USER = 'U0ALICE';
export const PR = 'https://github.com/acme/docs/pull/123';

export function record(overrides: Partial<JobRecord> = {}): JobRecord {
  return {
    ...newJobRecord(
      {
        jobId: JOB_ID,
        teamId: 'T1',
        channelId: 'C0DOCS',
        threadTs: '1700000000.000100',
        cardTs: '1700000000.000100',
        requesterId: USER,
        prompt: 'Document webhook retries on the guides page',
        origin: 'command',
        status: 'active',
        repository: 'https://github.com/acme/docs',
        ref: 'docs-agent/webhook-retries',
        model: 'claude-sonnet-4-5',
        prLink: null,
      },
      NOW - 65_000,
    ),
    updatedAt: NOW,
    ...overrides,
  };
}

export const done = () => record({ status: 'completed', prLink: PR });
export const records = () => [
  record(),
  done(),
  record({ status: 'failed' }),
  record({ status: 'archived' }),
  record({ status: 'completed' }),
  record({ watchEnded: 'gone' }),
  record({ watchEnded: 'expired' }),
  record({ watchEnded: 'stopped' }),
];
export const follow = (state: 'open' | 'merged' | 'closed') => ({
  url: PR,
  startedAt: NOW - 1000,
  reads: 1,
  failures: 0,
  ended: null,
  noticed: false,
  last: {
    state,
    draft: false,
    review: 'approved',
    checks: 'passing',
    openedAt: NOW - 3_600_000,
    mergedAt: state === 'merged' ? NOW - 60_000 : null,
    mergedBy: state === 'merged' ? 'octocat' : null,
    closedAt: state === 'closed' ? NOW - 60_000 : null,
    headSha: 'abc',
    changedFiles: 3,
    additions: 40,
    deletions: 2,
  },
});

export const range = { from: '2026-11-14', toExclusive: '2026-11-21' };
export function pageViewsReport(prefix?: string) {
  const pages = demoViews(`${range.from}T00:00:00Z`, `${range.toExclusive}T00:00:00Z`).sort(
    (a, b) => b.total - a.total,
  );
  const totals = pages.reduce(
    (t, p) => ({ human: t.human + p.human, ai: t.ai + p.ai, total: t.total + p.total }),
    { human: 0, ai: 0, total: 0 },
  );
  return buildReport(
    { range, label: 'Last 7 days', timeZone: 'UTC', top: 5, prefix },
    { range, totals, pages, partial: prefix !== undefined, requests: 1, fetchedAt: NOW },
    {
      human: Math.round(totals.human * 0.9),
      ai: Math.round(totals.ai * 1.2),
      total: Math.round(totals.total * 0.95),
    },
    // The week before, page by page: one up, one level, one down, one new ("vs last period").
    {
      pages: pages
        .filter((_, i) => i !== 3)
        .map((p, i) => ({ ...p, total: Math.round(p.total * ([0.8, 1, 1.3, 0.97][i % 4] ?? 1)) })),
      partial: false,
    },
  );
}
export function healthReport() {
  const h = demoHealth();
  return buildHealthReport({
    dateFrom: `${range.from}T00:00:00Z`,
    dateTo: `${range.toExclusive}T00:00:00Z`,
    searches: h.searches,
    totalSearches: 2_140,
    pages: h.pages,
    feedback: h.feedback,
    conversations: h.conversations,
    partial: [],
    requests: 4,
  } as never);
}
export const schedule = () => ({
  kind: 'page_views',
  channelId: 'C0DOCS',
  cron: '0 9 * * 1',
  timeZone: 'Europe/Berlin',
  createdBy: USER,
  createdAt: NOW,
  source: 'command',
});
export const evidence = () => healthReport().searches.rows[0]!;
export const connection = (fromEnvironment = false) => ({
  projectId: PROJECT_ID,
  channelId: 'C0DOCS',
  connectedBy: USER,
  connectedAt: NOW - 86_400_000,
  maskedKey: 'svc_…9f2a',
  fromEnvironment,
});
export const docsErrors = () => [
  ...(
    [
      'unauthorized',
      'forbidden',
      'rate_limited',
      'invalid_request',
      'not_found',
      'unavailable',
      'bad_response',
      'not_connected',
    ] as const
  ).map(
    (code) =>
      new DocsApiError(code, `platform said ${code}`, {
        status: 500,
        retryAfterMs: 120_000,
        apiMessage: 'prompt is empty',
      }),
  ),
  new DocsApiError('unauthorized', 'x', { status: 401, keyConnectedInSlack: true }),
  new AppError('state_unavailable', 'store down'),
  new Error('boom'),
];
export const SLACK_CODES = [
  'not_in_channel',
  'is_archived',
  'restricted_action',
  'msg_too_long',
  'shutting_down',
  'card_not_confirmed',
  'slack_queue_full',
  'ratelimited',
  undefined,
];
export const outcomes = [
  { kind: 'pull_request', prLink: PR },
  { kind: 'no_changes', previousPrLink: null },
  { kind: 'no_changes', previousPrLink: PR },
  { kind: 'failed' },
  { kind: 'archived' },
];

/** Messages rendered per module: a few states each. */
