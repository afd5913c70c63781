import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import {
  ENVIRONMENT_CONFIGURED_TEXT,
  HOME_SETTINGS_ACTION,
  settingsRefusedText,
} from '../../messages/project-settings.js';
import { settingsFormView } from '../../messages/settings-form.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type HomeSettingsDeps = Pick<SlackDeps, 'logger' | 'settings'>;

/** The parts of the `block_actions` payload of Home's Settings button read here. */
export interface HomeSettingsArgs {
  ack: () => Promise<void>;
  body: { trigger_id: string; user: { id: string } };
  client: {
    views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> };
    chat: { postMessage(args: { channel: string; text: string }): Promise<unknown> };
  };
}

export function registerHomeSettingsAction(app: App, deps: RequestDeps<HomeSettingsDeps>): void {
  app.action(HOME_SETTINGS_ACTION, deps.each(homeSettings) as never);
}

const COULD_NOT_OPEN =
  "I couldn't open the settings (Slack took too long or refused it). Press *Settings* on my Home tab again, or run `/docs-agent project` in a channel.";

/**
 * Home's Settings button: the Settings form (docs projects; managers as a people picker, people of other
 * organisations as a checkbox; saved by home-settings-submission.ts). Who may manage is asked again on the click (a Home view outlives a demotion); anyone else is told
 * in their app DM who the managers are.
 */
export function homeSettings(deps: HomeSettingsDeps) {
  return async ({ ack, body, client }: HomeSettingsArgs): Promise<void> => {
    await ack();
    const userId = body.user.id;
    const tell = (text: string) =>
      client.chat.postMessage({ channel: userId, text }).catch((e: unknown) => {
        deps.logger.warn({ error: describeError(e) }, 'could not tell the user in their app DM');
      });
    const settings = deps.settings;
    if (!settings) return void (await tell(ENVIRONMENT_CONFIGURED_TEXT));
    if (!(await settings.mayManage(userId)))
      return void (await tell(settingsRefusedText(settings.installerUserId, settings.managers.added())));
    const view = settingsFormView({
      manage: true,
      connections: settings.connections(),
      installerUserId: settings.installerUserId,
      managers: {
        added: settings.managers.added(),
        externalUsers: settings.externalUsers.allowed(),
        externalUsersChosen: settings.externalUsers.chosen(),
      },
    });
    try {
      await client.views.open({ trigger_id: body.trigger_id, view });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not open the settings from Home');
      await tell(COULD_NOT_OPEN);
    }
  };
}
