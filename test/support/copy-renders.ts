/**
 * The copy test's registry (test/unit/copy-system.test.ts): for each module of src/slack/messages, every
 * exported function either renders here (a few states each, from the playground's demo data) or is named
 * in HELPERS with why it is not a message. A new export in neither fails the test.
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
const PR = 'https://github.com/acme/docs/pull/123';

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

const done = () => record({ status: 'completed', prLink: PR });
const records = () => [
  record(),
  done(),
  record({ status: 'failed' }),
  record({ status: 'archived' }),
  record({ status: 'completed' }),
  record({ watchEnded: 'gone' }),
  record({ watchEnded: 'expired' }),
  record({ watchEnded: 'stopped' }),
];
const follow = (state: 'open' | 'merged' | 'closed') => ({
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

const range = { from: '2026-11-14', toExclusive: '2026-11-21' };
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
const schedule = () => ({
  kind: 'page_views',
  channelId: 'C0DOCS',
  cron: '0 9 * * 1',
  timeZone: 'Europe/Berlin',
  createdBy: USER,
  createdAt: NOW,
  source: 'command',
});
const evidence = () => healthReport().searches.rows[0]!;
const connection = (fromEnvironment = false) => ({
  projectId: PROJECT_ID,
  channelId: 'C0DOCS',
  connectedBy: USER,
  connectedAt: NOW - 86_400_000,
  maskedKey: 'svc_…9f2a',
  fromEnvironment,
});
const docsErrors = () => [
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
const SLACK_CODES = [
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
const outcomes = [
  { kind: 'pull_request', prLink: PR },
  { kind: 'no_changes', previousPrLink: null },
  { kind: 'no_changes', previousPrLink: PR },
  { kind: 'failed' },
  { kind: 'archived' },
];

/** Messages rendered per module: a few states each. */
export const RENDERS: Renders = {
  'agent-session.ts': {
    sessionStoppedMessage: (m) => [m.sessionStoppedMessage(record())],
    nothingToStopMessage: (m) => [m.nothingToStopMessage(undefined), m.nothingToStopMessage(done())],
    stopChoiceMessage: (m) =>
      [
        { kind: 'instructed', userId: USER },
        { kind: 'following', userId: USER },
        { kind: 'instruction_refused', reason: 'the docs platform is down' },
        { kind: 'already_chosen' },
        { kind: 'stale' },
      ].map((o) => m.stopChoiceMessage(record(), o)),
  },
  'alert-replies.ts': {
    alertsOnReply: (m) => [
      m.alertsOnReply(
        { channelId: 'C0DOCS', sensitivity: 'normal', createdBy: USER, createdAt: NOW },
        undefined,
        3_600_000,
      ),
    ],
    alertsOffReply: (m) => [m.alertsOffReply(true), m.alertsOffReply(false)],
    alertsStatusReply: (m) => [
      m.alertsStatusReply(undefined, 3_600_000),
      m.alertsStatusReply(
        { channelId: 'C0DOCS', sensitivity: 'high', createdBy: USER, createdAt: NOW },
        3_600_000,
      ),
    ],
    invalidAlertsCommand: (m) => [m.invalidAlertsCommand('/docs-health', 'loud', 'is not a sensitivity')],
  },
  'app-home.ts': {
    appHomeView: (m) => [
      m.appHomeView({
        userId: USER,
        teamId: 'T1',
        jobs: records(),
        schedules: [
          {
            channelId: 'C0DOCS',
            cron: '0 9 * * 1',
            timeZone: 'Europe/Berlin',
            kind: 'page views',
            nextRunAt: NOW + 86_400_000,
          },
        ],
        budgets: [{ label: 'Agent jobs', left: 0, limit: 20, resetsAt: NOW + 600_000 }],
        alerts: [{ channelId: 'C0DOCS', sensitivity: 'normal' }],
        settings: {
          manage: true,
          connections: [connection()],
          installerUserId: USER,
          managers: { added: ['U0BOB'], externalUsers: false, externalUsersChosen: false },
        },
      }),
    ],
    appHomeUnavailableView: (m) => [m.appHomeUnavailableView()],
  },
  'assistant-confirm.ts': {
    confirmationCard: (m) => [
      m.confirmationCard('p1', 'Document webhook retries', { projectId: undefined }),
      m.confirmationCard('p1', 'What is our most read page?', { projectId: undefined }, true),
    ],
    confirmationDecided: (m) =>
      ['started', 'not_started', 'cancelled', 'expired', 'has_job'].map((d) =>
        m.confirmationDecided(d, USER),
      ),
    acknowledgedMessage: (m) => [m.acknowledgedMessage()],
  },
  'assistant-replies.ts': {
    assistantHelpMessage: (m) => [m.assistantHelpMessage()],
    myJobsMessage: (m) => [m.myJobsMessage([]), m.myJobsMessage(records())],
    assistantElsewhereMessage: (m) => [
      m.assistantElsewhereMessage('schedule', '/docs-views'),
      m.assistantElsewhereMessage('csv', '/docs-views'),
    ],
    assistantTextMessage: (m) => [m.assistantTextMessage('Here is what I found.')],
  },
  'assistant-steps.ts': {
    runningStatus: (m) => [m.runningStatus(record()), m.runningStatus(record({ generation: 2 }))],
    startingSteps: (m) => [m.startingSteps()],
    knownSteps: (m) => [m.knownSteps(done(), true), m.knownSteps(record(), false)],
    runningSteps: (m) => [m.runningSteps(record())],
    finishedSteps: (m) => outcomes.map((o) => m.finishedSteps(done(), o)),
    handoverSteps: (m) => [m.handoverSteps(record())],
    stoppedSteps: (m) => [m.stoppedSteps(record())],
    notStartedSteps: (m) => [m.notStartedSteps('The docs platform is down.')],
  },
  'evidence-summary.ts': {
    evidenceSummary: (m) => [m.evidenceSummary(evidence())],
  },
  'failures.ts': {
    reconnectKeyText: (m) => [
      m.reconnectKeyText(401, 'start the job'),
      m.reconnectKeyText(403, 'start the job'),
    ],
    describeDocsFailure: (m) =>
      docsErrors().map((e) => m.describeDocsFailure(e, NOW, 'start the job', { jobsPerHour: 20 })),
    retryHint: (m) => [m.retryHint(120_000, NOW), m.retryHint(undefined, NOW)],
    describeSlackDeliveryFailure: (m) => SLACK_CODES.map((c) => m.describeSlackDeliveryFailure(c)),
  },
  'first-run.ts': {
    firstRunBlocks: (m) => [m.firstRunBlocks({ userId: USER, command: '/docs-agent' })],
  },
  'github-connect-modal.ts': { githubModalView: (m) => [m.githubModalView()] },
  'health-help.ts': { docsHealthHelp: (m) => [m.docsHealthHelp('/docs-health')] },
  'health-modal.ts': { healthFixModal: (m) => [m.healthFixModal(evidence(), 'C0DOCS')] },
  'health-report.ts': {
    healthReportMessage: (m) => [
      m.healthReportMessage(healthReport(), {
        siteUrl: 'https://docs.acme.dev',
        fixButtons: true,
        requestedBy: USER,
      }),
    ],
  },
  'help.ts': {
    docsAgentHelpMessage: (m) => [
      m.docsAgentHelpMessage(),
      m.docsAgentHelpMessage('/docs-agent', { connectable: true }),
    ],
  },
  'hold-home.ts': { holdHomeView: (m) => [m.holdHomeView('I am paused in this workspace.')] },
  'job-card.ts': {
    statusLine: (m) => records().map((r) => m.statusLine(r)),
    statusWords: (m) => ['active', 'completed', 'failed', 'archived'].map((s) => m.statusWords(s, null)),
    jobCardMessage: (m) => [
      m.jobCardMessage({
        requesterId: USER,
        prompt: 'Document webhook retries',
        state: { phase: 'starting' },
      }),
      m.jobCardMessage({
        requesterId: USER,
        prompt: 'Document webhook retries',
        state: { phase: 'not_started', reason: 'The docs platform is down.' },
      }),
      ...records().map((r) =>
        m.jobCardMessage({
          requesterId: USER,
          prompt: r.prompt,
          state: { phase: 'tracked', record: r, now: NOW },
          project: 'Acme docs',
        }),
      ),
    ],
    threadHint: (m) => [m.threadHint(USER), m.threadHint(USER, 'requester')],
  },
  'job-feedback.ts': {
    feedbackBlock: (m) => [m.feedbackBlock(JOB_ID, 1)],
    feedbackAnswerText: (m) => [
      ...['new', 'changed', 'same'].map((change) =>
        m.feedbackAnswerText({ ok: true, vote: 'useful', change }),
      ),
      ...['unknown_job', 'state_unavailable', 'not_allowed', 'channel_not_allowed'].map((why) =>
        m.feedbackAnswerText({ ok: false, why }),
      ),
    ],
  },
  'job-list.ts': {
    jobListMessage: (m) => [m.jobListMessage([], NOW), m.jobListMessage(records(), NOW)],
    jobStatusMessage: (m) => [
      m.jobStatusMessage(
        {
          id: JOB_ID,
          status: 'completed',
          prLink: PR,
          repository: 'https://github.com/acme/docs',
          ref: 'docs-agent/x',
          model: 'claude',
          createdAt: new Date(NOW).toISOString(),
        },
        done(),
      ),
    ],
    jobStatusErrorMessage: (m) => [
      m.jobStatusErrorMessage(JOB_ID, new AppError('job_not_visible', 'no'), NOW),
      m.jobStatusErrorMessage(JOB_ID, new AppError('state_unavailable', 'no'), NOW),
      ...docsErrors().map((e) => m.jobStatusErrorMessage(JOB_ID, e, NOW)),
    ],
  },
  'job-modal.ts': {
    jobModalView: (m) => [
      m.jobModalView({
        refs: { origin: 'message_shortcut', channelId: 'C0DOCS', threadTs: '1.0', messageTs: '1.0' },
        instruction: 'Fix the quickstart',
        threadUnread: 'internal',
      }),
      m.jobModalView({
        refs: { origin: 'home' },
        earlierMessages: [{ author: 'Bob', text: 'The retry table is off' }],
        context: { sent: 1, chars: 22, leftOut: 0 },
      }),
    ],
  },
  'job-replies.ts': {
    terminalReplyMessage: (m) => outcomes.map((o) => m.terminalReplyMessage(done(), o, NOW)),
    noticeMessage: (m) => [
      m.noticeMessage(record(), { kind: 'watch_expired', maxAgeMs: 7_200_000 }),
      m.noticeMessage(record(), { kind: 'job_gone' }),
    ],
    followUpRefusedMessage: (m) => docsErrors().map((e) => m.followUpRefusedMessage(e, NOW)),
    startFailureNotice: (m) => [
      m.startFailureNotice({ ok: false, stage: 'state' }),
      m.startFailureNotice({ ok: false, stage: 'card', error: { code: 'not_in_channel' } }),
      m.startFailureNotice({ ok: false, stage: 'secret', kind: 'slack_token' }),
    ],
    privateNoticeMessage: (m) =>
      [
        { kind: 'access_denied', reason: 'user' },
        { kind: 'access_denied', reason: 'channel', ask: ['U0ADMIN1', 'U0ADMIN2'] },
        { kind: 'requester_only', requesterId: USER },
        { kind: 'too_long', length: 12_000, max: 8_000 },
        { kind: 'empty' },
        { kind: 'state_unavailable' },
        { kind: 'follow_up_unrecorded', jobId: JOB_ID },
        { kind: 'secret', secret: 'slack_token' },
      ].map((n) => m.privateNoticeMessage(n)),
  },
  'page-views-help.ts': { pageViewsHelpMessage: (m) => [m.pageViewsHelpMessage()] },
  'page-views-replies.ts': {
    invalidPageViewsCommandMessage: (m) => [
      m.invalidPageViewsCommandMessage('/docs-views', '8x', 'is not a range'),
    ],
    describePageViewsFailure: (m) =>
      [
        ...docsErrors(),
        Object.assign(new AppError('analytics_budget_exhausted', 'x'), { retryAfterMs: 60_000 }),
      ].map((e) => m.describePageViewsFailure(e, NOW, { analyticsPerHour: 300 })),
    describeUploadFailure: (m) => SLACK_CODES.map((c) => m.describeUploadFailure(c)),
    describePostFailure: (m) => SLACK_CODES.map((c) => m.describePostFailure(c)),
  },
  'page-views-report.ts': {
    formatChange: (m) => [m.formatChange(120, 100), m.formatChange(5, 0)],
    pageViewsReportMessage: (m) => [
      m.pageViewsReportMessage(pageViewsReport(), {
        siteUrl: 'https://docs.acme.dev',
        interactive: true,
        requestedBy: USER,
      }),
      m.pageViewsReportMessage(pageViewsReport('/guides'), { siteUrl: undefined, interactive: false }),
    ],
  },
  'project-connect-modal.ts': {
    connectModalView: (m) => [m.connectModalView({ channelId: 'C0DOCS', userId: USER })],
  },
  'project-settings.ts': {
    whoCanManageText: (m) => [m.whoCanManageText(USER), m.whoCanManageText(undefined, true)],
    notSetUpText: (m) => [m.notSetUpText(USER), m.notSetUpText(undefined)],
    notAllowedText: (m) => [m.notAllowedText(USER), m.notAllowedText(undefined, true)],
    connectionLine: (m) => [m.connectionLine(connection())],
    connectedText: (m) => [
      m.connectedText(connection(), undefined),
      m.connectedText(connection(), connection(true)),
    ],
    disconnectedText: (m) => [
      m.disconnectedText(connection(), undefined),
      m.disconnectedText(connection(), connection(true)),
    ],
    keyRefusedText: (m) => [m.keyRefusedText(401, undefined), m.keyRefusedText(403, 'key lacks scope')],
    platformUnavailableText: (m) => [
      m.platformUnavailableText(undefined),
      m.platformUnavailableText('timed out'),
    ],
    channelProjectText: (m) => [
      m.channelProjectText({ connection: connection(), scope: 'channel' }, USER),
      m.channelProjectText(undefined, undefined),
    ],
    homeSettingsBlocks: (m) => [
      m.homeSettingsBlocks({
        manage: true,
        connections: [connection(), connection(true)],
        installerUserId: USER,
        managers: { added: ['U0BOB'], externalUsers: true, externalUsersChosen: true },
      }),
      m.homeSettingsBlocks({ manage: false, connections: [], installerUserId: USER }),
    ],
  },
  'pull-request.ts': {
    pullRequestName: (m) => [m.pullRequestName(PR, follow('open'), 500)],
    pullRequestSize: (m) => [m.pullRequestSize(follow('open').last)],
    pullRequestStateLine: (m) => [
      m.pullRequestStateLine(undefined),
      ...(['open', 'merged', 'closed'] as const).map((s) => m.pullRequestStateLine(follow(s))),
    ],
    pullRequestNoticeMessage: (m) =>
      [
        { kind: 'merged', pr: follow('merged').last },
        { kind: 'closed', pr: follow('closed').last, impactCancelled: true },
        { kind: 'still_open', days: 14, impactCancelled: false },
      ].map((n) => m.pullRequestNoticeMessage(PR, n)),
  },
  'review-message.ts': { reviewMessagePrompt: (m) => [m.reviewMessagePrompt('C0DOCS', '1700000000.000100')] },
  'schedule-replies.ts': {
    scheduleConfirmation: (m) => [
      m.scheduleConfirmation(schedule(), NOW + 86_400_000, false),
      m.scheduleConfirmation({ ...schedule(), kind: 'health' }, undefined, true),
    ],
    schedulesList: (m) => [
      m.schedulesList(
        [
          { ...schedule(), nextRun: NOW + 86_400_000 },
          { ...schedule(), channelId: 'C0OTHER', source: 'env', nextRun: undefined },
        ],
        'C0DOCS',
      ),
      m.schedulesList([], 'C0DOCS', 'health'),
    ],
    noScheduleHere: (m) => [m.noScheduleHere('page_views'), m.noScheduleHere('health')],
    unscheduleReply: (m) => [m.unscheduleReply(true), m.unscheduleReply(false, 'health')],
  },
  'secret-notice.ts': {
    secretRefusalText: (m) => ['slack_token', 'unchecked'].map((k) => m.secretRefusalText(k)),
    secretInFormText: (m) => [m.secretInFormText('slack_token')],
  },
  'tenant-preferences.ts': {
    githubText: (m) => [
      m.githubText(undefined),
      m.githubText({ masked: 'ghp_…a1b2', owners: ['acme'], connectedBy: USER }),
    ],
    managersText: (m) => [m.managersText(USER, ['U0BOB']), m.managersText(undefined, [])],
    settingsForManagersOnlyText: (m) => [m.settingsForManagersOnlyText(USER, ['U0BOB'])],
    addedManagerText: (m) => [m.addedManagerText('U0BOB')],
    removedManagerText: (m) => [m.removedManagerText('U0BOB')],
    externalUsersText: (m) => [m.externalUsersText(true, true), m.externalUsersText(false, false)],
    preferenceFailureText: (m) =>
      ['state_unavailable', 'not_manager', 'github_unavailable', 'invalid_token', 'other'].map((c) =>
        m.preferenceFailureText(c, '<@U0BOB>'),
      ),
    takenOverText: (m) => [m.takenOverText({ by: 'U0ADMIN', at: NOW })],
  },
  'unfurls.ts': {
    trend: (m) => [m.trend(120, 100), m.trend(100, 100), m.trend(5, 0)],
    plainPagePreview: (m) => [
      m.plainPagePreview(
        'https://docs.acme.dev/quickstart',
        '/quickstart',
        'Acme docs',
        'numbers are for members only',
      ),
    ],
  },
  'weekly-post.ts': {
    pageViewsHeadline: (m) => [m.pageViewsHeadline(pageViewsReport())],
    healthHeadline: (m) => [m.healthHeadline(healthReport())],
    weeklyPost: (m) => [
      m.weeklyPost({ text: 'x', blocks: [] }, { kind: 'page_views', headline: 'h', setUpBy: USER }),
      m.weeklyPost({ text: 'x', blocks: [] }, { kind: 'health', headline: 'h', setUpBy: undefined }),
    ],
  },
  'welcome.ts': { welcomeMessage: (m) => [m.welcomeMessage('Acme')] },
};
