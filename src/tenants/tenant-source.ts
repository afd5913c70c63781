import type { TenantSource } from './tenant.js';

type Json = Record<string, unknown>;

const record = (value: unknown): Json | undefined =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
const id = (value: unknown): string | undefined =>
  typeof value === 'string' && /^[A-Z0-9]{2,32}$/.test(value) ? value : undefined;

/**
 * The acting person's own workspace as Slack names it: an event's `user_team` (Slack Connect) or a message's
 * author `team`, an interaction's `user.team_id`, a command's `user_team` (commands' `team_id` already is).
 */
function personTeamOf(b: Json): string | undefined {
  const event = record(b.event);
  if (event) return id(event.user_team) ?? id(event.team);
  return id(record(b.user)?.team_id) ?? id(b.user_team);
}

/**
 * The tenant a verified request belongs to, read the way Bolt reads it (events: their first authorization;
 * commands: form fields; interactions: `team`, else the user's team, and `enterprise`), and the acting
 * person's own workspace: a shared channel's request is served by the person's install when there is one,
 * not by whichever install Slack listed first. Never throws: a body without a recognisable team or org has
 * no tenant (undefined).
 */
export function tenantSourceOf(body: unknown): TenantSource | undefined {
  const b = record(body);
  if (!b) return undefined;
  const authorization = Array.isArray(b.authorizations) ? record(b.authorizations[0]) : undefined;
  const team = record(b.team);
  const enterprise = record(b.enterprise);
  const user = record(b.user);
  const view = record(b.view);
  const teamId =
    id(authorization?.team_id) ??
    id(b.team_id) ??
    id(view?.app_installed_team_id) ??
    id(team?.id) ??
    id(user?.team_id);
  const enterpriseId =
    id(authorization?.enterprise_id) ?? id(b.enterprise_id) ?? id(enterprise?.id) ?? id(team?.enterprise_id);
  const flag = authorization?.is_enterprise_install ?? b.is_enterprise_install;
  const isEnterpriseInstall = flag === true || flag === 'true';
  if (!teamId && !enterpriseId) return undefined;
  // Inside an org-wide install, the org's own people from any of its workspaces stay the org's (a workspace
  // install inside it serves them only from a Slack Connect channel, which Slack marks).
  const shared = b.is_ext_shared_channel === true || record(b.event)?.is_ext_shared_channel === true;
  const personTeamId = isEnterpriseInstall && !shared ? undefined : personTeamOf(b);
  return { teamId, enterpriseId, isEnterpriseInstall, ...(personTeamId ? { personTeamId } : {}) };
}
