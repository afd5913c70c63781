import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { NO_SETTINGS, type ProjectConnection } from '../../src/tenants/tenant.js';
import { TenantPreferences } from '../../src/tenants/tenant-preferences.js';
import { MapTenantDirectory, TEST_TENANT } from '../support/map-tenant-directory.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const MANAGER = 'U0MANAGER';
const project: ProjectConnection = {
  projectId: 'proj_a',
  apiKey: 'svc_a_key_0123456789',
  channelId: undefined,
  connectedBy: MANAGER,
  connectedAt: 1,
};

function preferences(directory: MapTenantDirectory) {
  return new TenantPreferences({
    tenant: TEST_TENANT,
    directory,
    settings: () => NO_SETTINGS,
    managers: { mayManage: async (userId) => userId === MANAGER },
    externalUsersDefault: false,
    changed: () => undefined,
    logger,
  });
}

describe('a tenant’s preferences', () => {
  it('keep the connected projects and each other when saved, and refuse non-managers', async () => {
    const directory = new MapTenantDirectory();
    directory.stored.set(TEST_TENANT, { version: 3, projects: [project] });
    const prefs = preferences(directory);
    expect(await prefs.addManager('U0MEMBER', 'U0HELPER')).toEqual({ ok: false, code: 'not_allowed' });
    expect((await prefs.addManager(MANAGER, 'U0HELPER')).ok).toBe(true);
    expect((await prefs.setExternalUsers(MANAGER, true)).ok).toBe(true);
    expect(await directory.settings(TEST_TENANT)).toEqual({
      version: 5,
      projects: [project],
      managers: ['U0HELPER'],
      externalUsers: true,
    });
    expect(prefs.externalUsersAllowed()).toBe(true);
    expect(await prefs.addManager(MANAGER, 'U0HELPER')).toEqual({ ok: false, code: 'already' });
    expect(await prefs.addManager(MANAGER, 'not-a-user')).toEqual({ ok: false, code: 'bad_user' });
  });

  it("never overwrites a save made in between: the loser is told, the winner's change stays", async () => {
    const directory = new MapTenantDirectory();
    const prefs = preferences(directory);
    directory.beforeSave = async () => {
      await directory.saveSettings(TEST_TENANT, { projects: [project] }, 0);
    };
    expect(await prefs.addManager(MANAGER, 'U0HELPER')).toEqual({ ok: false, code: 'changed_meanwhile' });
    expect(await directory.settings(TEST_TENANT)).toEqual({ version: 1, projects: [project] });
  });
});

describe('the Settings form’s one save (TenantPreferences.update)', () => {
  it('applies who was added and removed to the managers stored now, with the external-users choice, in one save', async () => {
    const directory = new MapTenantDirectory();
    directory.stored.set(TEST_TENANT, { version: 2, projects: [project], managers: ['U0OLD', 'U0OTHER'] });
    const prefs = preferences(directory);
    expect(await prefs.update('U0MEMBER', { add: ['U0NEW'], remove: [] })).toEqual({
      ok: false,
      code: 'not_allowed',
    });
    expect(await prefs.update(MANAGER, { add: ['nobody'], remove: [] })).toEqual({
      ok: false,
      code: 'bad_user',
    });
    const saved = await prefs.update(MANAGER, {
      add: ['U0NEW', 'U0OTHER'],
      remove: ['U0OLD'],
      externalUsers: false,
    });
    expect(saved.ok).toBe(true);
    expect(await directory.settings(TEST_TENANT)).toEqual({
      version: 3,
      projects: [project],
      managers: ['U0OTHER', 'U0NEW'],
      externalUsers: false,
    });
    expect(directory.saves).toHaveLength(1);
    // Left undefined, the external-users choice stays as it is.
    expect((await prefs.update(MANAGER, { add: [], remove: ['U0NEW'] })).ok).toBe(true);
    expect((await directory.settings(TEST_TENANT)).externalUsers).toBe(false);
  });

  it('refuses more added managers than MAX_ADDED_MANAGERS, saving nothing', async () => {
    const directory = new MapTenantDirectory();
    const many = Array.from({ length: 50 }, (_, i) => `U0M${String(i).padStart(3, '0')}`);
    directory.stored.set(TEST_TENANT, { version: 1, projects: [project], managers: many });
    expect(await preferences(directory).update(MANAGER, { add: ['U0ONEMORE'], remove: [] })).toEqual({
      ok: false,
      code: 'too_many',
    });
    expect(directory.saves).toHaveLength(0);
  });
});

describe('a tenant’s GitHub token', () => {
  const TOKEN = 'github_pat_unit0123456789abcdefghijklmn';
  function withCheck(directory: MapTenantDirectory, answer: 'ok' | 'unauthorized' | 'unreachable') {
    const tried: string[] = [];
    const prefs = new TenantPreferences({
      tenant: TEST_TENANT,
      directory,
      settings: () => NO_SETTINGS,
      managers: { mayManage: async (userId) => userId === MANAGER },
      externalUsersDefault: false,
      checkGithubToken: async (token) => {
        tried.push(token);
        return answer;
      },
      changed: () => undefined,
      logger,
    });
    return { prefs, tried };
  }

  it('is tried only for a manager, saved only when GitHub accepts it, and kept beside the projects', async () => {
    const directory = new MapTenantDirectory();
    directory.stored.set(TEST_TENANT, { version: 1, projects: [project] });
    const refused = withCheck(directory, 'unauthorized');
    expect(await refused.prefs.connectGithub('U0MEMBER', TOKEN, [], 5)).toEqual({
      ok: false,
      code: 'not_allowed',
    });
    expect(refused.tried).toEqual([]);
    expect(await refused.prefs.connectGithub(MANAGER, TOKEN, [], 5)).toEqual({
      ok: false,
      code: 'github_token_refused',
    });
    expect(await withCheck(directory, 'unreachable').prefs.connectGithub(MANAGER, TOKEN, [], 5)).toEqual({
      ok: false,
      code: 'github_unreachable',
    });
    expect(await directory.settings(TEST_TENANT)).toEqual({ version: 1, projects: [project] });
    const { prefs } = withCheck(directory, 'ok');
    expect(await prefs.connectGithub(MANAGER, 'not a token', [], 5)).toMatchObject({
      code: 'bad_github_token',
    });
    expect((await prefs.connectGithub(MANAGER, TOKEN, ['Acme', 'acme'], 5)).ok).toBe(true);
    expect(await directory.settings(TEST_TENANT)).toEqual({
      version: 2,
      projects: [project],
      github: { token: TOKEN, owners: ['acme'], connectedBy: MANAGER, connectedAt: 5 },
    });
    expect(prefs.githubShown()).toEqual({ masked: '…klmn', owners: ['acme'], connectedBy: MANAGER });
    expect((await prefs.disconnectGithub(MANAGER)).ok).toBe(true);
    expect(await directory.settings(TEST_TENANT)).toEqual({ version: 3, projects: [project] });
    expect(await prefs.disconnectGithub(MANAGER)).toEqual({ ok: false, code: 'no_github_token' });
  });
});
