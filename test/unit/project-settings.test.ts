import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { connectionLine } from '../../src/slack/messages/project-settings.js';
import { type KeyCheckResult, ProjectSettings } from '../../src/tenants/project-settings.js';
import { SettingsManagers } from '../../src/tenants/settings-managers.js';
import type { ProjectConnection, TenantSettings } from '../../src/tenants/tenant.js';
import { MapTenantDirectory, TEST_TENANT } from '../support/map-tenant-directory.js';

const logger = createLogger({ level: 'silent', secrets: [] });

function managers(roleOf: (id: string) => Promise<{ admin: boolean } | undefined>, now = () => 0) {
  return new SettingsManagers({
    installerUserId: () => 'U0INSTALLER',
    isConfiguredAdmin: (id) => id === 'U0CONFIGURED',
    roleOf,
    logger,
    now,
    ttlMs: 60_000,
  });
}

describe('SettingsManagers', () => {
  it('knows the installer and ADMIN_USER_IDS without asking Slack', async () => {
    const roleOf = vi.fn(async () => ({ admin: false }));
    const m = managers(roleOf);
    expect(await m.mayManage('U0INSTALLER')).toBe(true);
    expect(await m.mayManage('U0CONFIGURED')).toBe(true);
    expect(roleOf).not.toHaveBeenCalled();
  });

  it('asks users.info once per user within the cache time, again after it', async () => {
    let now = 0;
    const roleOf = vi.fn(async () => ({ admin: true }));
    const m = managers(roleOf, () => now);
    expect(await m.mayManage('U0ADMIN')).toBe(true);
    expect(await m.mayManage('U0ADMIN')).toBe(true);
    expect(roleOf).toHaveBeenCalledTimes(1);
    now = 60_001;
    roleOf.mockResolvedValueOnce({ admin: false });
    expect(await m.mayManage('U0ADMIN')).toBe(false);
    expect(roleOf).toHaveBeenCalledTimes(2);
  });

  it('asks users.info once for the same person asked about twice at once', async () => {
    const roleOf = vi.fn(async () => ({ admin: true }));
    const m = managers(roleOf);
    expect(await Promise.all([m.mayManage('U0ADMIN'), m.mayManage('U0ADMIN')])).toEqual([true, true]);
    expect(roleOf).toHaveBeenCalledTimes(1);
  });

  it('fails closed when Slack does not know the user or does not answer', async () => {
    expect(await managers(async () => undefined).mayManage('U0GONE')).toBe(false);
    expect(
      await managers(async () => {
        throw new Error('timeout');
      }).mayManage('U0ADMIN'),
    ).toBe(false);
  });
});

const KEY = 'svc_unit_test_key_0123456789';

function settings(
  directory: MapTenantDirectory,
  check: () => Promise<KeyCheckResult> = async () => ({ ok: true }),
  allowed = true,
  live: { settings: TenantSettings } = { settings: { version: 0, projects: [] } },
  fallback?: () => ProjectConnection[],
) {
  const changed = vi.fn();
  const checkKey = vi.fn(check);
  const s = new ProjectSettings({
    tenant: TEST_TENANT,
    directory,
    settings: () => live.settings,
    ...(fallback ? { fallback } : {}),
    managers: { mayManage: async () => allowed, knownManager: () => allowed },
    checkKey,
    changed,
    now: () => 1_000,
    logger,
  });
  return { s, changed, checkKey };
}

const input = {
  userId: 'U0ADMIN',
  channelId: 'C0DOCS',
  scope: 'channel' as const,
  projectId: 'proj_a',
  apiKey: KEY,
};

