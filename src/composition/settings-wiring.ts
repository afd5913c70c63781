import { AccessPolicy } from '../common/access-policy.js';
import type { Clock } from '../common/clock.js';
import type { Config } from '../common/config.js';
import { DocsApiError } from '../common/docs-api-error.js';
import { describeError } from '../common/errors.js';
import { lazily, lazyObject } from '../common/lazily.js';
import type { Logger } from '../common/logger.js';
import type { Outbox } from '../delivery/ports.js';
import { GitHubPullRequests } from '../github/github-pull-requests.js';
import { DocsApiClient } from '../platform/docs-client.js';
import { oweHoldLiftedNotices } from '../slack/hold-notices.js';
import type { ProjectSettingsSurface } from '../slack/listeners/deps.js';
import type { HomeSettings } from '../slack/messages/project-settings.js';
import type { SlackGateway } from '../slack/slack-gateway.js';
import { oweTakeoverNotice } from '../slack/takeover-notices.js';
import { type KeyCheckResult, type ProjectKeyCheck, ProjectSettings } from '../tenants/project-settings.js';
import { administersInstall, SettingsManagers } from '../tenants/settings-managers.js';
import { NO_SETTINGS, type ProjectConnection } from '../tenants/tenant.js';
import { TenantPreferences } from '../tenants/tenant-preferences.js';
import type { TenantScope } from './docs-agent.js';
import { effectiveConnections } from './oauth/tenant-config.js';
import type { ProcessEdge } from './process-edge.js';
import { TenantSettingsSurface } from './settings-surface.js';

/**
 * How long the key check may take: the form's answer must reach Slack within its 3 s, after the permission
 * check (users.info, usually cached) and before the save.
 */
export const KEY_CHECK_MS = 1_500;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface SettingsWiring {
  /**
   * What the tenant uses while nothing is connected in Slack (the workspace upgraded from single-workspace
   * mode keeps its environment's projects); absent: nothing, so every command asks for `/docs-agent connect`.
   */
  environmentProjects?: () => ProjectConnection[];
  access: Pick<AccessPolicy, 'isAdmin'>;
  /** Where the previous installer's notice of a takeover is owed (absent: not told). */
  outbox?: Outbox;
  clock: Clock;
  logger: Logger;
  /** The process's HTTP pools and GitHub client (a key or token check builds none of its own). */
  edge: Pick<ProcessEdge, 'dispatchers' | 'github'>;
}

export interface WiredSettings {
  /** For the listeners (absent in single-workspace mode). */
  deps: ProjectSettingsSurface | undefined;
  /** Home's Settings section for a user (absent in single-workspace mode). */
  home: ((userId: string) => Promise<HomeSettings | undefined>) | undefined;
}

/**
 * Whether people of other organisations may use the bot: OAuth mode, the tenant's own choice (its managers
 * set it in Slack), else ALLOW_EXTERNAL_USERS, read on every check so a change applies at once.
 */
export function accessPolicyFor(config: Config, tenant: TenantScope | undefined): AccessPolicy {
  const fallback = config.access.allowExternalUsers;
  const allowExternalUsers = tenant ? () => tenant.settings.externalUsers ?? fallback : fallback;
  return new AccessPolicy({ ...config.access, allowExternalUsers });
}

