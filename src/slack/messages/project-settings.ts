import type { KnownBlock } from '@slack/types';
import { defuseLinks, escapeMrkdwn } from '../markup.js';
import { slackTime } from './format.js';
import { LIMITS, oneLine, truncate } from './limits.js';

/** Home's Settings buttons: Connect opens the connect form; Disconnect (per connection) asks first. */
export const HOME_CONNECT_ACTION = 'home_connect_project';
export const HOME_DISCONNECT_ACTION = 'home_disconnect_project';
/** Home's top Settings button: the Settings section in a modal (managers only, asked again on the click). */
export const HOME_SETTINGS_ACTION = 'home_settings';
/** Home's Settings section: [Connect GitHub] opens the sealed GitHub token form (managers only, asked again). */
export const HOME_GITHUB_ACTION = 'home_connect_github';
/** The Disconnect button's value for the workspace's connection (a channel's is its id). */
export const WORKSPACE_VALUE = 'workspace';
/** Connections Home lists at most (one per channel can be many). */
export const HOME_SETTINGS_MAX = 10;

/** A connection as Slack may see it: the key already masked (`svc_…abcd`), never the key. */
export interface ShownConnection {
  projectId: string;
  channelId: string | undefined;
  connectedBy: string;
  connectedAt: number;
  maskedKey: string;
  /** Set by the deployment's environment (a workspace upgraded from single-workspace mode): not removable here. */
  fromEnvironment?: boolean;
}

/** Home's Settings section; absent for people who may not manage and a tenant that is set up. */
export interface HomeSettings {
  /** The person may connect and disconnect (else only the prompt to ask someone who can). */
  manage: boolean;
  connections: ShownConnection[];
  installerUserId: string | undefined;
  /** For managers: who else manages, and whether people of other organisations may use docs-agent here. */
  managers?: { added: string[]; externalUsers: boolean; externalUsersChosen: boolean };
}

/** Home's lines on who manages and on people of other organisations (managers only). */
function managersBlocks(settings: HomeSettings): KnownBlock[] {
  const m = settings.managers;
  if (!m) return [];
  const installer = settings.installerUserId ? `<@${settings.installerUserId}> (installed it), ` : '';
  const added = m.added.length > 0 ? `, and ${m.added.map((id) => `<@${id}>`).join(', ')}` : '';
  const outsiders = m.externalUsers ? 'may' : 'may not';
  const chosen = m.externalUsersChosen ? 'chosen by a manager' : "this deployment's default";
  return [
    section(
      `*Managers*: ${installer}workspace admins and owners${added}. Add or remove one in *Settings* (at the top of this tab).`,
    ),
    section(
      `*People of other organisations* (Slack Connect) ${outsiders} use docs-agent here (${chosen}). Change it in *Settings*.`,
    ),
  ];
}

const code = (text: string) => `\`${escapeMrkdwn(oneLine(text, 128))}\``;
const where = (c: { channelId: string | undefined }) =>
  c.channelId ? `<#${c.channelId}>` : 'the whole workspace';

/** Who may connect projects, in one sentence (`plain`: for a form's field, where mentions do not render). */
export function whoCanManageText(installerUserId: string | undefined, plain = false): string {
  const installer = installerUserId
    ? `the person who installed docs-agent${plain ? '' : ` (<@${installerUserId}>)`}, `
    : '';
  return `Only ${installer}workspace admins and owners, people a manager added (\`/docs-agent managers\`) and docs-agent's own admins can connect or disconnect docs projects.`;
}

/** The setup gate: one line, for every command until a project is connected. */
export function notSetUpText(installerUserId: string | undefined): string {
  return `docs-agent is not connected to a docs project yet, so I did nothing. An admin must run \`/docs-agent connect\` first. ${whoCanManageText(installerUserId)}`;
}

export function notAllowedText(installerUserId: string | undefined, plain = false): string {
  return `You can't change which docs project docs-agent uses. ${whoCanManageText(installerUserId, plain)}`;
}

/** Single-workspace mode: projects and keys come from the environment. */
export const ENVIRONMENT_CONFIGURED_TEXT =
  "docs-agent's docs projects were set when it was deployed, so they cannot be connected or disconnected from Slack. `/docs-agent project` shows what this channel uses.";

const USER_ID = /^[UW][A-Z0-9]{2,30}$/;

/** Who connected it and when, or that the environment set it. */
function origin(c: ShownConnection): string {
  if (c.fromEnvironment || !USER_ID.test(c.connectedBy))
    return 'set when docs-agent was deployed, until one is connected here';
  return `connected by <@${c.connectedBy}> on ${slackTime(c.connectedAt)}`;
}

export function connectionLine(c: ShownConnection): string {
  return `project ${code(c.projectId)} for ${where(c)}, key \`${escapeMrkdwn(c.maskedKey)}\`, ${origin(c)}`;
}

export function connectedText(c: ShownConnection, replaced: ShownConnection | undefined): string {
  const before = replaced
    ? ` It replaces project ${code(replaced.projectId)} (key \`${escapeMrkdwn(replaced.maskedKey)}\`).`
    : '';
  return `:white_check_mark: Connected docs project ${code(c.projectId)} for ${where(c)} with key \`${escapeMrkdwn(c.maskedKey)}\`.${before} Jobs and reports there use it from now on.`;
}

