import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { TenantDirectory } from './ports.js';
import type { SettingsManagers } from './settings-managers.js';
import type { TenantKey, TenantSettings } from './tenant.js';

/** Slack user ids (members `U…`, Grid users `W…`). */
export const USER_ID_PATTERN = /^[UW][A-Z0-9]{2,31}$/;
/** GitHub tokens (github_pat_…, ghp_…, ghs_…): letters, digits and _ only. */
export const GITHUB_TOKEN_PATTERN = /^[A-Za-z0-9_]{20,255}$/;
/** A GitHub user or organisation name. */
export const GITHUB_OWNER_PATTERN = /^[A-Za-z0-9][A-Za-z0-9-]{0,38}$/;

/** More added managers than anyone needs; keeps the sealed settings small. */
export const MAX_ADDED_MANAGERS = 50;

export type PreferenceFailureCode =
  | 'not_allowed'
  | 'bad_user'
  | 'bad_github_token'
  | 'github_token_refused'
  | 'github_unreachable'
  | 'no_github_token'
  | 'too_many'
  | 'already'
  | 'not_added'
  | 'changed_meanwhile'
  | 'state_unavailable';

export type PreferenceResult =
  | { ok: true; settings: TenantSettings }
  | { ok: false; code: PreferenceFailureCode };

/** What the Settings form changes at once. */
export interface PreferenceChange {
  add: string[];
  remove: string[];
  /** Undefined: left as it is (the deployment's default stays the default). */
  externalUsers?: boolean | undefined;
}

export interface TenantPreferencesOptions {
  tenant: TenantKey;
  directory: Pick<TenantDirectory, 'settings' | 'saveSettings'>;
  /** The tenant's settings as the runtime knows them now. */
  settings(): TenantSettings;
  managers: Pick<SettingsManagers, 'mayManage'>;
  /** The deployment's ALLOW_EXTERNAL_USERS: the default while managers have not chosen. */
  externalUsersDefault: boolean;
  /** One cheap read with a GitHub token before it is saved (absent: not checked). */
  checkGithubToken?(token: string): Promise<'ok' | 'unauthorized' | 'unreachable'>;
  changed(): void;
  logger: Logger;
}

/**
 * A tenant's own choices besides its docs projects: who else manages it (people a manager added) and whether
 * people of other organisations may use the bot. Every change is asked of a manager and saved at the
 * version read, never over someone else's change.
 */
export class TenantPreferences {
  private seen: TenantSettings | undefined;

  constructor(private readonly options: TenantPreferencesOptions) {}

  /** The newest settings known here (the runtime's, or a save of this process not applied yet). */
  current(): TenantSettings {
    const live = this.options.settings();
    return this.seen && this.seen.version > live.version ? this.seen : live;
  }

  addedManagers(): string[] {
    return this.current().managers ?? [];
  }

  /** Whether people of other organisations may use the bot here (their choice, else the deployment's). */
  externalUsersAllowed(): boolean {
    return this.current().externalUsers ?? this.options.externalUsersDefault;
  }

  /** Whether the managers chose (false: the deployment's default applies). */
  externalUsersChosen(): boolean {
    return this.current().externalUsers !== undefined;
  }

  async addManager(by: string, userId: string): Promise<PreferenceResult> {
    if (!USER_ID_PATTERN.test(userId)) return { ok: false, code: 'bad_user' };
    return this.change(
      by,
      (s) => {
        const managers = s.managers ?? [];
        if (managers.includes(userId)) return 'already';
        if (managers.length >= MAX_ADDED_MANAGERS) return 'too_many';
        return { ...s, managers: [...managers, userId] };
      },
      { added: userId },
    );
  }

  async removeManager(by: string, userId: string): Promise<PreferenceResult> {
    if (!USER_ID_PATTERN.test(userId)) return { ok: false, code: 'bad_user' };
    return this.change(
      by,
      (s) => {
        const managers = s.managers ?? [];
        if (!managers.includes(userId)) return 'not_added';
        return { ...s, managers: managers.filter((m) => m !== userId) };
      },
      { removed: userId },
    );
  }

