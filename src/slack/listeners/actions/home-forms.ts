import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import { narrowed, type RequestDeps } from '../request-deps.js';
import { registerHomeAlertForms } from './home-alert-forms.js';
import { registerHomeGithubConnect } from './home-github-connect.js';
import { registerHomeScheduleOpen } from './home-schedule-open.js';
import { registerHomeScheduleSubmission } from './home-schedule-submission.js';
import { registerHomeSettingsSubmission } from './home-settings-submission.js';

/** Home's forms (issue 46 §5): weekly posts, alert channels, the Settings form and [Connect GitHub]. */
export function registerHomeForms(app: App, deps: RequestDeps<SlackDeps>): void {
  const withWeekly = narrowed(deps, (all) => ({ ...all, weekly: all.pageViews.weekly }));
  registerHomeScheduleOpen(app, withWeekly);
  registerHomeScheduleSubmission(app, withWeekly);
  registerHomeAlertForms(
    app,
    narrowed(deps, (all) => ({ ...all, alerts: all.health?.alerts })),
  );
  registerHomeSettingsSubmission(app, deps);
  registerHomeGithubConnect(app, deps);
}
