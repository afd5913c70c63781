import type { Module } from '../../test/support/copy-fixtures.js';
import { healthReport, pageViewsReport, USER } from '../../test/support/copy-fixtures.js';

/**
 * The message kinds drawn before and after (docs/images/before-after): each is one render of the copy
 * test's registry (test/support/copy-renders*.ts: a builder of src/slack/messages, the index of the state
 * drawn), so the pictures show the data the copy test checks. `surface` says how Slack shows it.
 */
export interface Kind {
  kind: string;
  /** What it is, in the README's table. */
  title: string;
  file: string;
  builder: string;
  index: number;
  surface: 'message' | 'ephemeral' | 'modal' | 'home' | 'preview';
  /**
   * A message made of several builders, as the app composes it (the same calls then and now): `load` gives
   * a module of src/slack/messages. Else the registry's render `builder` #`index` of `file`.
   */
  compose?: (load: (file: string) => Promise<Module>) => Promise<unknown>;
}

const SITE = 'https://docs.acme.dev';

/** A weekly post as the report publisher makes it: the report, its headline and the weekly frame. */
const weeklyViews: Kind['compose'] = async (load) => {
  const [weekly, views] = [await load('weekly-post.ts'), await load('page-views-report.ts')];
  const report = pageViewsReport();
  const message = views.pageViewsReportMessage(report, { siteUrl: SITE, interactive: false, table: true });
  return weekly.weeklyPost(message, {
    kind: 'page_views',
    headline: weekly.pageViewsHeadline(report),
    setUpBy: USER,
  });
};
const weeklyHealth: Kind['compose'] = async (load) => {
  const [weekly, health] = [await load('weekly-post.ts'), await load('health-report.ts')];
  const report = healthReport();
  const message = health.healthReportMessage(report, { siteUrl: SITE, fixButtons: true });
  return weekly.weeklyPost(message, {
    kind: 'health',
    headline: weekly.healthHeadline(report),
    setUpBy: USER,
  });
};

const k = (
  kind: string,
  title: string,
  file: string,
  builder: string,
  index = 0,
  surface: Kind['surface'] = 'message',
): Kind => ({ kind, title, file, builder, index, surface });

