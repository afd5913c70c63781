import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { TenantDirectory } from './ports.js';
import type { SettingsManagers } from './settings-managers.js';
import type { ProjectConnection, TenantKey, TenantSettings } from './tenant.js';

/** Project ids as the platform shows them on its API keys page (no spaces, no slashes). */
export const PROJECT_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,127}$/;
/** Admin keys: `svc_` and a secret part. */
export const ADMIN_KEY_PATTERN = /^svc_[A-Za-z0-9_-]{8,256}$/;

/** The platform's answer to the one cheap read that checks a key (the wiring bounds its time). */
export type KeyCheckResult =
  | { ok: true }
  | { ok: false; reason: 'refused'; status: number | undefined; message: string | undefined }
  | { ok: false; reason: 'timeout' }
  | { ok: false; reason: 'unavailable'; message: string | undefined };

export type ProjectKeyCheck = (projectId: string, apiKey: string) => Promise<KeyCheckResult>;

export type ConnectScope = 'channel' | 'workspace';

export interface ConnectInput {
  userId: string;
  /** The channel the form was opened in (absent from Home). */
  channelId: string | undefined;
  scope: ConnectScope;
  projectId: string;
  apiKey: string;
}

export type SettingsFailureCode =
  | 'not_allowed'
  | 'bad_project_id'
  | 'bad_key'
  | 'key_refused'
  | 'platform_timeout'
  | 'platform_unavailable'
  | 'no_channel'
  | 'changed_meanwhile'
  | 'state_unavailable'
  | 'nothing_connected';

export interface SettingsFailure {
  ok: false;
  code: SettingsFailureCode;
  /** The platform's own words (already sanitised by the client: capped, invisible characters out). */
  detail?: string;
  status?: number;
}

export type ConnectResult =
  | { ok: true; connection: ProjectConnection; replaced: ProjectConnection | undefined }
  | SettingsFailure;

export type DisconnectResult = { ok: true; removed: ProjectConnection } | SettingsFailure;

/** Where a channel's project comes from: its own connection, the workspace's, or none yet. */
export interface ChannelProject {
  connection: ProjectConnection;
  scope: ConnectScope;
}

export interface ProjectSettingsOptions {
  tenant: TenantKey;
  directory: Pick<TenantDirectory, 'settings' | 'saveSettings'>;
  /** The tenant's settings as the runtime knows them now (kept current in place by the registry). */
  settings(): TenantSettings;
  /**
   * What the tenant uses while nothing is connected in Slack (a workspace upgraded from single-workspace
   * mode keeps its environment's projects); absent: nothing.
   */
  fallback?(): ProjectConnection[];
  managers: Pick<SettingsManagers, 'mayManage' | 'knownManager'>;
  checkKey: ProjectKeyCheck;
  /** A save went through: the runtime is rebuilt with the new settings. */
  changed(): void;
  now(): number;
  logger: Logger;
}

const sameScope = (a: ProjectConnection, channelId: string | undefined) => a.channelId === channelId;

/**
 * Connecting docs projects from Slack, inside one tenant: connect (the key checked with one read before it
 * is saved), disconnect, and what a channel uses. Every save is checked against the version it was read
 * at: a lost race re-reads and asks the user to try again, never overwrites someone else's change.
 * Permission is asked on every call, never carried by a form.
 */
export class ProjectSettings {
  /** The settings last read or saved here: newer than the runtime's until the registry applies them. */
  private seen: TenantSettings | undefined;

  constructor(private readonly options: ProjectSettingsOptions) {}

  /** Whether any project is connected (else every command points to `/docs-agent connect`). */
  isSetUp(): boolean {
    return this.projects().length > 0;
  }

  /** The connections as this runtime knows them: the workspace's first, then channels. */
  connections(): ProjectConnection[] {
    return [...this.projects()].sort(
      (a, b) =>
        Number(a.channelId !== undefined) - Number(b.channelId !== undefined) ||
        a.connectedAt - b.connectedAt,
    );
  }

  /** The project a channel acts on: its own connection, else the workspace's. */
  projectOf(channelId: string | undefined): ChannelProject | undefined {
    const projects = this.projects();
    const own = channelId ? projects.find((p) => p.channelId === channelId) : undefined;
    if (own) return { connection: own, scope: 'channel' };
    const workspace = projects.find((p) => p.channelId === undefined);
    return workspace ? { connection: workspace, scope: 'workspace' } : undefined;
  }

