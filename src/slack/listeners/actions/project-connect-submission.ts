import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import type { SettingsFailure } from '../../../tenants/project-settings.js';
import {
  CONNECT_MODAL_CALLBACK_ID,
  KEY_BLOCK,
  PROJECT_BLOCK,
  parseConnectSubmission,
  type SubmittedConnectView,
} from '../../messages/project-connect-modal.js';
import {
  CHANGED_MEANWHILE_TEXT,
  connectedText,
  ENVIRONMENT_CONFIGURED_TEXT,
  keyRefusedText,
  notAllowedText,
  PLATFORM_TIMEOUT_TEXT,
  platformUnavailableText,
  SETTINGS_UNAVAILABLE_TEXT,
  SLACK_TIMEOUT_TEXT,
} from '../../messages/project-settings.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { type PrivateAnswerClient, tellPrivately } from '../tell-privately.js';

export type ProjectConnectSubmissionDeps = Pick<SlackDeps, 'logger' | 'afterAck' | 'settings' | 'home'>;

/** The answer that keeps the form open with a message under one field. */
interface FieldErrors {
  response_action: 'errors';
  errors: Record<string, string>;
}

/** The parts of a `view_submission` read here. */
export interface ProjectConnectSubmissionArgs {
  ack: (response?: FieldErrors) => Promise<void>;
  body: { user: { id: string }; team?: { id: string } | null; view: SubmittedConnectView };
  client: PrivateAnswerClient;
}

export function registerProjectConnectSubmission(
  app: App,
  deps: RequestDeps<ProjectConnectSubmissionDeps>,
): void {
  app.view(CONNECT_MODAL_CALLBACK_ID, deps.each(projectConnectSubmission) as never);
}

/** Slack waits 3 s for the form's answer: the permission check gets this much of it, the key check the rest. */
export const PERMISSION_CHECK_MS = 1_000;

const inField = (block: string, text: string): FieldErrors => ({
  response_action: 'errors',
  errors: { [block]: text },
});

/**
 * The connect form submitted: the user may manage (asked again now, never trusted from the opening), the
 * fields are well formed, the platform accepts the key with one read; only then it is saved and the form
 * closes. Everything the user can fix is answered in the form, on its field, within Slack's 3 s.
 */
export function projectConnectSubmission(deps: ProjectConnectSubmissionDeps) {
  return async ({ ack, body, client }: ProjectConnectSubmissionArgs): Promise<void> => {
    const settings = deps.settings;
    const form = parseConnectSubmission(body.view);
    if (!settings || !form) {
      await ack(
        inField(
          PROJECT_BLOCK,
          settings ? 'This form is not a docs-agent connect form.' : ENVIRONMENT_CONFIGURED_TEXT,
        ),
      );
      return;
    }
    const userId = body.user.id;
    const allowed = await Promise.race([
      settings.mayManage(userId),
      new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), PERMISSION_CHECK_MS).unref()),
    ]);
    if (allowed === 'late') return ack(inField(PROJECT_BLOCK, SLACK_TIMEOUT_TEXT));
    if (!allowed) return ack(inField(PROJECT_BLOCK, notAllowedText(settings.installerUserId, true)));
    let result: Awaited<ReturnType<typeof settings.connect>>;
    try {
      result = await settings.connect({
        userId,
        channelId: form.refs.channelId,
        scope: form.scope,
        projectId: form.projectId,
        apiKey: form.apiKey,
      });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not connect the docs project');
      return ack(inField(KEY_BLOCK, SETTINGS_UNAVAILABLE_TEXT));
    }
    if (!result.ok) return ack(failureInForm(result, settings.installerUserId));
    await ack();
    const text = connectedText(result.connection, result.replaced);
    const teamId = body.team?.id ?? null;
    deps.afterAck(async () => {
      await tellPrivately(
        client,
        { userId, ...(form.refs.channelId ? { channelId: form.refs.channelId } : {}) },
        text,
        deps.logger,
      );
      if (form.refs.fromHome) await deps.home?.opened(teamId, userId);
    });
  };
}

/** Each refusal on the field it is about. */
function failureInForm(failure: SettingsFailure, installerUserId: string | undefined): FieldErrors {
  switch (failure.code) {
    case 'bad_project_id':
      return inField(
        PROJECT_BLOCK,
        'A project ID is letters, digits, _ - or . (copy it from the API keys page).',
      );
    case 'bad_key':
      return inField(
        KEY_BLOCK,
        'An admin API key starts with svc_ followed by its secret part. Paste it whole.',
      );
    case 'key_refused':
      return inField(
        failure.status === 404 ? PROJECT_BLOCK : KEY_BLOCK,
        keyRefusedText(failure.status, failure.detail),
      );
    case 'platform_timeout':
      return inField(KEY_BLOCK, PLATFORM_TIMEOUT_TEXT);
    case 'platform_unavailable':
      return inField(KEY_BLOCK, platformUnavailableText(failure.detail));
    case 'not_allowed':
      return inField(PROJECT_BLOCK, notAllowedText(installerUserId, true));
    case 'changed_meanwhile':
      return inField(PROJECT_BLOCK, CHANGED_MEANWHILE_TEXT);
    case 'no_channel':
      return inField(
        PROJECT_BLOCK,
        'This form lost track of its channel. Close it and run /docs-agent connect in the channel again.',
      );
    default:
      return inField(PROJECT_BLOCK, SETTINGS_UNAVAILABLE_TEXT);
  }
}
