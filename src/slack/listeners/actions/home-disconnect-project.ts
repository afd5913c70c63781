import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import {
  disconnectedText,
  ENVIRONMENT_CONFIGURED_TEXT,
  HOME_DISCONNECT_ACTION,
  WORKSPACE_VALUE,
} from '../../messages/project-settings.js';
import { settingsFailureText } from '../commands/settings-subcommands.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type HomeDisconnectProjectDeps = Pick<SlackDeps, 'logger' | 'settings' | 'home' | 'afterAck'>;

/** The parts of the `block_actions` payload of a Home "Disconnect" button (after its confirm dialog). */
export interface HomeDisconnectProjectArgs {
  ack: () => Promise<void>;
  body: { user: { id: string }; team?: { id: string } | null };
  action: { value?: string };
  client: { chat: { postMessage(args: { channel: string; text: string }): Promise<unknown> } };
}

export function registerHomeDisconnectProjectAction(
  app: App,
  deps: RequestDeps<HomeDisconnectProjectDeps>,
): void {
  app.action(HOME_DISCONNECT_ACTION, deps.each(homeDisconnectProject) as never);
}

const CHANNEL_ID = /^[CG][A-Z0-9]{2,30}$/;

/**
 * "Disconnect" on a Home connection, confirmed in Slack's dialog: who may manage is asked again (a Home
 * view outlives a demotion); the answer goes to the user's DM with the app and Home is published again.
 */
export function homeDisconnectProject(deps: HomeDisconnectProjectDeps) {
  return async ({ ack, body, action, client }: HomeDisconnectProjectArgs): Promise<void> => {
    await ack();
    const userId = body.user.id;
    const tell = (text: string) =>
      client.chat.postMessage({ channel: userId, text }).catch((e: unknown) => {
        deps.logger.warn({ error: describeError(e) }, 'could not tell the user in their app DM');
      });
    const settings = deps.settings;
    if (!settings) return void (await tell(ENVIRONMENT_CONFIGURED_TEXT));
    const value = action.value ?? '';
    if (value !== WORKSPACE_VALUE && !CHANNEL_ID.test(value)) return;
    const result = await settings.disconnect(userId, value === WORKSPACE_VALUE ? undefined : value);
    await tell(
      result.ok
        ? disconnectedText(result.removed, result.left)
        : settingsFailureText(result.code, settings.installerUserId),
    );
    const home = deps.home;
    if (home)
      deps.afterAck(async () => {
        await home.opened(body.team?.id ?? null, userId);
      });
  };
}