describe('ProjectSettings', () => {
  it('refuses malformed input before asking anyone', async () => {
    const { s, checkKey } = settings(new MapTenantDirectory());
    expect(await s.connect({ ...input, projectId: 'proj a/../b' })).toMatchObject({ code: 'bad_project_id' });
    expect(await s.connect({ ...input, apiKey: 'sk_live_123456789' })).toMatchObject({ code: 'bad_key' });
    expect(await s.connect({ ...input, channelId: undefined })).toMatchObject({ code: 'no_channel' });
    expect(checkKey).not.toHaveBeenCalled();
  });

  it('neither checks the key nor saves for someone who may not manage', async () => {
    const directory = new MapTenantDirectory();
    const { s, checkKey } = settings(directory, undefined, false);
    expect(await s.connect(input)).toMatchObject({ code: 'not_allowed' });
    expect(await s.disconnect('U0BOB', undefined)).toMatchObject({ code: 'not_allowed' });
    expect(checkKey).not.toHaveBeenCalled();
    expect(directory.saves).toHaveLength(0);
  });

  it('replaces a channel’s connection and says which one it replaced', async () => {
    const directory = new MapTenantDirectory();
    const old: ProjectConnection = {
      ...input,
      apiKey: 'svc_old_key_000000000',
      connectedBy: 'U0X',
      connectedAt: 1,
    };
    directory.stored.set(TEST_TENANT, { version: 4, projects: [old] });
    const { s, changed } = settings(directory);
    const result = await s.connect(input);
    expect(result).toMatchObject({ ok: true, replaced: old });
    expect(directory.stored.get(TEST_TENANT)).toEqual({
      version: 5,
      projects: [
        { projectId: 'proj_a', apiKey: KEY, channelId: 'C0DOCS', connectedBy: 'U0ADMIN', connectedAt: 1_000 },
      ],
    });
    expect(changed).toHaveBeenCalledTimes(1);
    expect(s.projectOf('C0DOCS')?.scope).toBe('channel');
    expect(s.projectOf('C0OTHER')).toBeUndefined();
  });

  it('passes on the platform’s refusal and saves nothing', async () => {
    const directory = new MapTenantDirectory();
    const { s } = settings(directory, async () => ({
      ok: false,
      reason: 'refused',
      status: 401,
      message: 'Invalid API key',
    }));
    expect(await s.connect(input)).toEqual({
      ok: false,
      code: 'key_refused',
      status: 401,
      detail: 'Invalid API key',
    });
    expect(directory.saves).toHaveLength(0);
  });

  it('says the settings store is away instead of throwing', async () => {
    const directory = new MapTenantDirectory();
    directory.failing = true;
    const { s, changed } = settings(directory);
    expect(await s.connect(input)).toMatchObject({ code: 'state_unavailable' });
    expect(await s.disconnect('U0ADMIN', undefined)).toMatchObject({ code: 'state_unavailable' });
    expect(changed).not.toHaveBeenCalled();
  });

  it('disconnects only what is there, and nothing else', async () => {
    const directory = new MapTenantDirectory();
    const { s, changed } = settings(directory);
    expect(await s.disconnect('U0ADMIN', undefined)).toMatchObject({ code: 'nothing_connected' });
    expect(directory.saves).toHaveLength(0);
    expect(changed).not.toHaveBeenCalled();
  });

  it('follows the settings the registry applies in place, and a save of its own before they are applied', async () => {
    const directory = new MapTenantDirectory();
    const live = { settings: { version: 0, projects: [] } as TenantSettings };
    const { s } = settings(directory, undefined, true, live);
    expect(s.isSetUp()).toBe(false);
    // Saved on another replica, applied here by the registry.
    const elsewhere: ProjectConnection = {
      ...input,
      channelId: undefined,
      connectedBy: 'U0X',
      connectedAt: 1,
    };
    live.settings = { version: 1, projects: [elsewhere] };
    expect(s.projectOf('C0DOCS')).toEqual({ connection: elsewhere, scope: 'workspace' });
    // Saved here: seen at once, before the registry re-reads.
    directory.stored.set(TEST_TENANT, live.settings);
    expect(await s.connect(input)).toMatchObject({ ok: true });
    expect(s.projectOf('C0DOCS')?.scope).toBe('channel');
    // The registry catches up (or an older read arrives late): the newest version wins.
    live.settings = { version: 1, projects: [elsewhere] };
    expect(s.projectOf('C0DOCS')?.scope).toBe('channel');
  });

  it('uses the environment’s projects (an upgraded workspace) until one is connected in Slack', () => {
    const fromEnv: ProjectConnection = {
      ...input,
      channelId: undefined,
      connectedBy: 'the deployment (environment)',
      connectedAt: 0,
    };
    const { s } = settings(new MapTenantDirectory(), undefined, true, undefined, () => [fromEnv]);
    expect(s.isSetUp()).toBe(true);
    expect(s.projectOf('C0ANY')).toEqual({ connection: fromEnv, scope: 'workspace' });
    expect(s.fromEnvironment()).toBe(true);
    const line = connectionLine({ ...fromEnv, maskedKey: 'svc_…6789', fromEnvironment: true });
    expect(line).toContain('set when docs-agent was deployed');
    expect(line).not.toContain('<@');
  });
});