/** Connecting docs projects from Slack, for one tenant's runtime (OAuth mode); nothing in single-workspace mode. */
export function wireProjectSettings(
  config: Config,
  tenant: TenantScope | undefined,
  gateway: Pick<SlackGateway, 'userInfo'>,
  w: SettingsWiring,
): WiredSettings {
  if (!tenant) return { deps: undefined, home: undefined };
  const logger = w.logger.child({ component: 'project-settings' });
  // Each built on first use (issue 43 §2): a command reads only whether the tenant is set up.
  const managers = lazily(
    (): SettingsManagers =>
      new SettingsManagers({
        installerUserId: () => tenant.installation.installerUserId,
        addedManagers: () => preferences.get().addedManagers(),
        isConfiguredAdmin: (userId) => w.access.isAdmin(userId),
        roleOf: async (userId) => {
          const user = await gateway.userInfo(userId);
          if (!user) return undefined;
          // This workspace's admins (the org's for an org-wide install), never another organisation's.
          return { admin: administersInstall(user, tenant.installation) };
        },
        logger,
        cache: tenant.caches?.view('managers'),
        now: () => w.clock.now(),
      }),
  );
  // A stand-in, not a getter on the options (an options object with getters is a dictionary in V8).
  const managersOnUse = lazyObject(() => managers.get());
  const preferences = lazily(
    () =>
      new TenantPreferences({
        tenant: tenant.key,
        directory: tenant.directory,
        settings: () => tenant.settings,
        managers: managersOnUse,
        externalUsersDefault: config.access.allowExternalUsers,
        checkGithubToken: (token) =>
          new GitHubPullRequests(
            { token, apiUrl: config.github.apiUrl, logger },
            undefined,
            w.edge.github,
          ).validate(),
        changed: () => tenant.changed(),
        logger,
      }),
  );
  const settings = lazily(
    () =>
      new ProjectSettings({
        tenant: tenant.key,
        directory: tenant.directory,
        settings: () => tenant.settings,
        // The workspace upgraded from single-workspace mode keeps its environment's projects until it connects one.
        fallback: w.environmentProjects ?? (() => effectiveConnections(config, tenant.key, NO_SETTINGS)),
        managers: managersOnUse,
        checkKey: keyCheck(config, logger, w.clock, w.edge),
        changed: () => tenant.changed(),
        now: () => w.clock.now(),
        logger,
      }),
  );
  const deps = new TenantSettingsSurface({
    installation: () => tenant.installation,
    ...{ settings, managers, preferences, clock: w.clock },
  });
  const outbox = w.outbox;
  if (outbox) {
    const tell = (installation: TenantScope['installation']) =>
      oweTakeoverNotice(outbox, installation, w.clock.now()).catch((error: unknown) =>
        logger.warn({ error: describeError(error) }, 'could not owe the takeover notice yet'),
      );
    void tell(tenant.installation);
    tenant.installed = (installation) => void tell(installation);
    tenant.holdLifted = (hold) =>
      void oweHoldLiftedNotices(outbox, {
        installation: tenant.installation,
        managers: preferences.get().addedManagers(),
        hold,
        now: w.clock.now(),
      }).catch((error: unknown) =>
        logger.warn({ error: describeError(error) }, 'could not owe the back-in-service notices'),
      );
  }
  const home = async (userId: string): Promise<HomeSettings | undefined> => {
    const manage = await managers.get().mayManage(userId);
    if (!manage && settings.get().isSetUp()) return undefined;
    const managersShown = {
      added: preferences.get().addedManagers(),
      externalUsers: preferences.get().externalUsersAllowed(),
      externalUsersChosen: preferences.get().externalUsersChosen(),
    };
    return {
      manage,
      connections: deps.connections(),
      installerUserId: deps.installerUserId,
      ...(manage ? { managers: managersShown } : {}),
    };
  };
  return { deps, home };
}

/**
 * The one cheap authenticated read that proves both the key and the project: one page-view row for one
 * day (`GET /v1/analytics/{projectId}/views?limit=1`); a wrong key answers 401/403, a wrong project 404.
 * A client of its own (the key is not saved yet) over the process's pool (OAuth mode), closed once the call settles.
 */
function keyCheck(
  config: Config,
  logger: Logger,
  clock: Clock,
  edge: Pick<ProcessEdge, 'dispatchers' | 'github'>,
): ProjectKeyCheck {
  return async (projectId, apiKey): Promise<KeyCheckResult> => {
    const client = new DocsApiClient({
      dispatchers: edge.dispatchers,
      baseUrl: config.docs.apiUrl,
      apiKey,
      projectId,
      timeoutMs: KEY_CHECK_MS,
      retries: 0,
      logger: logger.child({ component: 'docs-key-check' }),
    });
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const now = clock.now();
    const call = client.getPageViews({ dateFrom: day(now - DAY_MS), dateTo: day(now), limit: 1, offset: 0 });
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((resolve) => {
      timer = setTimeout(() => resolve('late'), KEY_CHECK_MS);
    });
    try {
      if ((await Promise.race([call, late])) === 'late') return { ok: false, reason: 'timeout' };
      return { ok: true };
    } catch (error) {
      if (!(error instanceof DocsApiError)) return { ok: false, reason: 'unavailable', message: undefined };
      // No answer at all: the transport's own timeout, or the platform unreachable.
      if (error.status === undefined)
        return clock.now() - now >= KEY_CHECK_MS - 100
          ? { ok: false, reason: 'timeout' }
          : { ok: false, reason: 'unavailable', message: undefined };
      if (error.code === 'unavailable' || error.code === 'rate_limited' || error.code === 'bad_response')
        return { ok: false, reason: 'unavailable', message: error.apiMessage };
      return { ok: false, reason: 'refused', status: error.status, message: error.apiMessage };
    } finally {
      clearTimeout(timer);
      void call
        .catch(() => undefined)
        .then(() => client.close())
        .catch(() => undefined);
    }
  };
}
