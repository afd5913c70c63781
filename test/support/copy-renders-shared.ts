/**
 * The copy test's renders for the builders added with issue 46's shared actions, job links and report tables
 * (headlines, the shared-message lines, the card's actions, the top-pages list and table).
 */
import {
  done,
  evidence,
  healthReport,
  JOB_ID,
  NOW,
  PR,
  pageViewsReport,
  type Renders,
  record,
  USER,
} from './copy-fixtures.js';

const alert = () => [
  { type: 'section', text: { type: 'mrkdwn', text: 'A search gap' } },
  {
    type: 'actions',
    block_id: 'alert_actions',
    elements: [
      { type: 'button', action_id: 'health_fix_0', text: { type: 'plain_text', text: 'Fix' } },
      {
        type: 'overflow',
        action_id: 'alert_menu',
        options: [{ text: { type: 'plain_text', text: 'Mute this signal for 7 days' }, value: 'mute:x' }],
      },
    ],
  },
];
const alertWithLook = () => [
  { type: 'section', text: { type: 'mrkdwn', text: 'A search gap' } },
  {
    type: 'actions',
    block_id: 'alert_actions',
    elements: [
      { type: 'button', action_id: 'health_alert_look', text: { type: 'plain_text', text: "I'll look" } },
    ],
  },
];
const weekly = () => [
  { type: 'section', text: { type: 'mrkdwn', text: 'This week' } },
  {
    type: 'actions',
    block_id: 'weekly_post_stop',
    elements: [
      { type: 'button', action_id: 'weekly_stop', text: { type: 'plain_text', text: 'Stop these posts' } },
    ],
  },
];
/** This week's page views and the week before's, as Home's summary shows them. */
const WEEK_VIEWS = {
  current: { total: 4_210, human: 3_100, ai: 1_110 },
  previous: { total: 3_900, human: 3_000, ai: 900 },
};
const flaggedPage = () => healthReport().pages.rows[0]!;
const fix = { userId: USER, atMs: NOW, link: `https://acme.slack.com/archives/C0DOCS/p1700000000000100` };

