import type { FakeSlack } from './fake-slack.js';

/**
 * users.info as Slack answers it: the user's team (default the home team T0TEAM), their name when a test
 * named them, and for Enterprise Grid users `enterprise_user` with their org; `user_not_found` otherwise.
 */
export function usersInfoAnswer(
  slack: Pick<FakeSlack, 'users' | 'userTeams' | 'userEnterprises' | 'unknownUsers' | 'orgAdmins'>,
  args: Record<string, unknown>,
): Record<string, unknown> {
  const id = String(args.user);
  const user = slack.users.get(id);
  const teamId = slack.userTeams.get(id) ?? 'T0TEAM';
  const org = slack.userEnterprises.get(id);
  if (!/^[UW][A-Z0-9]+$/.test(id) || slack.unknownUsers.has(id))
    return { ok: false, error: 'user_not_found' };
  const grid = org
    ? {
        enterprise_user: {
          ...{ id, enterprise_id: org, enterprise_name: org, teams: [teamId] },
          is_admin: slack.orgAdmins.has(id),
        },
      }
    : {};
  // A user nobody named in the test: Slack still knows their team (names fall back to the id).
  if (!user) return { ok: true, user: { id, team_id: teamId, is_restricted: false, profile: {}, ...grid } };
  return {
    ok: true,
    user: {
      id,
      team_id: teamId,
      name: user.name,
      real_name: user.real_name ?? user.name,
      profile: { display_name: user.display_name ?? user.name },
      is_restricted: user.is_restricted ?? false,
      is_admin: user.is_admin ?? false,
      // Slack names every person's zone; apps (is_bot) have Slack's default one.
      tz: user.tz ?? 'America/Los_Angeles',
      ...(user.is_bot ? { is_bot: true } : {}),
      ...grid,
    },
  };
}
