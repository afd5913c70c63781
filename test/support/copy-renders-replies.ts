/** The copy test's renders of replies, notices, settings and previews (see copy-renders.ts). */
import { AppError } from '../../src/common/errors.js';
import {
  connection,
  docsErrors,
  done,
  follow,
  healthReport,
  JOB_ID,
  NOW,
  outcomes,
  PR,
  pageViewsReport,
  type Renders,
  records,
  SLACK_CODES,
  schedule,
  USER,
} from './copy-fixtures.js';

export const REPLY_RENDERS: Renders = {
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
      m.noticeMessage({ kind: 'watch_expired', maxAgeMs: 7_200_000 }),
      m.noticeMessage({ kind: 'watch_expired', maxAgeMs: 7_200_000 }, 'https://dashboard.example.com/jobs/1'),
      m.noticeMessage({ kind: 'job_gone' }),
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
