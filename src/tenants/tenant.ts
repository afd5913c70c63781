/**
 * A tenant is one installation of the app: a workspace install (`T…`) or an Enterprise Grid org-wide install
 * (`E…`, serving every workspace of the org). A workspace install inside an org is its own tenant.
 */
export type TenantKey = string;

/** Where a request or event came from, as Slack says it (team/enterprise ids, and whether the install is org-wide). */
export interface TenantSource {
  teamId: string | undefined;
  enterpriseId: string | undefined;
  isEnterpriseInstall: boolean;
  /**
   * The acting person's own workspace when Slack names it and it differs from the install the request was
   * delivered for (a Slack Connect channel shared by two installed workspaces): that workspace's install
   * serves them, with its own project and key.
   */
  personTeamId?: string | undefined;
}

/**
 * The tenants a request may belong to, first match wins: the acting person's own workspace, then the
 * install Slack delivered it for (an org-wide install first, as Bolt's `authorize` does, then the workspace).
 */
export function tenantCandidates(source: TenantSource): TenantKey[] {
  const { teamId, enterpriseId, isEnterpriseInstall, personTeamId } = source;
  const delivered =
    isEnterpriseInstall && enterpriseId
      ? [enterpriseId]
      : [...(teamId ? [teamId] : []), ...(enterpriseId ? [enterpriseId] : [])];
  return personTeamId && !delivered.includes(personTeamId) ? [personTeamId, ...delivered] : delivered;
}

/** One installation as the bot keeps it (secrets included; stored encrypted, never logged). */
export interface TenantInstallation {
  tenant: TenantKey;
  teamId: string | undefined;
  enterpriseId: string | undefined;
  isEnterpriseInstall: boolean;
  /** The workspace's or org's name, for pages and logs. */
  name: string;
  botToken: string;
  botUserId: string;
  botId: string | undefined;
  /** Token rotation: the refresh token and when the bot token expires (ms since epoch). */
  refreshToken: string | undefined;
  expiresAt: number | undefined;
  /** Who installed it: may connect and disconnect docs projects, with admins and owners. */
  installerUserId: string;
  scopes: string[];
  appId: string | undefined;
  /** When it was first installed (the welcome's window and key). */
  installedAt: number;
  /**
   * When it was last installed through "Add to Slack" (a re-install included); absent on records saved before
   * this was kept. A late uninstall signal is compared with this one, never with `installedAt`.
   */
  lastInstalledAt?: number;
  /**
   * The last time an admin's re-install took the installer's place: who was installer before, who took over
   * and when (the previous installer is told once).
   */
  takenOver?: { from: string; by: string; at: number };
}

/** A rotating token pair from a refresh, kept apart from the installation and the settings. */
export interface TenantTokens {
  botToken: string;
  refreshToken: string | undefined;
  expiresAt: number | undefined;
}

/**
 * Why an installed tenant makes no Slack calls for now (its data kept): Slack refused its stored token
 * (suspended, checked again with backoff until the revocation window ends), or its token could not be
 * refreshed (needs re-install: only "Add to Slack" again brings it back).
 */
export type TenantHold = TenantSuspension | { state: 'needs_reinstall'; since: number; reason: string };

/** Slack refused the stored token (`code`) since `since`; `checks` asked again so far, the next one when. */
export interface TenantSuspension {
  state: 'suspended';
  since: number;
  checks: number;
  nextCheckAt: number;
  code: string;
}

/** Where an installed tenant stands, beside its records. */
export interface TenantLifecycle {
  /** Changes with an install only (never with settings or a refreshed token): conditional writes check it. */
  installId: string;
  /** Its key space's generation: an install after a purge began writes under a new one the purge never reaches. */
  generation: number;
  hold: TenantHold | undefined;
}

/** A docs project connected from Slack: the whole workspace's (no channel) or one channel's. */
export interface ProjectConnection {
  projectId: string;
  /** The project's admin key (svc_…); shown again only as `svc_…abcd`. */
  apiKey: string;
  channelId: string | undefined;
  connectedBy: string;
  connectedAt: number;
}

/** A tenant's settings; `version` changes with every save (saves are checked against it). */
export interface TenantSettings {
  version: number;
  projects: ProjectConnection[];
  /** People a manager added (the installer and the workspace's admins and owners manage anyway). */
  managers?: string[];
  /** Whether people of other organisations (Slack Connect) may use the bot; unset: ALLOW_EXTERNAL_USERS. */
  externalUsers?: boolean;
  /** A GitHub token connected in Slack, for this tenant's own repositories (OAuth mode). */
  github?: GithubConnection;
}

/** A GitHub token a manager connected; shown again only masked. */
export interface GithubConnection {
  token: string;
  /** The repository owners (users or orgs) whose repositories it is used for. */
  owners: string[];
  connectedBy: string;
  connectedAt: number;
}

/** Settings as stored (sealed): everything but the version, which is kept beside them. */
export function settingsBody(settings: Omit<TenantSettings, 'version'>): string {
  const { projects, managers, externalUsers, github } = settings;
  return JSON.stringify({
    projects,
    ...(managers && managers.length > 0 ? { managers } : {}),
    ...(externalUsers === undefined ? {} : { externalUsers }),
    ...(github ? { github } : {}),
  });
}

/** Stored settings back (`settingsBody`'s text at `version`). */
export function settingsFromBody(body: string, version: number): TenantSettings {
  const parsed = JSON.parse(body) as Omit<TenantSettings, 'version'>;
  return { ...parsed, version, projects: parsed.projects ?? [] };
}

export const NO_SETTINGS: TenantSettings = { version: 0, projects: [] };

/** Every secret a tenant holds now (scrubbed from logs while it holds them). */
export function tenantSecrets(installation: TenantInstallation, settings: TenantSettings): string[] {
  const { botToken, refreshToken } = installation;
  const keys = settings.projects.map((p) => p.apiKey);
  return [
    botToken,
    ...(refreshToken ? [refreshToken] : []),
    ...keys,
    ...(settings.github ? [settings.github.token] : []),
  ];
}

/** `svc_…abcd`: all of a key that is ever shown again after it is saved. */
export function maskKey(apiKey: string): string {
  return `svc_…${apiKey.slice(-4)}`;
}
