/**
 * The copy test's registry (test/unit/copy-system.test.ts): for each module of src/slack/messages, every
 * exported function either renders here or in copy-renders-*.ts (a few states each, from the playground's
 * demo data) or is named in copy-helpers.ts with why it is not a message. A new export in neither fails.
 */
import {
  connection,
  docsErrors,
  done,
  evidence,
  healthReport,
  NOW,
  outcomes,
  type Renders,
  record,
  records,
  SLACK_CODES,
  USER,
} from './copy-fixtures.js';

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
      ].map((o) => m.stopChoiceMessage(o)),
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
        usage: { used: 3, limit: 20 },
        jobPage: (job: { jobId: string }) => `https://dashboard.example.com/jobs/${job.jobId}`,
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
    firstRunBlocks: (m) => [
      m.firstRunBlocks({ userId: USER, command: '/docs-agent' }),
      // A manager with a project connected and nothing else done yet: the checklist, one step ticked.
      m.firstRunBlocks({ settings: { manage: true, connections: [connection()] }, jobs: [], schedules: [] }),
    ],
  },
  'github-connect-modal.ts': { githubModalView: (m) => [m.githubModalView()] },
  'health-help.ts': { docsHealthHelp: (m) => [m.docsHealthHelp('/docs-health')] },
  'health-modal.ts': {
    healthFixModal: (m) => [m.healthFixModal(evidence(), 'C0DOCS'), m.healthFixModal(evidence(), undefined)],
  },
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
};
