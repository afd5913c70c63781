import type { Installation, InstallationQuery, InstallationStore } from '@slack/oauth';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { cleanUntrusted, collapseWhitespace } from '../../common/untrusted-text.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import { type TenantInstallation, type TenantKey, tenantCandidates } from '../../tenants/tenant.js';

/**
 * @slack/oauth's InstallationStore over the TenantDirectory: what Bolt's installer stores after
 * `oauth.v2.access` (and after a token refresh) becomes a TenantInstallation, and back. Errors name the
 * tenant, never a token.
 */

/** Longest workspace or org name kept: Slack's are far shorter. */
const MAX_NAME = 120;

export class InstallationNotFoundError extends Error {
  readonly code = 'installation_not_found';
}

export class InstallationRefusedError extends Error {
  readonly code = 'installation_refused';
}

/** The tenant an installation is: the org for an org-wide install, else the workspace. */
export function tenantOfInstallation(installation: Installation): TenantKey {
  const tenant = installation.isEnterpriseInstall ? installation.enterprise?.id : installation.team?.id;
  if (!tenant) throw new InstallationRefusedError('Slack named no workspace or org for this installation');
  return tenant;
}

/** Slack's Installation as the bot keeps it; `installedAt` is when it was first installed. */
export function toTenantInstallation(installation: Installation, installedAt: number): TenantInstallation {
  const tenant = tenantOfInstallation(installation);
  const { bot } = installation;
  if (!bot?.token || !bot.userId)
    throw new InstallationRefusedError(`the installation in ${tenant} carries no bot token`);
  const isEnterpriseInstall = installation.isEnterpriseInstall === true;
  const rawName = (isEnterpriseInstall ? installation.enterprise?.name : installation.team?.name) ?? '';
  const name = collapseWhitespace(cleanUntrusted(rawName, MAX_NAME).text);
  return {
    tenant,
    teamId: isEnterpriseInstall ? undefined : installation.team?.id,
    enterpriseId: installation.enterprise?.id,
    isEnterpriseInstall,
    name: name === '' ? tenant : name,
    botToken: bot.token,
    botUserId: bot.userId,
    botId: bot.id || undefined,
    // Token rotation: Slack's expiry is in seconds since the epoch, ours in milliseconds.
    refreshToken: bot.refreshToken,
    expiresAt: bot.expiresAt === undefined ? undefined : bot.expiresAt * 1000,
    installerUserId: installation.user.id,
    scopes: [...bot.scopes],
    appId: installation.appId,
    installedAt,
  };
}

/** A TenantInstallation as @slack/oauth reads it (Bolt's `authorize`, token refresh). */
export function toSlackInstallation(installation: TenantInstallation): Installation<'v2', boolean> {
  const { isEnterpriseInstall, teamId, enterpriseId, name } = installation;
  return {
    team: isEnterpriseInstall || !teamId ? undefined : { id: teamId, name },
    enterprise: enterpriseId ? { id: enterpriseId, ...(isEnterpriseInstall ? { name } : {}) } : undefined,
    user: { token: undefined, scopes: undefined, id: installation.installerUserId },
    bot: {
      token: installation.botToken,
      ...(installation.refreshToken ? { refreshToken: installation.refreshToken } : {}),
      ...(installation.expiresAt === undefined
        ? {}
        : { expiresAt: Math.floor(installation.expiresAt / 1000) }),
      scopes: [...installation.scopes],
      id: installation.botId ?? '',
      userId: installation.botUserId,
    },
    ...(installation.appId ? { appId: installation.appId } : {}),
    tokenType: 'bot',
    isEnterpriseInstall,
    authVersion: 'v2',
  };
}

/**
 * Whether `userId` is an admin or owner where the installation is (the workspace's; the org's for an
 * org-wide install), asked of Slack with the new installation's own token; undefined when Slack did not say.
 */
export type InstallerRoleLookup = (
  installation: TenantInstallation,
  userId: string,
) => Promise<boolean | undefined>;