export const SHARED_RENDERS: Renders = {
  'headlines.ts': {
    reportPeriod: (m) => [m.reportPeriod('Last 7 days', '14–20 Nov', 7).now],
    pageViewsHeadline: (m) => [
      m.pageViewsHeadline(pageViewsReport()),
      m.pageViewsHeadline(pageViewsReport(), m.reportPeriod('Last 7 days', '14–20 Nov', 7)),
    ],
    healthHeadline: (m) => [m.healthHeadline(healthReport())],
  },
  'shared-state.ts': {
    fixStartedOn: (m) => [m.fixStartedOn(alert(), 'health_fix_0', fix)],
    fixButtonOf: (m) => [m.fixButtonOf(alert(), 'health_fix_0')],
    fixEndedOn: (m) => {
      const started = m.fixStartedOn(alert(), 'health_fix_0', fix);
      const button = m.fixButtonOf(alert(), 'health_fix_0');
      return [m.fixEndedOn(started, 'health_fix_0', { userId: USER, atMs: NOW, link: fix.link, button })];
    },
    mutedOn: (m) => [
      m.mutedOn(alert(), { userId: USER, untilMs: NOW + 7 * 86_400_000, menuActionId: 'alert_menu' }),
    ],
    unmutedOn: (m) => {
      const untilMs = NOW + 7 * 86_400_000;
      const muted = m.mutedOn(alert(), { userId: USER, untilMs, menuActionId: 'alert_menu' });
      return [
        m.unmutedOn(muted, {
          untilMs,
          menu: {
            type: 'overflow',
            action_id: 'health_alert_menu',
            options: [{ text: { type: 'plain_text', text: 'Mute this signal for 7 days' }, value: 'mute:x' }],
          },
        }),
      ];
    },
    lookingOn: (m) => {
      const once = m.lookingOn(alertWithLook(), { userId: USER, atMs: NOW });
      return [once, m.lookingOn(once, { userId: 'U0CAROL', atMs: NOW })];
    },
    stoppedOn: (m) => [m.stoppedOn(weekly(), { userId: USER, atMs: NOW, kind: 'page_views' })],
    restartedOn: (m) => {
      const stopped = m.stoppedOn(weekly(), { userId: USER, atMs: NOW, kind: 'page_views' });
      return [m.restartedOn(stopped, { userId: USER, atMs: NOW, kind: 'page_views' })];
    },
    seenBlocks: (m) => [m.seenBlocks(alert())],
  },
  'job-card-actions.ts': {
    openJobPageButton: (m) => [m.openJobPageButton('https://dashboard.example.com/jobs/1')],
    trackedCardBlocks: (m) => [
      m.trackedCardBlocks({ jobId: JOB_ID, prLink: PR, failed: false, jobUrl: undefined }),
      m.trackedCardBlocks({
        jobId: JOB_ID,
        prLink: null,
        failed: true,
        jobUrl: 'https://dashboard.example.com/j',
      }),
    ],
  },
  'top-pages-list.ts': {
    topPagesList: (m) => [m.topPagesList(pageViewsReport().top, 'https://docs.acme.dev', 3_000, 5, '')],
    plural: (m) => [m.plural(1, 'page'), m.plural(1204, 'page')],
    changeWords: (m) => pageViewsReport().top.map((page) => m.changeWords(page)),
  },
  'top-pages-table.ts': {
    topPagesTable: (m) => [
      m.topPagesTable(
        pageViewsReport().top,
        () => undefined,
        10_000,
        (k: number) => `Top ${k} pages`,
      ),
    ],
    changeCell: (m) => [
      ...pageViewsReport().top.map((page) => m.changeCell(page)),
      m.changeCell({ total: 10, previousTotal: undefined }),
    ],
  },
  'home-jobs.ts': {
    homeJobBlocks: (m) => [
      m.homeJobBlocks({ userId: USER, jobs: [] }),
      m.homeJobBlocks({
        userId: USER,
        jobs: [record(), done()],
        jobPage: (job: { jobId: string }) => `https://dashboard.example.com/jobs/${job.jobId}`,
      }),
    ],
    homeJobMenu: (m) => [
      [
        {
          type: 'section',
          text: { type: 'plain_text', text: 'Job' },
          accessory: m.homeJobMenu(record(), undefined),
        },
      ],
    ],
    homeUsageBlocks: (m) => [
      m.homeUsageBlocks({ used: 3, limit: 20 }),
      m.homeUsageBlocks({ used: 1, limit: 1 }),
    ],
    homeStopText: (m) => [
      m.homeStopText({ kind: 'stopped', channelId: 'C0DOCS' }),
      m.homeStopText({ kind: 'not_watched' }),
      m.homeStopText({ kind: 'unknown' }),
      m.homeStopText({ kind: 'refused', requesterId: 'U0BOB' }),
      m.homeStopText({ kind: 'failed' }),
    ],
  },
  'project-settings.ts': {
    settingsRefusedText: (m) => [
      m.settingsRefusedText(USER, ['U0BOB']),
      m.settingsRefusedText(undefined, []),
    ],
  },
  'home-this-week.ts': {
    homeReportButtons: (m) => [[{ type: 'actions', elements: m.homeReportButtons() }]],
    thisWeekHeadline: (m) => [
      m.thisWeekHeadline(WEEK_VIEWS),
      m.thisWeekHeadline({ current: { total: 1, human: 1, ai: 0 } }),
    ],
    gapLine: (m) => [m.gapLine(evidence()), m.gapLine(flaggedPage())],
    homeThisWeekBlocks: (m) => [
      m.homeThisWeekBlocks({ views: WEEK_VIEWS, health: { gap: { evidence: evidence(), value: 'ev_1' } } }),
      m.homeThisWeekBlocks({
        health: { gap: { evidence: flaggedPage(), value: 'ev_1', running: record() } },
      }),
      m.homeThisWeekBlocks({ views: WEEK_VIEWS, health: {} }),
      m.homeThisWeekBlocks({ views: WEEK_VIEWS }),
      m.homeThisWeekBlocks({ filling: true }),
      m.homeThisWeekBlocks({}),
    ],
  },
  'home-report-modal.ts': {
    homeReportLoadingModal: (m) => [m.homeReportLoadingModal('views'), m.homeReportLoadingModal('health')],
    homeReportTextModal: (m) => [m.homeReportTextModal('health', 'Docs-health reports are not set up.')],
    homePageViewsModal: (m) => [m.homePageViewsModal(pageViewsReport(), 'https://docs.acme.dev')],
    homeHealthModal: (m) => [m.homeHealthModal(healthReport(), 'https://docs.acme.dev')],
    withoutCharts: (m) => [m.withoutCharts(m.homePageViewsModal(pageViewsReport(), undefined))],
  },
};
