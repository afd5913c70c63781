import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { FORM_UNREADABLE_TEXT } from '../../messages/home-forms-words.js';
import type { SubmittedFormView } from '../../messages/home-schedules-form.js';
import {
  ENVIRONMENT_CONFIGURED_TEXT,
  notAllowedText,
  SLACK_TIMEOUT_TEXT,
} from '../../messages/project-settings.js';
import {
  INSTALLER_STAYS_TEXT,
  LAST_MANAGER_TEXT,
  MANAGERS_BLOCK,
  NEW_MANAGERS_PER_SAVE,
  parseSettingsSubmission,
  type RefusedPerson,
  refusedPeopleText,
  SETTINGS_FORM_CALLBACK_ID,
  settingsSavedText,
  TOO_MANY_NEW_TEXT,
} from '../../messages/settings-form.js';
import { preferenceFailureText } from '../../messages/tenant-preferences.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { type PrivateAnswerClient, tellPrivately } from '../tell-privately.js';
import { type FormErrors, inField } from './home-schedule-submission.js';
import { PERMISSION_CHECK_MS } from './project-connect-submission.js';

export type HomeSettingsSubmissionDeps = Pick<SlackDeps, 'logger' | 'afterAck' | 'settings' | 'home'>;

/** What users.info says of a person picked as a manager, as far as the form reads it. */
interface PickedUser {
  name?: string;
  real_name?: string;
  team_id?: string;
  is_bot?: boolean;
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  deleted?: boolean;
  enterprise_user?: { enterprise_id?: string };
}

export interface HomeSettingsSubmissionArgs {
  ack: (response?: FormErrors) => Promise<void>;
  body: {
    user: { id: string };
    team?: { id: string } | null;
    enterprise?: { id: string } | null;
    view: SubmittedFormView;
  };
  client: PrivateAnswerClient & { users: { info(args: { user: string }): Promise<{ user?: PickedUser }> } };
}

export function registerHomeSettingsSubmission(
  app: App,
  deps: RequestDeps<HomeSettingsSubmissionDeps>,
): void {
  app.view(SETTINGS_FORM_CALLBACK_ID, deps.each(homeSettingsSubmission) as never);
}

const late = () =>
  new Promise<'late'>((resolve) => setTimeout(() => resolve('late'), PERMISSION_CHECK_MS).unref());

/**
 * The Settings form saved. Asked again now: the submitter manages (a form outlives a demotion); the list
 * keeps the installer and at least one person; each person added is a member of this workspace (or of
 * this org), not an app, guest or deactivated account (users.info). Managers added and removed and the
 * external-users choice are saved together at the version read, applied to the managers stored now.
 */
export function homeSettingsSubmission(deps: HomeSettingsSubmissionDeps) {
  return async ({ ack, body, client }: HomeSettingsSubmissionArgs): Promise<void> => {
    const settings = deps.settings;
    const form = parseSettingsSubmission(body.view);
    if (!settings) return ack(inField(MANAGERS_BLOCK, ENVIRONMENT_CONFIGURED_TEXT));
    if (!form) return ack(inField(MANAGERS_BLOCK, FORM_UNREADABLE_TEXT));
    const userId = body.user.id;
    const allowed = await Promise.race([settings.mayManage(userId), late()]);
    if (allowed === 'late') return ack(inField(MANAGERS_BLOCK, SLACK_TIMEOUT_TEXT));
    if (!allowed) return ack(inField(MANAGERS_BLOCK, notAllowedText(settings.installerUserId, true)));
    const installer = settings.installerUserId;
    if (form.picked.length === 0) return ack(inField(MANAGERS_BLOCK, LAST_MANAGER_TEXT));
    if (installer && !form.picked.includes(installer))
      return ack(inField(MANAGERS_BLOCK, INSTALLER_STAYS_TEXT));
    const current = settings.managers.added();
    const add = form.picked.filter((id) => id !== installer && !current.includes(id));
    const remove = form.shown.filter((id) => id !== installer && !form.picked.includes(id));
    if (add.length > NEW_MANAGERS_PER_SAVE) return ack(inField(MANAGERS_BLOCK, TOO_MANY_NEW_TEXT));
    const refused = await Promise.race([refusedAmong(client, add, body), late()]);
    if (refused === 'late') return ack(inField(MANAGERS_BLOCK, SLACK_TIMEOUT_TEXT));
    if (refused.length > 0) return ack(inField(MANAGERS_BLOCK, refusedPeopleText(refused)));
    const external = form.external === form.externalShown ? undefined : form.external;
    let result: Awaited<ReturnType<typeof settings.managers.update>>;
    try {
      result = await settings.managers.update(userId, { add, remove, externalUsers: external });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not save the settings form');
      return ack(inField(MANAGERS_BLOCK, preferenceFailureText('state_unavailable', '')));
    }
    if (!result.ok) {
      const text =
        result.code === 'changed_meanwhile'
          ? 'Someone changed the settings at the same moment, so nothing was saved. Close this form and open Settings again.'
          : preferenceFailureText(result.code, notAllowedText(installer, true));
      return ack(inField(MANAGERS_BLOCK, text));
    }
    await ack();
    const text = settingsSavedText(add, remove, external);
    deps.afterAck(async () => {
      await tellPrivately(client, { userId }, text, deps.logger);
      await deps.home?.opened(body.team?.id ?? null, userId);
    });
  };
}

/** People picked who may not manage: apps, other organisations, guests, deactivated or unknown accounts. */
async function refusedAmong(
  client: HomeSettingsSubmissionArgs['client'],
  ids: string[],
  body: HomeSettingsSubmissionArgs['body'],
): Promise<RefusedPerson[]> {
  const answers = await Promise.all(
    ids.map((user) =>
      client.users.info({ user }).then(
        (r) => r.user,
        () => undefined,
      ),
    ),
  );
  const refused: RefusedPerson[] = [];
  for (const [i, user] of answers.entries()) {
    const name = user?.real_name || user?.name || 'Someone you picked';
    const sameOrg =
      body.enterprise?.id !== undefined && user?.enterprise_user?.enterprise_id === body.enterprise.id;
    const why: RefusedPerson['why'] | undefined = !user
      ? 'unknown'
      : user.is_bot || ids[i] === 'USLACKBOT'
        ? 'app'
        : user.deleted
          ? 'deactivated'
          : user.team_id !== body.team?.id && !sameOrg
            ? 'elsewhere'
            : user.is_restricted || user.is_ultra_restricted
              ? 'guest'
              : undefined;
    if (why) refused.push({ name, why });
  }
  return refused;
}
