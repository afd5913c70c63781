import type { Config } from '../../common/config.js';
import { NO_CHANNEL_PROJECTS, ProjectDirectory } from '../../common/projects.js';
import type {
  ProjectConnection,
  TenantInstallation,
  TenantKey,
  TenantSettings,
} from '../../tenants/tenant.js';

export { DIRECTORY_PREFIX, tenantNamespace } from '../../state/adapters.js';

/**
 * Until a project is connected a tenant's runtime still runs (Home, `/docs-agent connect`); every command
 * is stopped before it reaches the docs platform, so this id is never sent anywhere.
 */
export const NOT_CONNECTED = 'not-connected';

/**
 * The upgraded workspace (SLACK_UPGRADED_TEAM_ID) keeps serving the project it had in single-workspace mode
 * (DOCS_PROJECT_ID, DOCS_API_KEY, DOCS_CHANNEL_PROJECTS) until an admin connects one in Slack.
 */
export function effectiveConnections(
  config: Config,
  tenant: TenantKey,
  settings: TenantSettings,
): ProjectConnection[] {
  if (settings.projects.length > 0 || tenant !== config.oauth?.upgradedTenant) return settings.projects;
  const { projectId, apiKey, channelProjects, projectKeys } = config.docs;
  if (!projectId || !apiKey) return [];
  const fromEnv = (project: string, channelId: string | undefined): ProjectConnection => ({
    projectId: project,
    apiKey: projectKeys.get(project) ?? apiKey,
    channelId,
    connectedBy: 'the deployment (environment)',
    connectedAt: 0,
  });
  return [
    fromEnv(projectId, undefined),
    ...[...channelProjects].map(([channel, project]) => fromEnv(project, channel)),
  ];
}

/** The projects a tenant's runtime uses: the whole-workspace one by default, channels mapped to theirs. */
export function projectsOf(connections: ProjectConnection[]) {
  const workspace = connections.find((c) => c.channelId === undefined) ?? connections[0];
  const mapped = connections.flatMap((c) => (c.channelId ? [[c.channelId, c.projectId] as const] : []));
  const channels = mapped.length > 0 ? new Map(mapped) : NO_CHANNEL_PROJECTS;
  const keys = new Map(connections.map((c) => [c.projectId, c.apiKey] as const));
  return { defaultProjectId: workspace?.projectId ?? NOT_CONNECTED, channels, keys };
}

/** A tenant's projects, kept current in place when its settings change while its runtime runs. */
export class TenantProjects {
  readonly directory: ProjectDirectory;
  readonly keys = new Map<string, string>();

  constructor(connections: ProjectConnection[]) {
    const { defaultProjectId, channels } = projectsOf(connections);
    this.directory = new ProjectDirectory(defaultProjectId, channels);
    this.update(connections);
  }

  update(connections: ProjectConnection[]): void {
    const { defaultProjectId, channels, keys } = projectsOf(connections);
    this.directory.replace(defaultProjectId, channels);
    this.keys.clear();
    for (const [project, key] of keys) this.keys.set(project, key);
  }
}

/** The deployment's config as one tenant's runtime sees it: its token, its projects, no env schedule. */
export function tenantConfig(
  config: Config,
  tenant: TenantKey,
  installation: TenantInstallation,
  connections: ProjectConnection[],
): Config {
  const { defaultProjectId, channels, keys } = projectsOf(connections);
  const upgraded = tenant === config.oauth?.upgradedTenant;
  return {
    ...config,
    slack: { ...config.slack, botToken: installation.botToken },
    docs: {
      ...config.docs,
      projectId: defaultProjectId,
      apiKey: keys.get(defaultProjectId) ?? '',
      channelProjects: channels,
      projectKeys: keys,
    },
    // The operator's GITHUB_TOKEN reads only GITHUB_TOKEN_OWNERS' repositories for a tenant (the repository
    // comes from the tenant's docs data); none without that list. The upgraded workspace is the operator's own.
    github: upgraded
      ? config.github
      : { ...config.github, token: config.github.owners ? config.github.token : undefined },
    analytics: {
      ...config.analytics,
      // WEEKLY_REPORT_* name one workspace's channel: only the upgraded workspace keeps it.
      weeklyReport: upgraded
        ? config.analytics.weeklyReport
        : { channel: undefined, cron: undefined, timeZone: undefined },
    },
  };
}
