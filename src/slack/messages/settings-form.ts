import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import { FIELD_ACTION, fieldOf, metadataOf, type SubmittedFormView } from './home-schedules-form.js';
import { oneLine } from './limits.js';
import { type HomeSettings, homeSettingsBlocks } from './project-settings.js';

/** Home's Settings form (managers only): docs projects as on Home, then managers and on/off settings. */
export const SETTINGS_FORM_CALLBACK_ID = 'home_settings_form';
export const MANAGERS_BLOCK = 'settings_managers';
export const SWITCHES_BLOCK = 'settings_switches';
export const EXTERNAL_USERS_VALUE = 'external_users';
/** People added in one save at most: each is looked up (users.info) within the form's 3 s. */
export const NEW_MANAGERS_PER_SAVE = 10;

const USER_ID = /^[UW][A-Z0-9]{2,31}$/;
const EXTERNAL_OPTION: PlainTextOption = {
  text: { type: 'plain_text', text: 'People of other organisations may use docs-agent here' },
  description: { type: 'plain_text', text: 'In channels shared with them (Slack Connect)' },
  value: EXTERNAL_USERS_VALUE,
};

/** The Settings modal: the docs projects' lines and buttons, a people picker and checkboxes, [Save]. */
export function settingsFormView(settings: HomeSettings): ModalView {
  const managers = [...new Set([settings.installerUserId, ...(settings.managers?.added ?? [])])].filter(
    (id): id is string => id !== undefined && USER_ID.test(id),
  );
  const external = settings.managers?.externalUsers ?? false;
  const projects = homeSettingsBlocks({ ...settings, managers: undefined }).filter(
    (b) => b.type !== 'divider',
  );
  const blocks: KnownBlock[] = [
    ...projects,
    { type: 'divider' },
    {
      type: 'input',
      block_id: MANAGERS_BLOCK,
      optional: true,
      label: { type: 'plain_text', text: 'Managers' },
      hint: {
        type: 'plain_text',
        text: 'They connect docs projects and change these settings. Workspace admins and owners always manage too.',
      },
      element: {
        type: 'multi_users_select',
        action_id: FIELD_ACTION,
        placeholder: { type: 'plain_text', text: 'Add people' },
        ...(managers.length > 0 ? { initial_users: managers } : {}),
      },
    },
    {
      type: 'input',
      block_id: SWITCHES_BLOCK,
      optional: true,
      label: { type: 'plain_text', text: 'Settings' },
      element: {
        type: 'checkboxes',
        action_id: FIELD_ACTION,
        options: [EXTERNAL_OPTION],
        ...(external ? { initial_options: [EXTERNAL_OPTION] } : {}),
      },
    },
  ];
  return {
    type: 'modal',
    callback_id: SETTINGS_FORM_CALLBACK_ID,
    title: { type: 'plain_text', text: 'Settings' },
    submit: { type: 'plain_text', text: 'Save' },
    close: { type: 'plain_text', text: 'Close' },
    private_metadata: JSON.stringify({ managers, external }),
    blocks,
  };
}

export interface SettingsSubmission {
  /** Who the form showed as managers when it opened, and who is picked now. */
  shown: string[];
  picked: string[];
  externalShown: boolean;
  external: boolean;
}

export function parseSettingsSubmission(view: SubmittedFormView): SettingsSubmission | undefined {
  if (view.callback_id !== SETTINGS_FORM_CALLBACK_ID) return undefined;
  const meta = metadataOf(view);
  const ids = (list: unknown) =>
    Array.isArray(list)
      ? list.filter((id): id is string => typeof id === 'string' && USER_ID.test(id)).slice(0, 200)
      : [];
  const boxes = fieldOf(view, SWITCHES_BLOCK)?.selected_options;
  return {
    shown: ids(meta.managers),
    picked: ids(fieldOf(view, MANAGERS_BLOCK)?.selected_users),
    externalShown: meta.external === true,
    external:
      Array.isArray(boxes) && boxes.some((o) => (o as { value?: unknown })?.value === EXTERNAL_USERS_VALUE),
  };
}

/** Why one person picked cannot manage, in words for the field (plain text: names, not mentions). */
export type RefusedPerson = { name: string; why: 'app' | 'elsewhere' | 'guest' | 'deactivated' | 'unknown' };

export function refusedPeopleText(people: RefusedPerson[]): string {
  const why = {
    app: 'is an app, not a person',
    elsewhere: 'is in another organisation',
    guest: 'is a guest here',
    deactivated: 'has a deactivated account',
    unknown: 'is not someone Slack could tell me about',
  };
  const lines = people.slice(0, 5).map((p) => `${oneLine(p.name, 60)} ${why[p.why]}`);
  return `Only members of this workspace can manage docs-agent: ${lines.join('; ')}. Take them out of the list and save again.`;
}

export const LAST_MANAGER_TEXT =
  'Keep at least one person in the list: docs-agent needs a manager of its own besides workspace admins and owners.';
export const INSTALLER_STAYS_TEXT =
  'The person who installed docs-agent always manages it. Keep them in the list.';
export const TOO_MANY_NEW_TEXT = `Add at most ${NEW_MANAGERS_PER_SAVE} people at a time, then save again to add more.`;

/** The DM once the Settings form saved. */
export function settingsSavedText(added: string[], removed: string[], external: boolean | undefined): string {
  const parts = [
    ...(added.length > 0 ? [`${added.map((id) => `<@${id}>`).join(', ')} now manage docs-agent here`] : []),
    ...(removed.length > 0
      ? [`${removed.map((id) => `<@${id}>`).join(', ')} no longer do (unless workspace admins or owners)`]
      : []),
    ...(external === undefined
      ? []
      : [`people of other organisations ${external ? 'may' : 'may not'} use docs-agent here`]),
  ];
  return parts.length === 0
    ? 'Settings saved: nothing needed changing.'
    : `Settings saved: ${parts.join('; ')}. Change them again in *Settings* on my Home tab.`;
}