  /** The newest settings known here (the runtime's, or a save of this process not applied yet). */
  private current(): TenantSettings {
    const live = this.options.settings();
    return this.seen && this.seen.version > live.version ? this.seen : live;
  }

  /** Whether what this tenant uses comes from the environment (nothing connected in Slack yet). */
  fromEnvironment(): boolean {
    return this.current().projects.length === 0 && this.projects().length > 0;
  }

  private projects(): ProjectConnection[] {
    const connected = this.current().projects;
    return connected.length > 0 ? connected : (this.options.fallback?.() ?? []);
  }

  mayManage(userId: string): Promise<boolean> {
    return this.options.managers.mayManage(userId);
  }

  async connect(input: ConnectInput): Promise<ConnectResult> {
    const projectId = input.projectId.trim();
    const apiKey = input.apiKey.trim();
    if (!PROJECT_ID_PATTERN.test(projectId)) return { ok: false, code: 'bad_project_id' };
    if (!ADMIN_KEY_PATTERN.test(apiKey)) return { ok: false, code: 'bad_key' };
    const channelId = input.scope === 'channel' ? input.channelId : undefined;
    if (input.scope === 'channel' && !channelId) return { ok: false, code: 'no_channel' };
    if (!(await this.mayManage(input.userId))) return { ok: false, code: 'not_allowed' };
    const checked = await this.options.checkKey(projectId, apiKey);
    if (!checked.ok) {
      if (checked.reason === 'timeout') return { ok: false, code: 'platform_timeout' };
      if (checked.reason === 'unavailable')
        return { ok: false, code: 'platform_unavailable', ...detail(checked.message) };
      return {
        ok: false,
        code: 'key_refused',
        ...detail(checked.message),
        ...(checked.status === undefined ? {} : { status: checked.status }),
      };
    }
    const connection: ProjectConnection = {
      projectId,
      apiKey,
      channelId,
      connectedBy: input.userId,
      connectedAt: this.options.now(),
    };
    const saved = await this.save((projects) => ({
      next: [...projects.filter((p) => !sameScope(p, channelId)), connection],
      found: projects.find((p) => sameScope(p, channelId)),
    }));
    if (!saved.ok) return saved;
    this.options.logger.info(
      { tenant: this.options.tenant, projectId, channelId, userId: input.userId },
      'docs project connected',
    );
    return { ok: true, connection, replaced: saved.found };
  }

  /** Removes the mapping of `channelId` (undefined: the workspace's). */
  async disconnect(userId: string, channelId: string | undefined): Promise<DisconnectResult> {
    if (!(await this.mayManage(userId))) return { ok: false, code: 'not_allowed' };
    const saved = await this.save((projects) => {
      const found = projects.find((p) => sameScope(p, channelId));
      return { next: projects.filter((p) => !sameScope(p, channelId)), found };
    });
    if (!saved.ok) return saved;
    if (!saved.found) return { ok: false, code: 'nothing_connected' };
    this.options.logger.info(
      { tenant: this.options.tenant, projectId: saved.found.projectId, channelId, userId },
      'docs project disconnected',
    );
    return { ok: true, removed: saved.found };
  }

  /**
   * Reads the stored settings, applies `change` and saves at the version read. Nothing found to change:
   * nothing is saved.
   */
  private async save(
    change: (projects: ProjectConnection[]) => {
      next: ProjectConnection[];
      found: ProjectConnection | undefined;
    },
  ): Promise<{ ok: true; found: ProjectConnection | undefined } | SettingsFailure> {
    const { tenant, directory } = this.options;
    let found: ProjectConnection | undefined;
    try {
      const stored = await directory.settings(tenant);
      this.seen = stored;
      const changed = change(stored.projects);
      const next = changed.next;
      found = changed.found;
      if (next.length === stored.projects.length && !found) return { ok: true, found };
      const { version: _read, ...rest } = stored;
      if (!(await directory.saveSettings(tenant, { ...rest, projects: next }, stored.version))) {
        // Someone saved in between (another admin, another replica): show theirs, overwrite nothing.
        this.seen = await directory.settings(tenant);
        return { ok: false, code: 'changed_meanwhile' };
      }
      this.seen = { ...stored, version: stored.version + 1, projects: next };
    } catch (error) {
      this.options.logger.warn(
        { tenant, error: describeError(error) },
        'could not read or save the settings',
      );
      return { ok: false, code: 'state_unavailable' };
    }
    this.options.changed();
    return { ok: true, found };
  }
}

function detail(message: string | undefined): { detail?: string } {
  return message ? { detail: message } : {};
}
