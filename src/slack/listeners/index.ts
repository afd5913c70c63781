import type { App, Context } from '@slack/bolt';
import { registerAgentStopChoice } from './actions/agent-stop-choice.js';
import { registerAlertLookAction } from './actions/alert-look.js';
import { registerAlertMenuAction } from './actions/alert-menu.js';
import { registerAssistantConfirm } from './actions/assistant-confirm.js';
import { registerDocsHealthPostAction } from './actions/docs-health-post.js';
import { registerDocsViewsCsvAction } from './actions/docs-views-csv.js';
import { registerDocsViewsPostAction } from './actions/docs-views-post.js';
import { registerDocsViewsScheduleAction } from './actions/docs-views-schedule.js';
import { registerGithubConnectSubmission } from './actions/github-connect-submission.js';
import { registerHealthFixAction } from './actions/health-fix.js';
import { registerHealthFixSubmission } from './actions/health-fix-submission.js';
import { registerHomeAlertForms } from './actions/home-alert-forms.js';
import { registerHomeConnectProjectAction } from './actions/home-connect-project.js';
import { registerHomeDisconnectProjectAction } from './actions/home-disconnect-project.js';
import { registerHomeFixAction } from './actions/home-fix.js';
import { registerHomeGithubConnect } from './actions/home-github-connect.js';
import { registerHomeJobMenuAction } from './actions/home-job-menu.js';
import { registerHomeNewJobAction } from './actions/home-new-job.js';
import { registerHomeReportPost } from './actions/home-report-post.js';
import { registerHomeReportActions } from './actions/home-reports.js';
import { registerHomeScheduleOpen } from './actions/home-schedule-open.js';
import { registerHomeScheduleSubmission } from './actions/home-schedule-submission.js';
import { registerHomeSettingsAction } from './actions/home-settings.js';
import { registerHomeSettingsSubmission } from './actions/home-settings-submission.js';
import { registerJobCardMenuAction } from './actions/job-card-menu.js';
import { registerJobFeedbackAction } from './actions/job-feedback.js';
import { registerJobModalSubmission } from './actions/job-modal-submission.js';
import { registerJobRetryAction } from './actions/job-retry.js';
import { registerOpenPullRequestAction } from './actions/open-pull-request.js';
import { registerProjectConnectSubmission } from './actions/project-connect-submission.js';
import { registerReviewReactedMessageAction } from './actions/review-reacted-message.js';
import { registerSendToDocsAgentShortcut } from './actions/send-to-docs-agent.js';
import { registerWeeklyStopAction } from './actions/weekly-stop.js';
import { registerWeeklyUndoAction } from './actions/weekly-undo.js';
import { registerAssistant } from './assistant/register.js';
import { registerAgentSessionStopped } from './assistant/session-stopped.js';
import { registerDocsAgentCommand } from './commands/docs-agent.js';
import { registerDocsHealthCommand } from './commands/docs-health.js';
import { registerDocsViewsCommand } from './commands/docs-views.js';
import type { SlackDeps } from './deps.js';
import { registerAppHomeOpened } from './events/app-home-opened.js';
import { registerLinkShared } from './events/link-shared.js';
import { registerMessageEvents } from './events/message.js';
import { registerReactionAdded } from './events/reaction-added.js';
import { registerTokenRevoked } from './events/token-revoked.js';
import { refuseExternalUsers } from './external-users.js';
import { refuseForeignResponseUrls } from './foreign-response-urls.js';
import { ignoreReplayedRequests } from './replayed-requests.js';
import { narrowed, requestDeps } from './request-deps.js';
import { refuseSecretsInCommands } from './secrets-in-commands.js';
import { requireConnectedProject } from './setup-gate.js';

export type { SlackDeps } from './deps.js';

/**
 * Every listener, registered once on `app`. Each request's listeners reach the deps `depsOf` gives for it
 * (OAuth mode: the request's tenant's; single-workspace mode: the one set), never deps read at registration.
 */
export function registerListeners(app: App, depsOf: (context: Context) => SlackDeps): void {
  const deps = requestDeps(depsOf);
  // Before every listener: a replayed command or click runs once; users of other organisations reach none
  // of them (ALLOW_EXTERNAL_USERS).
  app.use(deps.each(ignoreReplayedRequests) as never);
  // A credential in a command's text is refused before anything reads it (issue 44).
  app.use(deps.each(refuseSecretsInCommands) as never);
  app.use(deps.each(refuseForeignResponseUrls) as never);
  app.use(deps.each(refuseExternalUsers) as never);
  // OAuth mode: until a docs project is connected, commands only say how to connect one.
  app.use(deps.each(requireConnectedProject) as never);
  registerDocsAgentCommand(app, deps);
  registerDocsViewsCommand(app, deps);
  registerDocsViewsPostAction(app, deps);
  registerDocsViewsCsvAction(app, deps);
  registerDocsViewsScheduleAction(app, deps);
  registerDocsHealthCommand(app, deps);
  registerDocsHealthPostAction(app, deps);
  registerHealthFixAction(app, deps);
  registerAlertMenuAction(app, deps);
  registerAlertLookAction(app, deps);
  registerWeeklyStopAction(app, deps);
  registerWeeklyUndoAction(app, deps);
  registerHealthFixSubmission(app, deps);
  registerOpenPullRequestAction(app);
  registerMessageEvents(app, deps);
  registerSendToDocsAgentShortcut(app, deps);
  registerJobModalSubmission(app, deps);
  registerReactionAdded(app, deps);
  registerLinkShared(app, deps);
  registerAppHomeOpened(app, deps);
  registerTokenRevoked(app, deps);
  registerHomeNewJobAction(app, deps);
  registerHomeJobMenuAction(app, deps);
  registerHomeSettingsAction(app, deps);
  registerHomeReportActions(app, deps);
  registerHomeFixAction(app, deps);
  registerHomeReportPost(app, deps);
  registerJobRetryAction(app, deps);
  registerJobCardMenuAction(app, deps);
  registerJobFeedbackAction(app, deps);
  registerReviewReactedMessageAction(app, deps);
  registerProjectConnectSubmission(app, deps);
  registerGithubConnectSubmission(app, deps);
  registerHomeConnectProjectAction(app, deps);
  registerHomeDisconnectProjectAction(app, deps);
  // Home's forms (issue 46 §5): weekly posts, alert channels, the Settings form, [Connect GitHub].
  registerHomeScheduleOpen(app, deps);
  registerHomeScheduleSubmission(app, deps);
  registerHomeAlertForms(app, deps);
  registerHomeSettingsSubmission(app, deps);
  registerHomeGithubConnect(app, deps);
  // Before Bolt's listeners see them: assistant events, and messages in DM threads (routed back to the
  // conversation service when the thread is not an assistant thread). Registered whatever the deps: a
  // request whose deps have no assistant surface passes by them.
  // The same deps object, its `assistant` known to be there (no copy per request).
  const assistant = narrowed(deps, (all) =>
    all.assistant ? (all as SlackDeps & Required<Pick<SlackDeps, 'assistant'>>) : undefined,
  );
  registerAssistant(app, assistant);
  // The confirmation card's [Start job] [Edit] [Cancel] for an instruction in an assistant thread.
  registerAssistantConfirm(app, assistant);
  // Agent sessions: Slack's Stop button (Bolt has no listener of its own: app.event) and its two choices.
  const sessions = narrowed(
    deps,
    (all) => all.assistant?.sessions && { ...all, sessions: all.assistant.sessions },
  );
  registerAgentSessionStopped(app, sessions);
  registerAgentStopChoice(app, sessions);
}