export function disconnectedText(c: ShownConnection, left: ShownConnection | undefined): string {
  const next = c.channelId
    ? left
      ? ` ${where(c)} now uses the workspace's project ${code(left.projectId)}.`
      : ' No project is connected for the whole workspace, so commands there will ask for `/docs-agent connect`.'
    : '';
  return `Disconnected docs project ${code(c.projectId)} (key \`${escapeMrkdwn(c.maskedKey)}\`) from ${where(c)}.${next}`;
}

export const NOTHING_CONNECTED_TEXT =
  'No docs project is connected here, so there was nothing to disconnect. `/docs-agent project` shows what this channel uses.';

export const CHANGED_MEANWHILE_TEXT =
  'Someone changed the docs project settings at the same moment, so I saved nothing. Look at `/docs-agent project` (or my Home tab) and try again.';

export const SETTINGS_UNAVAILABLE_TEXT =
  "I can't reach my settings store right now, so nothing was changed. Try again in a minute.";

export const PLATFORM_TIMEOUT_TEXT =
  'The docs platform did not answer in time, so the key is not checked and nothing was saved. Try again.';

export const SLACK_TIMEOUT_TEXT =
  'Slack did not tell me in time whether you may change the settings, so nothing was saved. Try again.';

/** The platform's words for a form's field (plain text there): one line, capped, no link Slack could make. */
const platformWords = (detail: string | undefined) =>
  detail ? `: “${defuseLinks(oneLine(detail, 200))}”` : '';

/** Why the platform refused the key (its own words, defused), for the form. */
export function keyRefusedText(status: number | undefined, detail: string | undefined): string {
  const said = platformWords(detail);
  const hint =
    status === 404
      ? ' Check the project ID.'
      : status === 401 || status === 403
        ? ' Check that the key is an admin key of this project.'
        : '';
  return truncate(`The docs platform refused this key${said}.${hint}`, 1900);
}

export function platformUnavailableText(detail: string | undefined): string {
  const said = platformWords(detail);
  return `The docs platform could not check the key right now${said}. Nothing was saved; try again in a minute.`;
}

/** `/docs-agent project` in OAuth mode: the channel's project and where it came from. */
export function channelProjectText(
  shown: { connection: ShownConnection; scope: 'channel' | 'workspace' } | undefined,
  installerUserId: string | undefined,
): string {
  if (!shown) return notSetUpText(installerUserId);
  const from =
    shown.scope === 'channel'
      ? 'connected for this channel'
      : "the workspace's project (this channel has none of its own)";
  return `Jobs, follow-ups, status and reports in this channel act on docs project ${code(shown.connection.projectId)}, ${from}: key \`${escapeMrkdwn(shown.connection.maskedKey)}\`, ${origin(shown.connection)}.`;
}

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } };
}

/** Home's Settings section (at most HOME_SETTINGS_MAX connections + 4 blocks). */
export function homeSettingsBlocks(settings: HomeSettings): KnownBlock[] {
  if (!settings.manage) {
    if (settings.connections.length > 0) return [];
    return [section(`*Settings*\n${notSetUpText(settings.installerUserId)}`), { type: 'divider' }];
  }
  const blocks: KnownBlock[] = [section('*Settings: docs projects*')];
  if (settings.connections.length === 0)
    blocks.push(
      section('No docs project is connected yet, so every command asks for one. Connect one to start.'),
    );
  for (const c of settings.connections.slice(0, HOME_SETTINGS_MAX)) {
    if (c.fromEnvironment) {
      blocks.push(section(connectionLine(c)));
      continue;
    }
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: truncate(connectionLine(c), LIMITS.sectionText) },
      accessory: {
        type: 'button',
        action_id: HOME_DISCONNECT_ACTION,
        value: c.channelId ?? WORKSPACE_VALUE,
        text: { type: 'plain_text', text: 'Disconnect' },
        confirm: {
          title: { type: 'plain_text', text: 'Disconnect project?' },
          text: {
            type: 'mrkdwn',
            text: truncate(
              `Disconnect ${code(c.projectId)} from ${where(c)}? Its key is deleted; jobs and reports there stop using it at once.`,
              300,
            ),
          },
          confirm: { type: 'plain_text', text: 'Disconnect' },
          deny: { type: 'plain_text', text: 'Keep it' },
          style: 'danger',
        },
      },
    });
  }
  const hidden = settings.connections.length - HOME_SETTINGS_MAX;
  if (hidden > 0)
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${hidden} more` }] });
  blocks.push({
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: HOME_CONNECT_ACTION,
        text: { type: 'plain_text', text: 'Connect a project' },
      },
      { type: 'button', action_id: HOME_GITHUB_ACTION, text: { type: 'plain_text', text: 'Connect GitHub' } },
    ],
  });
  blocks.push(...managersBlocks(settings), { type: 'divider' });
  return blocks;
}

/** Home's Settings button pressed by someone who may not manage: who can, by name. */
export function settingsRefusedText(installerUserId: string | undefined, added: readonly string[]): string {
  const people = [
    ...(installerUserId ? [`<@${installerUserId}> (installed it)`] : []),
    'workspace admins and owners',
    ...added.slice(0, 10).map((id) => `<@${id}>`),
  ];
  return `I can't show you the settings: only docs-agent's managers can change them. They are ${people.join(', ')}; ask one of them.`;
}
