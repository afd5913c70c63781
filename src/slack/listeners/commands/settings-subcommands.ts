import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import { connectModalView } from '../../messages/project-connect-modal.js';
import {
  CHANGED_MEANWHILE_TEXT,
  channelProjectText,
  disconnectedText,
  ENVIRONMENT_CONFIGURED_TEXT,
  NOTHING_CONNECTED_TEXT,
  notAllowedText,
  SETTINGS_UNAVAILABLE_TEXT,
} from '../../messages/project-settings.js';
import type { CommandArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import { respondSafely } from '../respond-safely.js';

export type SettingsSubcommand = 'connect' | 'disconnect' | 'project';

/** `/docs-agent connect`, `disconnect` or `project` (exactly: anything longer is an instruction). */
export function settingsSubcommand(text: string | undefined): SettingsSubcommand | undefined {
  const word = (text ?? '').trim().toLowerCase();
  return word === 'connect' || word === 'disconnect' || word === 'project' ? word : undefined;
}

export type SettingsCommandDeps = Pick<SlackDeps, 'logger' | 'settings'>;

/** The part of Bolt's client the connect command uses. */
export interface ModalOpener {
  views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> };
}

const FROM_ENVIRONMENT_TEXT =
  'This workspace still uses the docs project docs-agent was deployed with, so there is nothing to disconnect here. `/docs-agent connect` connects one in Slack instead.';

const COULD_NOT_OPEN =
  "I couldn't open the connect form (Slack took too long or refused it). Run `/docs-agent connect` again.";

/**
 * The settings subcommands in OAuth mode (single-workspace mode: set by the environment). Acknowledged at
 * once; who may manage is asked of Slack after (users.info, cached), within the trigger's 3 s.
 */
export async function answerSettingsCommand(
  kind: SettingsSubcommand,
  args: CommandArgs & { client?: ModalOpener },
  deps: SettingsCommandDeps,
  environmentProject: () => string,
): Promise<void> {
  const { command, ack, respond } = args;
  const settings = deps.settings;
  if (kind === 'project') {
    const text = settings
      ? channelProjectText(settings.projectOf(command.channel_id), settings.installerUserId)
      : environmentProject();
    await ack({ response_type: 'ephemeral', text });
    return;
  }
  if (!settings) {
    await ack({ response_type: 'ephemeral', text: ENVIRONMENT_CONFIGURED_TEXT });
    return;
  }
  await ack();
  const say = (text: string) => respondSafely(respond, { text }, deps.logger);
  if (!(await settings.mayManage(command.user_id))) return say(notAllowedText(settings.installerUserId));
  if (kind === 'connect') {
    try {
      if (!args.client) throw new Error('no Slack client');
      await args.client.views.open({
        trigger_id: command.trigger_id,
        view: connectModalView({ channelId: command.channel_id }),
      });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not open the connect form');
      await say(COULD_NOT_OPEN);
    }
    return;
  }
  // This channel's own mapping if it has one, else the workspace's.
  const current = settings.projectOf(command.channel_id);
  if (current?.connection.fromEnvironment) return say(FROM_ENVIRONMENT_TEXT);
  const target = current?.scope === 'channel' ? command.channel_id : undefined;
  const result = await settings.disconnect(command.user_id, target);
  if (result.ok) return say(disconnectedText(result.removed, result.left));
  return say(settingsFailureText(result.code, settings.installerUserId));
}

/** What a failed disconnect (or anything outside the form) tells the user. */
export function settingsFailureText(code: string, installerUserId: string | undefined): string {
  if (code === 'not_allowed') return notAllowedText(installerUserId);
  if (code === 'nothing_connected') return NOTHING_CONNECTED_TEXT;
  if (code === 'changed_meanwhile') return CHANGED_MEANWHILE_TEXT;
  return SETTINGS_UNAVAILABLE_TEXT;
}
