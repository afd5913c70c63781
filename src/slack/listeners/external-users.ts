import type { AnyMiddlewareArgs, Context } from '@slack/bolt';
import { describeError } from '../../common/errors.js';
import { EXTERNAL_USER_TEXT, EXTERNAL_USER_TEXT_MANAGED } from '../command-text.js';
import type { SlackDeps } from './deps.js';

export type ExternalUsersDeps = Pick<SlackDeps, 'access' | 'logger' | 'jobReaction' | 'users' | 'settings'>;

type Json = Record<string, unknown>;
const str = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
const obj = (value: unknown): Json => (typeof value === 'object' && value !== null ? (value as Json) : {});

/** Who sent a request and from which team, for every kind of request the app receives. */
export function requestUser(body: unknown): { userId?: string; teamId?: string } {
  const b = obj(body);
  if (b.type === 'event_callback') {
    const event = obj(b.event);
    // `user_team` on Slack Connect events; `team` on messages is the author's team. The assistant
    // container's thread events name their user inside `assistant_thread`, and no team at all.
    const userId = str(event.user) ?? str(obj(event.assistant_thread).user_id);
    return { userId, teamId: str(event.user_team) ?? str(event.team) };
  }
  // A command's `team_id` is the person's own workspace (Slack offers the command only where it is installed).
  if (typeof b.command === 'string') return { userId: str(b.user_id), teamId: str(b.team_id) };
  const user = obj(b.user);
  return { userId: str(user.id), teamId: str(user.team_id) };
}

type MiddlewareArgs = AnyMiddlewareArgs & {
  context: Context;
  next: () => Promise<void>;
  ack?: (response?: unknown) => Promise<void>;
  respond?: (message: unknown) => Promise<unknown>;
  client: {
    chat: {
      postEphemeral(args: { channel: string; user: string; text: string }): Promise<unknown>;
      postMessage(args: { channel: string; text: string }): Promise<unknown>;
    };
  };
};

/**
 * Refuses users of other organisations (Slack Connect) on every surface before any listener runs, unless
 * ALLOW_EXTERNAL_USERS: they would start jobs with the org's admin key and read readers' comments. Those
 * who addressed the bot (command, button, form, shortcut, mention, DM, the job emoji) are told why.
 */
export function refuseExternalUsers(deps: ExternalUsersDeps) {
  return async (args: MiddlewareArgs): Promise<void> => {
    // Link previews decide for themselves: people of other organisations get them without numbers.
    if (obj(obj(args.body).event).type === 'link_shared') return args.next();
    const { userId, teamId: namedTeam } = requestUser(args.body);
    // The install's own team (OAuth mode: its workspace, or its org for an org-wide install, so that the
    // org's people are let in by their org); never the request's own team field compared with itself.
    const homeTeamId =
      str(args.context.installedTeamId) ??
      str(args.context.orgWideEnterpriseId) ??
      args.context.teamId ??
      str(obj(args.body).team_id);
    const teamId = namedTeam ?? (await teamOfUnnamed(deps, args.body, userId, homeTeamId));
    if (deps.access.checkTeam(teamId, homeTeamId).ok) return args.next();
    const org = await orgOf(deps, args.context, userId);
    if (org && deps.access.checkTeam(teamId, homeTeamId, org).ok) return args.next();
    deps.logger.info({ userId, teamId }, 'refused a user of another organisation (external users off)');
    try {
      await answer(deps, args, userId);
    } catch (error) {
      deps.logger.info({ error: describeError(error) }, 'could not tell an external user they are refused');
    }
  };
}

/** Stands for a user whose team could not be found out: refused like one of another organisation. */
const UNKNOWN_TEAM = 'unknown';

/**
 * Events that name a user but no team (`reaction_added`, `app_home_opened`, `assistant_thread_*`): the
 * user's own team from users.info (cached), so they cannot slip past the check; unknown is refused.
 */
async function teamOfUnnamed(
  deps: ExternalUsersDeps,
  body: unknown,
  userId: string | undefined,
  homeTeamId: string | undefined,
): Promise<string | undefined> {
  if (deps.access.externalUsersAllowed || !userId || !homeTeamId) return undefined;
  if (obj(body).type !== 'event_callback') return undefined;
  try {
    return (await deps.users?.teamOf(userId)) ?? UNKNOWN_TEAM;
  } catch {
    return UNKNOWN_TEAM;
  }
}

/**
 * An org-wide install (Enterprise Grid) serves every workspace of its org: the install's org (set by the
 * tenant's `authorize`) and the user's own org from users.info (cached). The request's `enterprise_id` is
 * not the user's: a Slack Connect outsider's event in a shared channel carries the org's id too.
 */
async function orgOf(deps: ExternalUsersDeps, context: Context, userId: string | undefined) {
  const install = str(context.orgWideEnterpriseId);
  if (!install || !userId || !deps.users?.enterpriseOf) return undefined;
  try {
    return { install, user: await deps.users.enterpriseOf(userId) };
  } catch {
    return undefined;
  }
}

async function answer(deps: ExternalUsersDeps, args: MiddlewareArgs, userId: string | undefined) {
  const body = obj(args.body);
  // OAuth mode: the tenant's managers choose in Slack; single-workspace mode: the deployment's setting.
  const text = deps.settings ? EXTERNAL_USER_TEXT_MANAGED : EXTERNAL_USER_TEXT;
  if (typeof body.command === 'string') return args.ack?.({ response_type: 'ephemeral', text });
  if (body.type === 'view_submission')
    return args.ack?.({ response_action: 'update', view: refusedModal(text) });
  if (body.type !== 'event_callback') {
    await args.ack?.();
    if (args.respond) return args.respond({ response_type: 'ephemeral', replace_original: false, text });
    if (userId) return args.client.chat.postMessage({ channel: userId, text });
    return;
  }
  const event = obj(body.event);
  const channel = str(event.channel) ?? str(obj(event.item).channel);
  if (!userId || !channel || !addressesBot(deps, event)) return;
  if (event.channel_type === 'im') return args.client.chat.postMessage({ channel, text });
  return args.client.chat.postEphemeral({ channel, user: userId, text });
}

/** Only what was meant for the bot gets an answer: other people's messages in a channel are not. */
function addressesBot(deps: ExternalUsersDeps, event: Json): boolean {
  if (event.type === 'app_mention') return true;
  if (event.type === 'message') return event.channel_type === 'im' && !event.subtype && !event.bot_id;
  if (event.type === 'reaction_added') return event.reaction === (deps.jobReaction ?? 'memo');
  return false;
}

function refusedModal(text: string) {
  return {
    type: 'modal',
    title: { type: 'plain_text', text: 'docs-agent' },
    close: { type: 'plain_text', text: 'Close' },
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
  };
}
