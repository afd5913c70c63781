import { slackTime } from './format.js';

/** What `/docs-agent managers …` and `/docs-agent settings …` answer (OAuth mode). */

export const MANAGERS_HELP_TEXT = [
  '*Who manages docs-agent here*',
  '• `/docs-agent managers`: who manages docs-agent in this workspace',
  '• `/docs-agent managers add @someone`: lets them connect docs projects and change these settings',
  '• `/docs-agent managers remove @someone`: takes that back (admins, owners and the installer always manage)',
].join('\n');

export const SETTINGS_HELP_TEXT = [
  '*docs-agent settings*',
  '• `/docs-agent settings`: what is set',
  '• `/docs-agent settings external-users on` or `off`: whether people of other organisations in shared channels (Slack Connect) may use docs-agent here',
  '• `/docs-agent settings github`: opens a private form for a GitHub token (read-only: pull requests, checks) to follow this workspace’s jobs’ pull requests to their merge, used only for its jobs’ repositories (and only those owners’, if named). Never paste a token in a message: I refuse it',
  '• `/docs-agent settings github disconnect`: stops using it',
].join('\n');

/** What `/docs-agent settings` says of GitHub; the token only as its last four characters. */
export function githubText(
  shown: { masked: string; owners: string[]; connectedBy: string } | undefined,
): string {
  if (!shown)
    return 'No GitHub token is connected: pull requests are not followed to their merge. A manager connects one with `/docs-agent settings github` (a private form).';
  const owners =
    shown.owners.length > 0 ? ` for repositories of ${shown.owners.map((o) => `\`${o}\``).join(', ')}` : '';
  return `A GitHub token (${shown.masked}) connected by <@${shown.connectedBy}> follows this workspace’s jobs’ pull requests${owners}. \`/docs-agent settings github disconnect\` stops using it.`;
}

export const GITHUB_FORM_NOT_OPENED_TEXT =
  "I couldn't open the GitHub form (Slack took too long or refused it). Run `/docs-agent settings github` again.";

export const GITHUB_DISCONNECTED_TEXT =
  'The GitHub token is disconnected: pull requests are no longer read with it. Revoke it on GitHub too if nothing else uses it.';

export function managersText(installerUserId: string | undefined, added: readonly string[]): string {
  const installer = installerUserId ? `<@${installerUserId}> (installed docs-agent)` : undefined;
  const people = [installer, ...added.map((id) => `<@${id}> (added by a manager)`)].filter(Boolean);
  return [
    `docs-agent is managed here by workspace admins and owners${people.length > 0 ? ', and:' : '.'}`,
    ...people.map((p) => `• ${p}`),
    '',
    'Managers connect docs projects (`/docs-agent connect`) and change these settings. `/docs-agent managers add @someone` adds one.',
  ].join('\n');
}

/** `/docs-agent settings` for someone who does not manage: one line naming who can see them. */
export function settingsForManagersOnlyText(
  installerUserId: string | undefined,
  added: readonly string[],
): string {
  const named = [...new Set([installerUserId, ...added].filter((id): id is string => Boolean(id)))]
    .slice(0, 20)
    .map((id) => `<@${id}>`);
  return `I show docs-agent's settings only to its managers: ${named.length > 0 ? `${named.join(', ')} and ` : ''}this workspace's admins and owners; ask one of them.`;
}

export const addedManagerText = (userId: string) =>
  `<@${userId}> now manages docs-agent here: they can connect docs projects and change its settings.`;
export const removedManagerText = (userId: string) =>
  `<@${userId}> no longer manages docs-agent here (unless they are a workspace admin or owner).`;

export function externalUsersText(allowed: boolean, chosen: boolean): string {
  const state = allowed
    ? 'People of other organisations in channels shared with them (Slack Connect) *may* use docs-agent here: their jobs use this workspace’s docs project.'
    : 'People of other organisations in channels shared with them (Slack Connect) *may not* use docs-agent here.';
  const source = chosen
    ? 'A manager chose this.'
    : 'This is the default of this deployment; a manager can choose.';
  return `${state} ${source} Change it with \`/docs-agent settings external-users on\` or \`off\`.`;
}

/** A preference change refused; `who`: the sentence naming who may. */
export function preferenceFailureText(code: string, who: string): string {
  switch (code) {
    case 'not_allowed':
      return `You can't change docs-agent's settings here. ${who}`;
    case 'bad_user':
      return 'Name one person with an @mention, for example `/docs-agent managers add @alex`.';
    case 'too_many':
      return 'docs-agent already has 50 added managers here; remove someone first with `/docs-agent managers remove @someone`.';
    case 'already':
      return 'They already manage docs-agent here.';
    case 'not_added':
      return 'They were not added by a manager, so there is nothing to remove (the installer, admins and owners always manage).';
    case 'bad_github_token':
      return 'That is not a GitHub token (letters, digits and _ only, like `github_pat_…` or `ghp_…`), or an owner name is not a GitHub user or organisation. Correct it in the form and submit again.';
    case 'github_token_refused':
      return 'GitHub refused that token (401: wrong, expired or revoked), so nothing was saved. Create a new one on GitHub and submit the form again.';
    case 'github_unreachable':
      return 'GitHub did not answer the check of that token, so nothing was saved. Try again in a minute.';
    case 'no_github_token':
      return 'No GitHub token is connected here, so there is nothing to disconnect.';
    case 'changed_meanwhile':
      return 'Someone changed the settings at the same moment. Run the command again.';
    default:
      return "I can't reach my storage right now, so nothing changed. Try again in a minute.";
  }
}

/** The direct message the previous installer gets once an admin's re-install took over. */
export function takenOverText(takenOver: { by: string; at: number }): string {
  return `<@${takenOver.by}>, a workspace admin, installed docs-agent again on ${slackTime(takenOver.at)} and is now the person who installed it. You no longer manage docs-agent as its installer: a workspace admin or a manager can add you back with \`/docs-agent managers add @you\`.`;
}