export const KINDS: readonly Kind[] = [
  k('job-card-starting', 'Job card, starting', 'job-card.ts', 'jobCardMessage', 0),
  k('job-card-start-failure', 'Job card, the job could not start', 'job-card.ts', 'jobCardMessage', 1),
  k('job-card-running', 'Job card, running', 'job-card.ts', 'jobCardMessage', 2),
  k('job-card-done-pr', 'Job card, done with its pull request', 'job-card.ts', 'jobCardMessage', 3),
  k('job-card-failed', 'Job card, failed', 'job-card.ts', 'jobCardMessage', 4),
  k(
    'job-reply-pull-request',
    'Reply in the thread: the pull request',
    'job-replies.ts',
    'terminalReplyMessage',
    0,
  ),
  k('job-reply-failed', 'Reply in the thread: the job failed', 'job-replies.ts', 'terminalReplyMessage', 3),
  k(
    'follow-up-refused',
    'Follow-up the docs platform refused',
    'job-replies.ts',
    'followUpRefusedMessage',
    0,
  ),
  k('notice-watch-expired', 'Notice: no longer following the job', 'job-replies.ts', 'noticeMessage', 0),
  k('start-failure-notice', 'Start failure notice', 'job-replies.ts', 'startFailureNotice', 1, 'ephemeral'),
  k(
    'notice-not-allowed',
    'Not allowed (private notice)',
    'job-replies.ts',
    'privateNoticeMessage',
    1,
    'ephemeral',
  ),
  k(
    'pull-request-merged',
    'Pull request merged (thread notice)',
    'pull-request.ts',
    'pullRequestNoticeMessage',
    0,
  ),
  k('job-list', '`/docs-agent list`', 'job-list.ts', 'jobListMessage', 1, 'ephemeral'),
  k('job-status', '`/docs-agent status`', 'job-list.ts', 'jobStatusMessage', 0, 'ephemeral'),
  k('health-alert', 'Docs-health alert', 'health-alert.ts', 'healthAlertMessage', 0),
  k(
    'health-alert-follow-up',
    "Alert's follow-up in its thread",
    'health-alert.ts',
    'healthAlertFollowUpMessage',
    0,
  ),
  k('health-impact', '"Did it work?" impact message', 'health-impact.ts', 'healthImpactMessage', 0),
  k('alerts-on-reply', '`/docs-health alerts on`', 'alert-replies.ts', 'alertsOnReply', 0, 'ephemeral'),
  k('views-report', '`/docs-views` report', 'page-views-report.ts', 'pageViewsReportMessage', 0, 'ephemeral'),
  k('health-report', '`/docs-health` report', 'health-report.ts', 'healthReportMessage', 0, 'ephemeral'),
  k(
    'schedule-confirmation',
    'Schedule confirmed',
    'schedule-replies.ts',
    'scheduleConfirmation',
    0,
    'ephemeral',
  ),
  k('schedules-list', '`schedules` list', 'schedule-replies.ts', 'schedulesList', 0, 'ephemeral'),
  k('docs-link-preview', 'Docs page link preview', 'unfurls.ts', 'pagePreview', 0, 'preview'),
  k('pull-request-preview', 'Pull request link preview', 'unfurls.ts', 'pullRequestPreview', 0, 'preview'),
  k('app-home', 'App Home', 'app-home.ts', 'appHomeView', 0, 'home'),
  k('job-modal', 'Job form (shortcut)', 'job-modal.ts', 'jobModalView', 0, 'modal'),
  k('health-fix-form', 'Fix form', 'health-modal.ts', 'healthFixModal', 0, 'modal'),
  k('connect-modal', 'Connect a docs project', 'project-connect-modal.ts', 'connectModalView', 0, 'modal'),
  k('settings-modal', 'Settings', 'settings-form.ts', 'settingsFormView', 1, 'modal'),
  k('weekly-post-form', 'Home: weekly post form', 'home-schedules-form.ts', 'weeklyFormView', 2, 'modal'),
  k('alert-form', 'Home: alert channel form', 'home-alerts-form.ts', 'alertFormView', 1, 'modal'),
  k('home-views-modal', 'Home: Views', 'home-report-modal.ts', 'homePageViewsModal', 0, 'modal'),
  k('home-health-modal', 'Home: Health', 'home-report-modal.ts', 'homeHealthModal', 0, 'modal'),
  k('github-modal', 'GitHub token form', 'github-connect-modal.ts', 'githubModalView', 0, 'modal'),
  k('assistant-help', 'Assistant: help', 'assistant-replies.ts', 'assistantHelpMessage', 0),
  k('assistant-my-jobs', 'Assistant: my jobs', 'assistant-replies.ts', 'myJobsMessage', 1),
  k('assistant-confirmation', 'Assistant: confirm a job', 'assistant-confirm.ts', 'confirmationCard', 0),
  k('welcome', 'Welcome DM', 'welcome.ts', 'welcomeMessage', 0),
  k('first-run', "First steps on a manager's Home", 'first-run.ts', 'firstRunBlocks', 1, 'home'),
  k('help-docs-agent', '`/docs-agent help`', 'help.ts', 'docsAgentHelpMessage', 0, 'ephemeral'),
  k('help-docs-health', '`/docs-health help`', 'health-help.ts', 'docsHealthHelp', 0, 'ephemeral'),
  k('help-docs-views', '`/docs-views help`', 'page-views-help.ts', 'pageViewsHelpMessage', 0, 'ephemeral'),
  k(
    'failure-unauthorized',
    'Docs platform refused the key',
    'failures.ts',
    'describeDocsFailure',
    0,
    'ephemeral',
  ),
  {
    ...k('weekly-views-post', 'Weekly page-views post', 'weekly-post.ts', 'weeklyPost'),
    compose: weeklyViews,
  },
  {
    ...k('weekly-health-post', 'Weekly docs-health post', 'weekly-post.ts', 'weeklyPost'),
    compose: weeklyHealth,
  },
];
