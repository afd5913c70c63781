import type { Clock } from '../common/clock.js';
import type { Lazy } from '../common/lazily.js';
import type { ProjectSettingsSurface } from '../slack/listeners/deps.js';
import type { ShownConnection } from '../slack/messages/project-settings.js';
import type { ConnectInput, ProjectSettings } from '../tenants/project-settings.js';
import type { SettingsManagers } from '../tenants/settings-managers.js';
import { maskKey, type ProjectConnection, type TenantInstallation } from '../tenants/tenant.js';
import type { PreferenceChange, TenantPreferences } from '../tenants/tenant-preferences.js';

/** A connection as listeners and Home show it: its key masked (`svc_…abcd`). */
export const shown = (c: ProjectConnection, fromEnvironment = false): ShownConnection => ({
  projectId: c.projectId,
  channelId: c.channelId,
  connectedBy: c.connectedBy,
  connectedAt: c.connectedAt,
  maskedKey: maskKey(c.apiKey),
  ...(fromEnvironment ? { fromEnvironment } : {}),
});

/** The tenant's settings parts, each built on first use (settings-wiring.ts). */
export interface SettingsParts {
  installation(): TenantInstallation;
  settings: Lazy<ProjectSettings>;
  managers: Lazy<SettingsManagers>;
  preferences: Lazy<TenantPreferences>;
  clock: Clock;
}

/**
 * The listeners' settings surface of one tenant, as a class: its methods live once on the prototype, where
 * an object literal of arrows costs every resident tenant a closure each (issue 43 §2). Its nested
 * surfaces are made when read (a settings form, rarely).
 */
export class TenantSettingsSurface implements ProjectSettingsSurface {
  constructor(private readonly p: SettingsParts) {}

  get installerUserId(): string | undefined {
    return this.p.installation().installerUserId;
  }

  isSetUp(): boolean {
    return this.p.settings.get().isSetUp();
  }

  knownManager(userId: string): boolean {
    return this.p.managers.get().knownManager(userId);
  }

  mayManage(userId: string): Promise<boolean> {
    return this.p.managers.get().mayManage(userId);
  }

  projectOf(channelId: string | undefined): ReturnType<ProjectSettingsSurface['projectOf']> {
    const settings = this.p.settings.get();
    const found = settings.projectOf(channelId);
    if (!found) return undefined;
    return { connection: shown(found.connection, settings.fromEnvironment()), scope: found.scope };
  }

  connections(): ShownConnection[] {
    const settings = this.p.settings.get();
    return settings.connections().map((c) => shown(c, settings.fromEnvironment()));
  }

  async connect(input: ConnectInput): ReturnType<ProjectSettingsSurface['connect']> {
    const result = await this.p.settings.get().connect(input);
    if (!result.ok) return result;
    return {
      ok: true,
      connection: shown(result.connection),
      replaced: result.replaced ? shown(result.replaced) : undefined,
    };
  }

  async disconnect(
    userId: string,
    channelId: string | undefined,
  ): ReturnType<ProjectSettingsSurface['disconnect']> {
    const settings = this.p.settings.get();
    const result = await settings.disconnect(userId, channelId);
    if (!result.ok) return result;
    const left = channelId ? settings.projectOf(channelId)?.connection : undefined;
    return { ok: true, removed: shown(result.removed), left: left ? shown(left) : undefined };
  }

  get managers(): ProjectSettingsSurface['managers'] {
    const preferences = () => this.p.preferences.get();
    return {
      added: () => preferences().addedManagers(),
      add: (by, userId) => preferences().addManager(by, userId),
      remove: (by, userId) => preferences().removeManager(by, userId),
      update: (by: string, change: PreferenceChange) => preferences().update(by, change),
    };
  }

  get externalUsers(): ProjectSettingsSurface['externalUsers'] {
    const preferences = () => this.p.preferences.get();
    return {
      allowed: () => preferences().externalUsersAllowed(),
      chosen: () => preferences().externalUsersChosen(),
      set: (by, allowed) => preferences().setExternalUsers(by, allowed),
    };
  }

  get github(): ProjectSettingsSurface['github'] {
    const preferences = () => this.p.preferences.get();
    return {
      shown: () => preferences().githubShown(),
      connect: (by, token, owners) => preferences().connectGithub(by, token, owners, this.p.clock.now()),
      disconnect: (by) => preferences().disconnectGithub(by),
    };
  }
}