  /**
   * Several choices of the Settings form in one save at the version read: people added and removed (applied
   * to the managers stored now, so someone added meanwhile by another manager stays) and, when given, whether
   * people of other organisations may use the bot.
   */
  async update(by: string, change: PreferenceChange): Promise<PreferenceResult> {
    const named = [...change.add, ...change.remove];
    if (named.some((id) => !USER_ID_PATTERN.test(id))) return { ok: false, code: 'bad_user' };
    return this.change(
      by,
      (s) => {
        const kept = (s.managers ?? []).filter((m) => !change.remove.includes(m));
        const managers = [...new Set([...kept, ...change.add])];
        if (managers.length > MAX_ADDED_MANAGERS) return 'too_many';
        return {
          ...s,
          managers,
          ...(change.externalUsers === undefined ? {} : { externalUsers: change.externalUsers }),
        };
      },
      {
        added: change.add,
        removed: change.remove,
        ...(change.externalUsers === undefined ? {} : { externalUsers: change.externalUsers }),
      },
    );
  }

  async setExternalUsers(by: string, allowed: boolean): Promise<PreferenceResult> {
    return this.change(by, (s) => ({ ...s, externalUsers: allowed }), { externalUsers: allowed });
  }

  /**
   * Connects the tenant's own GitHub token (replacing one connected before), used only for its jobs' pull
   * requests and, when `owners` are named, only for those owners' repositories. Never logged.
   */
  async connectGithub(by: string, token: string, owners: string[], now: number): Promise<PreferenceResult> {
    if (!GITHUB_TOKEN_PATTERN.test(token) || owners.some((o) => !GITHUB_OWNER_PATTERN.test(o)))
      return { ok: false, code: 'bad_github_token' };
    const lower = [...new Set(owners.map((o) => o.toLowerCase()))];
    // Asked before the token is tried, so nobody else can use the bot to probe tokens.
    if (!(await this.options.managers.mayManage(by))) return { ok: false, code: 'not_allowed' };
    const check = await this.options.checkGithubToken?.(token);
    if (check === 'unauthorized') return { ok: false, code: 'github_token_refused' };
    if (check === 'unreachable') return { ok: false, code: 'github_unreachable' };
    return this.change(
      by,
      (s) => ({ ...s, github: { token, owners: lower, connectedBy: by, connectedAt: now } }),
      { githubConnected: true, githubOwners: lower },
    );
  }

  async disconnectGithub(by: string): Promise<PreferenceResult> {
    return this.change(
      by,
      (s) => {
        if (!s.github) return 'no_github_token';
        const { github: _dropped, ...rest } = s;
        return rest;
      },
      { githubConnected: false },
    );
  }

  /** The connected GitHub token as it may be shown again (masked), or undefined. */
  githubShown(): { masked: string; owners: string[]; connectedBy: string } | undefined {
    const github = this.current().github;
    if (!github) return undefined;
    return { masked: `…${github.token.slice(-4)}`, owners: github.owners, connectedBy: github.connectedBy };
  }

  private async change(
    by: string,
    apply: (
      settings: Omit<TenantSettings, 'version'>,
    ) => Omit<TenantSettings, 'version'> | PreferenceFailureCode,
    what: Record<string, unknown>,
  ): Promise<PreferenceResult> {
    if (!(await this.options.managers.mayManage(by))) return { ok: false, code: 'not_allowed' };
    const { tenant, directory, logger } = this.options;
    let saved: TenantSettings;
    try {
      const stored = await directory.settings(tenant);
      this.seen = stored;
      const { version, ...rest } = stored;
      const next = apply(rest);
      if (typeof next === 'string') return { ok: false, code: next };
      if (!(await directory.saveSettings(tenant, next, version))) {
        this.seen = await directory.settings(tenant);
        return { ok: false, code: 'changed_meanwhile' };
      }
      saved = { ...next, version: version + 1 };
      this.seen = saved;
    } catch (error) {
      logger.warn({ tenant, error: describeError(error) }, 'could not read or save the settings');
      return { ok: false, code: 'state_unavailable' };
    }
    // The tenant's log says who changed what (ids only).
    logger.info({ tenant, userId: by, ...what }, 'tenant settings changed');
    this.options.changed();
    return { ok: true, settings: saved };
  }
}
