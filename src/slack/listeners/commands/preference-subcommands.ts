import { describeError } from '../../../common/errors.js';
import { githubModalView } from '../../messages/github-connect-modal.js';
import { ENVIRONMENT_CONFIGURED_TEXT, whoCanManageText } from '../../messages/project-settings.js';
import {
  addedManagerText,
  externalUsersText,
  GITHUB_DISCONNECTED_TEXT,
  GITHUB_FORM_NOT_OPENED_TEXT,
  githubText,
  MANAGERS_HELP_TEXT,
  managersText,
  preferenceFailureText,
  removedManagerText,
  SETTINGS_HELP_TEXT,
  settingsForManagersOnlyText,
} from '../../messages/tenant-preferences.js';
import type { CommandArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import { respondSafely } from '../respond-safely.js';
import type { ModalOpener } from './settings-subcommands.js';

/**
 * `/docs-agent managers [list | add @x | remove @x]` and `/docs-agent settings [external-users on|off]`:
 * a tenant's own choices, made in Slack by its managers (OAuth mode).
 */
export type PreferenceCommand =
  | { kind: 'managers'; action: 'list' }
  | { kind: 'managers'; action: 'add' | 'remove'; userId: string | undefined }
  | { kind: 'managers'; action: 'help' }
  | { kind: 'settings'; action: 'show' | 'help' }
  | { kind: 'settings'; action: 'external-users'; on: boolean }
  /** Opens the GitHub form: a token is never taken as command text (whatever follows `github` is dropped). */
  | { kind: 'settings'; action: 'github' }
  | { kind: 'settings'; action: 'github-disconnect' };

/** `<@U123>` or `<@U123|name>` as Slack escapes a mention in a command (should_escape), or a bare id. */
const MENTION = /^<@([UW][A-Z0-9]{2,31})(?:\|[^>]{0,120})?>$/;
const BARE_ID = /^[UW][A-Z0-9]{2,31}$/;

/** The subcommand in `text`, or undefined (then it is something else: an instruction, help, …). */
export function preferenceCommand(text: string | undefined): PreferenceCommand | undefined {
  // Capped before any matching: the words are few and short.
  const words = (text ?? '').slice(0, 300).trim().split(/\s+/);
  const [first, second, third, ...rest] = words.map((w, i) => (i < 2 ? w.toLowerCase() : w));
  if (first === 'managers') {
    if (second === undefined || (second === 'list' && third === undefined))
      return { kind: 'managers', action: 'list' };
    if (second === 'help' && third === undefined) return { kind: 'managers', action: 'help' };
    if ((second === 'add' || second === 'remove') && rest.length === 0) {
      const id = third ? (MENTION.exec(third)?.[1] ?? (BARE_ID.test(third) ? third : undefined)) : undefined;
      return { kind: 'managers', action: second, userId: id };
    }
  }
  if (first === 'settings') {
    if (second === undefined) return { kind: 'settings', action: 'show' };
    if (second === 'help' && third === undefined) return { kind: 'settings', action: 'help' };
    if (second === 'external-users' && rest.length === 0) {
      const value = third?.toLowerCase();
      if (value === 'on' || value === 'off')
        return { kind: 'settings', action: 'external-users', on: value === 'on' };
      return { kind: 'settings', action: 'help' };
    }
    if (second === 'github') {
      if (third?.toLowerCase() === 'disconnect' && rest.length === 0)
        return { kind: 'settings', action: 'github-disconnect' };
      return { kind: 'settings', action: 'github' };
    }
  }
  // Anything else starting with these words is an instruction ("settings page needs an example").
  return undefined;
}

/** Answers a preference subcommand: acknowledged at once, who may change is asked of Slack after. */
export async function answerPreferenceCommand(
  parsed: PreferenceCommand,
  args: CommandArgs & { client?: ModalOpener },
  deps: Pick<SlackDeps, 'logger' | 'settings'>,
): Promise<void> {
  const { command, ack, respond } = args;
  const settings = deps.settings;
  if (!settings) return void (await ack({ response_type: 'ephemeral', text: ENVIRONMENT_CONFIGURED_TEXT }));
  if (parsed.action === 'help') {
    const text = parsed.kind === 'managers' ? MANAGERS_HELP_TEXT : SETTINGS_HELP_TEXT;
    return void (await ack({ response_type: 'ephemeral', text }));
  }
  if (parsed.kind === 'managers' && parsed.action === 'list')
    return void (await ack({
      response_type: 'ephemeral',
      text: managersText(settings.installerUserId, settings.managers.added()),
    }));
  if (parsed.kind === 'settings' && parsed.action === 'show') {
    const shown = () =>
      `${externalUsersText(settings.externalUsers.allowed(), settings.externalUsers.chosen())}\n\n${githubText(settings.github.shown())}\n\n${managersText(settings.installerUserId, settings.managers.added())}`;
    // Managers only: known ones in the acknowledgement; anyone else once Slack said whether they administer.
    if (settings.knownManager(command.user_id))
      return void (await ack({ response_type: 'ephemeral', text: shown() }));
    await ack();
    const manages = await settings.mayManage(command.user_id);
    return respondSafely(
      respond,
      {
        text: manages
          ? shown()
          : settingsForManagersOnlyText(settings.installerUserId, settings.managers.added()),
      },
      deps.logger,
    );
  }
  if (parsed.kind === 'managers' && !parsed.userId)
    return void (await ack({ response_type: 'ephemeral', text: preferenceFailureText('bad_user', '') }));
  await ack();
  const say = (text: string) => respondSafely(respond, { text }, deps.logger);
  const who = whoCanManageText(settings.installerUserId);
  if (parsed.kind === 'settings' && parsed.action === 'external-users') {
    const result = await settings.externalUsers.set(command.user_id, parsed.on);
    return say(result.ok ? externalUsersText(parsed.on, true) : preferenceFailureText(result.code, who));
  }
  if (parsed.kind === 'settings' && parsed.action === 'github') {
    // Only in a form: the token never travels as command text (shown again only by its last four characters).
    if (!(await settings.mayManage(command.user_id))) return say(preferenceFailureText('not_allowed', who));
    try {
      if (!args.client) throw new Error('no Slack client');
      await args.client.views.open({ trigger_id: command.trigger_id, view: githubModalView() });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not open the GitHub form');
      return say(GITHUB_FORM_NOT_OPENED_TEXT);
    }
    return;
  }
  if (parsed.kind === 'settings' && parsed.action === 'github-disconnect') {
    const result = await settings.github.disconnect(command.user_id);
    return say(result.ok ? GITHUB_DISCONNECTED_TEXT : preferenceFailureText(result.code, who));
  }
  if (parsed.kind !== 'managers' || !('userId' in parsed) || !parsed.userId) return;
  const { userId } = parsed;
  const result =
    parsed.action === 'add'
      ? await settings.managers.add(command.user_id, userId)
      : await settings.managers.remove(command.user_id, userId);
  if (!result.ok) return say(preferenceFailureText(result.code, who));
  return say(parsed.action === 'add' ? addedManagerText(userId) : removedManagerText(userId));
}
