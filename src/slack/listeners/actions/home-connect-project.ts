import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import { connectModalView } from '../../messages/project-connect-modal.js';
import {
  ENVIRONMENT_CONFIGURED_TEXT,
  HOME_CONNECT_ACTION,
  notAllowedText,
} from '../../messages/project-settings.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type HomeConnectProjectDeps = Pick<SlackDeps, 'logger' | 'settings'>;

/** The parts of the `block_actions` payload of Home's "Connect a project" button read here. */
export interface HomeConnectProjectArgs {
  ack: () => Promise<void>;
  body: { trigger_id: string; user: { id: string } };
  client: {
    views: {
      open(args: { trigger_id: string; view: ModalView }): Promise<unknown>;
      push(args: { trigger_id: string; view: ModalView }): Promise<unknown>;
    };
    chat: { postMessage(args: { channel: string; text: string }): Promise<unknown> };
  };
}

export function registerHomeConnectProjectAction(app: App, deps: RequestDeps<HomeConnectProjectDeps>): void {
  app.action(HOME_CONNECT_ACTION, deps.each(homeConnectProject) as never);
}

const COULD_NOT_OPEN =
  "I couldn't open the connect form (Slack took too long or refused it). Press *Connect a project* on my Home tab again, or run `/docs-agent connect` in a channel.";

/**
 * "Connect a project" on Home: the connect form (the whole workspace; a channel connects from that channel).
 * Who may manage is asked again here, and again when the form is submitted.
 */
export function homeConnectProject(deps: HomeConnectProjectDeps) {
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
    try {
      const view = connectModalView({ fromHome: true });
      // Pressed inside Home's Settings form, the connect form goes on top of it (Slack: views.push from a
      // modal); from Home itself it opens one.
      const inModal = (body as { view?: { type?: string } }).view?.type === 'modal';
      if (inModal) await client.views.push({ trigger_id: body.trigger_id, view });
      else await client.views.open({ trigger_id: body.trigger_id, view });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not open the connect form from Home');
      await tell(COULD_NOT_OPEN);
    }
  };
}
