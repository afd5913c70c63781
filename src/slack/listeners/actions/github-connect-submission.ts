import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import {
  GITHUB_MODAL_CALLBACK_ID,
  GITHUB_OWNERS_BLOCK,
  GITHUB_TOKEN_BLOCK,
  parseGithubSubmission,
  type SubmittedGithubView,
} from '../../messages/github-connect-modal.js';
import { ENVIRONMENT_CONFIGURED_TEXT, whoCanManageText } from '../../messages/project-settings.js';
import { githubText, preferenceFailureText } from '../../messages/tenant-preferences.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { type PrivateAnswerClient, tellPrivately } from '../tell-privately.js';

export type GithubConnectSubmissionDeps = Pick<SlackDeps, 'logger' | 'afterAck' | 'settings'>;

interface FieldErrors {
  response_action: 'errors';
  errors: Record<string, string>;
}

export interface GithubConnectSubmissionArgs {
  ack: (response?: FieldErrors) => Promise<void>;
  body: { user: { id: string }; view: SubmittedGithubView };
  client: PrivateAnswerClient;
}

export function registerGithubConnectSubmission(
  app: App,
  deps: RequestDeps<GithubConnectSubmissionDeps>,
): void {
  app.view(GITHUB_MODAL_CALLBACK_ID, deps.each(githubConnectSubmission) as never);
}

const inField = (block: string, text: string): FieldErrors => ({
  response_action: 'errors',
  errors: { [block]: text },
});

/**
 * The GitHub form submitted: the token is checked and saved (sealed) by the tenant's settings, which ask
 * again whether the person may manage; what they can fix is answered on its field, and the confirmation
 * (the token only as its last four characters) reaches them privately once the form closed.
 */
export function githubConnectSubmission(deps: GithubConnectSubmissionDeps) {
  return async ({ ack, body, client }: GithubConnectSubmissionArgs): Promise<void> => {
    const settings = deps.settings;
    const form = parseGithubSubmission(body.view);
    if (!settings || !form) {
      await ack(
        inField(
          GITHUB_TOKEN_BLOCK,
          settings ? 'This form is not a docs-agent GitHub form.' : ENVIRONMENT_CONFIGURED_TEXT,
        ),
      );
      return;
    }
    const userId = body.user.id;
    let result: Awaited<ReturnType<typeof settings.github.connect>>;
    try {
      result = await settings.github.connect(userId, form.token, form.owners);
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not connect the GitHub token');
      return ack(inField(GITHUB_TOKEN_BLOCK, preferenceFailureText('state_unavailable', '')));
    }
    if (!result.ok) {
      const text = preferenceFailureText(result.code, whoCanManageText(settings.installerUserId));
      const block =
        result.code === 'bad_github_token' && form.owners.length > 0
          ? GITHUB_OWNERS_BLOCK
          : GITHUB_TOKEN_BLOCK;
      return ack(inField(block, text));
    }
    await ack();
    const text = githubText(settings.github.shown());
    deps.afterAck(() => tellPrivately(client, { userId }, text, deps.logger));
  };
}