export interface TenantInstallationStoreOptions {
  directory: TenantDirectory;
  now(): number;
  /** Absent: nobody's re-install takes over (the first installer stays). */
  isAdmin?: InstallerRoleLookup;
  logger?: Logger;
}

/**
 * The adapter. `saved(installation)` is the TenantInstallation a store call just saved from that Slack
 * Installation object (the success page and `onInstalled` use it without mapping twice).
 */
export class TenantInstallationStore implements InstallationStore {
  private readonly savedFrom = new WeakMap<object, TenantInstallation>();

  constructor(private readonly options: TenantInstallationStoreOptions) {}

  async storeInstallation<AuthVersion extends 'v1' | 'v2'>(
    installation: Installation<AuthVersion, boolean>,
  ): Promise<void> {
    const { directory, now } = this.options;
    const tenant = tenantOfInstallation(installation as Installation);
    // A re-install keeps when the tenant was first installed, and who did; it is its latest install.
    // (Our token refreshes save through `saveTokens`, never here: every call here is "Add to Slack".)
    const existing = await directory.installation(tenant);
    const at = now();
    const fresh = {
      ...toTenantInstallation(installation as Installation, existing?.installedAt ?? at),
      lastInstalledAt: at,
    };
    const saved = existing ? await this.keepInstaller(existing, fresh) : fresh;
    await directory.saveInstallation(saved);
    this.savedFrom.set(installation, saved);
  }

  /**
   * Who manages a tenant changes only deliberately: a member's re-install (Slack lets members install apps)
   * keeps the first installer; an admin's or owner's takes over, and says so in the log and to the one it
   * replaced (the runtime owes them a message, from `takenOver`).
   */
  private async keepInstaller(
    existing: TenantInstallation,
    fresh: TenantInstallation,
  ): Promise<TenantInstallation> {
    const previous = existing.installerUserId;
    const by = fresh.installerUserId;
    const kept = {
      ...fresh,
      installerUserId: previous,
      ...(existing.takenOver ? { takenOver: existing.takenOver } : {}),
    };
    if (by === previous) return kept;
    const log = this.options.logger?.child({ tenant: fresh.tenant, component: 'slack-install' });
    let admin: boolean | undefined;
    try {
      admin = await this.options.isAdmin?.(fresh, by);
    } catch (error) {
      log?.warn(
        { userId: by, error: describeError(error) },
        'could not tell whether the re-installer is an admin',
      );
    }
    if (admin !== true) {
      log?.info(
        { userId: by, installer: previous },
        'a member installed docs-agent again: the first installer stays the installer',
      );
      return kept;
    }
    log?.warn(
      { userId: by, previousInstaller: previous },
      'an admin installed docs-agent again and takes over as its installer; the previous installer is told',
    );
    return { ...fresh, takenOver: { from: previous, by, at: this.options.now() } };
  }

  async fetchInstallation(query: InstallationQuery<boolean>): Promise<Installation<'v1' | 'v2', boolean>> {
    const { directory } = this.options;
    for (const tenant of tenantCandidates(query)) {
      const found = await directory.installation(tenant);
      if (found) return toSlackInstallation(found);
    }
    throw new InstallationNotFoundError(
      `no installation for ${describeQuery(query)}: the app was never installed there, or was uninstalled`,
    );
  }

  /** Uninstall: the installation and every secret go at once; the tenant's other data is due for purging. */
  async deleteInstallation(query: InstallationQuery<boolean>): Promise<void> {
    const tenant = query.isEnterpriseInstall ? query.enterpriseId : query.teamId;
    if (!tenant) return;
    await this.options.directory.removeTenant(tenant, this.options.now());
  }

  saved(installation: object): TenantInstallation | undefined {
    return this.savedFrom.get(installation);
  }
}

function describeQuery(query: InstallationQuery<boolean>): string {
  const parts = [
    query.enterpriseId ? `enterprise ${query.enterpriseId}` : '',
    query.teamId ? `team ${query.teamId}` : '',
  ].filter(Boolean);
  return parts.join(', ') || 'an unnamed workspace';
}
