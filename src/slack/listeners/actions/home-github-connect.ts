import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import { githubModalView } from '../../messages/github-connect-modal.js';
import {
  ENVIRONMENT_CONFIGURED_TEXT,
  HOME_GITHUB_ACTION,
  notAllowedText,
} from '../../messages/project-settings.js';
import { GITHUB_FORM_NOT_OPENED_TEXT } from '../../messages/tenant-preferences.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import type { HomeConnectProjectArgs } from './home-connect-project.js';

export type HomeGithubConnectDeps = Pick<SlackDeps, 'logger' | 'settings'>;

export function registerHomeGithubConnect(app: App, deps: RequestDeps<HomeGithubConnectDeps>): void {
  app.action(HOME_GITHUB_ACTION, deps.each(homeGithubConnect) as never);
}

/**
 * [Connect GitHub] on Home or in the Settings form: the sealed GitHub token form (the one of
 * `/docs-agent settings github`), so no token is ever typed into a message. Asked again on the click and,
 * by the form's submission, again on submit.
 */
export function homeGithubConnect(deps: HomeGithubConnectDeps) {
  return async ({ ack, body, client }: HomeConnectProjectArgs): Promise<void> => {
    await ack();
    const settings = deps.settings;
    const tell = (text: string) =>
      client.chat.postMessage({ channel: body.user.id, text }).catch((e: unknown) => {
        deps.logger.warn({ error: describeError(e) }, 'could not tell the user in their app DM');
      });
    if (!settings) return void (await tell(ENVIRONMENT_CONFIGURED_TEXT));
    if (!(await settings.mayManage(body.user.id)))
      return void (await tell(notAllowedText(settings.installerUserId)));
    const view: ModalView = githubModalView();
    try {
      const inModal = (body as { view?: { type?: string } }).view?.type === 'modal';
      if (inModal) await client.views.push({ trigger_id: body.trigger_id, view });
      else await client.views.open({ trigger_id: body.trigger_id, view });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not open the GitHub form from Home');
      await tell(GITHUB_FORM_NOT_OPENED_TEXT);
    }
  };
}
