import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../src/common/secret-box.js';
import type { TenantDirectory } from '../../src/tenants/ports.js';
import type { ProjectConnection, TenantInstallation } from '../../src/tenants/tenant.js';

/** Two directories on one storage: two replicas on one Redis, or the one memory directory twice. */
export type TenantDirectoryFactory = (
  box: SecretBox,
) => Promise<{ replicas: [TenantDirectory, TenantDirectory]; close(): Promise<void> }>;

export const testBox = () => new SecretBox({ id: 'test', key: randomBytes(32) });

export function installation(
  tenant: string,
  overrides: Partial<TenantInstallation> = {},
): TenantInstallation {
  return {
    tenant,
    teamId: tenant.startsWith('T') ? tenant : undefined,
    enterpriseId: tenant.startsWith('E') ? tenant : 'E0GRID',
    isEnterpriseInstall: tenant.startsWith('E'),
    name: `Workspace ${tenant}`,
    botToken: `xoxb-${tenant}-${randomBytes(8).toString('hex')}`,
    botUserId: `U${tenant}BOT`,
    botId: `B${tenant}`,
    refreshToken: `xoxe-1-${randomBytes(8).toString('hex')}`,
    expiresAt: 1_800_000_000_000,
    installerUserId: 'U0INSTALLER',
    scopes: ['chat:write', 'commands'],
    appId: 'A0APP',
    installedAt: 1_700_000_000_000,
    ...overrides,
  };
}

export function project(projectId: string, channelId?: string): ProjectConnection {
  return {
    projectId,
    apiKey: `svc_${randomBytes(12).toString('hex')}`,
    channelId,
    connectedBy: 'U0ADMIN',
    connectedAt: 1_700_000_000_000,
  };
}

/** Waits for a condition on a slow, loaded machine: generous deadline, no tight timing. */
async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The `TenantDirectory` contract: every implementation must pass these same tests. */
export function tenantDirectoryContract(create: TenantDirectoryFactory): void {
  async function withDirectory(test: (a: TenantDirectory, b: TenantDirectory) => Promise<void>) {
    const { replicas, close } = await create(testBox());
    try {
      await test(...replicas);
    } finally {
      await close();
    }
  }

  describe('TenantDirectory contract', () => {
    it('keeps an installation, for every replica; a re-install replaces it and keeps the settings', () =>
      withDirectory(async (a, b) => {
        expect(await a.installation('T1')).toBeUndefined();
        const first = installation('T1');
        await a.saveInstallation(first);
        expect(await b.installation('T1')).toEqual(first);
        const grid = installation('E1', { teamId: undefined, refreshToken: undefined, expiresAt: undefined });
        await b.saveInstallation(grid);
        expect(await a.installation('E1')).toEqual(grid);
        expect(await a.saveSettings('T1', { projects: [project('p1')] }, 0)).toBe(true);
        const again = installation('T1', { botToken: 'xoxb-new', scopes: ['chat:write'] });
        await b.saveInstallation(again);
        expect(await a.installation('T1')).toEqual(again);
        expect((await a.settings('T1')).projects.map((p) => p.projectId)).toEqual(['p1']);
      }));

    it('a token refresh saves only over the stamp it read: never over an uninstall, a re-install or a rival', () =>
      withDirectory(async (a, b) => {
        expect(await a.saveInstallation(installation('T1'))).toBe(true);
        const read = (await a.stamps()).get('T1')!;
        const refreshed = installation('T1', { botToken: 'xoxb-refreshed', refreshToken: 'xoxe-next' });
        // Two replicas refresh after reading the same stamp: exactly one save lands.
        const rival = installation('T1', { botToken: 'xoxb-rival' });
        const results = await Promise.all([
          a.saveInstallation(refreshed, read),
          b.saveInstallation(rival, read),
        ]);
        expect(results.filter(Boolean)).toHaveLength(1);
        expect((await a.installation('T1'))?.botToken).toBe(results[0] ? 'xoxb-refreshed' : 'xoxb-rival');
        // Uninstalled while refreshing: the refresh must not bring the secrets back.
        const beforeRemove = (await a.stamps()).get('T1')!;
        await b.removeTenant('T1', 1_000);
        expect(await a.saveInstallation(refreshed, beforeRemove)).toBe(false);
        expect(await b.installation('T1')).toBeUndefined();
        expect((await b.stamps()).has('T1')).toBe(false);
        expect(await a.duePurges(1_000)).toEqual(['T1']);
        // Re-installed while refreshing: the fresh install wins.
        await b.saveInstallation(installation('T1', { botToken: 'xoxb-reinstalled' }));
        expect(await a.saveInstallation(refreshed, beforeRemove)).toBe(false);
        expect((await a.installation('T1'))?.botToken).toBe('xoxb-reinstalled');
      }));

    it('saves settings only over the version they were read at; tenants never see each other', () =>
      withDirectory(async (a, b) => {
        await a.saveInstallation(installation('T1'));
        await a.saveInstallation(installation('T2'));
        expect(await a.settings('T1')).toEqual({ version: 0, projects: [] });
        const first = [project('p1'), project('p2', 'C1')];
        expect(await a.saveSettings('T1', { projects: first }, 0)).toBe(true);
        expect(await b.settings('T1')).toEqual({ version: 1, projects: first });
        // A stale read (version 0) loses, and changes nothing.
        expect(await b.saveSettings('T1', { projects: [] }, 0)).toBe(false);
        expect(await a.saveSettings('T1', { projects: [] }, 7)).toBe(false);
        expect(await a.settings('T1')).toEqual({ version: 1, projects: first });
        expect(await b.saveSettings('T1', { projects: [first[0]!] }, 1)).toBe(true);
        expect(await a.settings('T1')).toEqual({ version: 2, projects: [first[0]] });
        expect(await a.settings('T2')).toEqual({ version: 0, projects: [] });
      }));

    it('two replicas saving over the same version: exactly one wins', () =>
      withDirectory(async (a, b) => {
        await a.saveInstallation(installation('T1'));
        for (let round = 0; round < 5; round++) {
          const { version } = await a.settings('T1');
          const attempts = Array.from({ length: 12 }, (_, i) => project(`p${round}-${i}`));
          const results = await Promise.all(
            attempts.map((p, i) => (i % 2 ? a : b).saveSettings('T1', { projects: [p] }, version)),
          );
          expect(results.filter(Boolean)).toHaveLength(1);
          const winner = attempts[results.indexOf(true)]!;
          expect(await b.settings('T1')).toEqual({ version: version + 1, projects: [winner] });
        }
      }));

    it('refuses settings for a tenant that is not installed (its secrets would outlive the uninstall)', () =>
      withDirectory(async (a) => {
        expect(await a.saveSettings('T9', { projects: [project('p1')] }, 0)).toBe(false);
        expect(await a.settings('T9')).toEqual({ version: 0, projects: [] });
        expect((await a.stamps()).has('T9')).toBe(false);
      }));

    it('stamps every installed tenant, changed by every save and only by a save', () =>
      withDirectory(async (a, b) => {
        expect(await a.stamps()).toEqual(new Map());
        await a.saveInstallation(installation('T1'));
        await a.saveInstallation(installation('E1'));
        const seen = new Set<string>();
        const stampOf = async (tenant: string) => (await b.stamps()).get(tenant)!;
        const t1 = await stampOf('T1');
        const e1 = await stampOf('E1');
        expect([...(await a.stamps()).keys()].sort()).toEqual(['E1', 'T1']);
        seen.add(t1).add(e1);
        expect(seen.size).toBe(2);
        const changes = [
          () => a.saveInstallation(installation('T1')),
          async () => expect(await b.saveSettings('T1', { projects: [project('p1')] }, 0)).toBe(true),
          async () => expect(await a.saveSettings('T1', { projects: [] }, 1)).toBe(true),
          () => b.saveInstallation(installation('T1')),
        ];
        for (const change of changes) {
          await change();
          const stamp = await stampOf('T1');
          expect(seen.has(stamp)).toBe(false);
          seen.add(stamp);
          expect(await stampOf('E1')).toBe(e1);
        }
        const settled = await stampOf('T1');
        await a.installation('T1');
        await a.settings('T1');
        expect(await a.saveSettings('T1', { projects: [] }, 0)).toBe(false);
        expect(await stampOf('T1')).toBe(settled);
        // One tenant's stamp on its own (a request checks its runtime is current) is the same stamp.
        expect(await b.stamp('T1')).toBe(settled);
        expect(await b.stamp('T2')).toBeUndefined();
        // Several at once (a replica re-reads the scopes it holds in one read), in the order asked.
        expect(await b.stampsOf(['T2', 'T1', 'E1'])).toEqual([undefined, settled, e1]);
        expect(await b.stampsOf([])).toEqual([]);
        await a.removeTenant('T1', 0);
        expect([...(await b.stamps()).keys()]).toEqual(['E1']);
        expect(await b.stamp('T1')).toBeUndefined();
        // Installed again: a stamp never seen before, so a registry rebuilds it.
        await a.saveInstallation(installation('T1'));
        expect(seen.has(await stampOf('T1'))).toBe(false);
      }));

    it('uninstall deletes the installation and settings at once, for every replica, and leaves others alone', () =>
      withDirectory(async (a, b) => {
        await a.saveInstallation(installation('T1'));
        const other = installation('T2');
        await a.saveInstallation(other);
        expect(await a.saveSettings('T1', { projects: [project('p1')] }, 0)).toBe(true);
        expect(await a.saveSettings('T2', { projects: [project('p2')] }, 0)).toBe(true);
        await b.removeTenant('T1', 5_000);
        expect(await a.installation('T1')).toBeUndefined();
        expect(await a.settings('T1')).toEqual({ version: 0, projects: [] });
        expect(await a.installation('T2')).toEqual(other);
        expect((await a.settings('T2')).projects.map((p) => p.projectId)).toEqual(['p2']);
      }));

    it('purges fall due at purgeAt, once marked purged they are gone; a re-install calls a purge off', () =>
      withDirectory(async (a, b) => {
        for (const tenant of ['T1', 'T2', 'T3']) await a.saveInstallation(installation(tenant));
        await a.removeTenant('T1', 1_000);
        await a.removeTenant('T2', 2_000);
        await b.removeTenant('T3', 3_000);
        expect(await b.duePurges(999)).toEqual([]);
        expect(await b.duePurges(1_000)).toEqual(['T1']);
        expect((await a.duePurges(2_500)).sort()).toEqual(['T1', 'T2']);
        expect(await b.beginPurge('T1')).toBe(0);
        await b.purged('T1', 0);
        expect(await a.duePurges(2_500)).toEqual(['T2']);
        // T3 comes back before its purge: its data is live again and must not be purged under it.
        await a.saveInstallation(installation('T3'));
        expect(await a.duePurges(10_000)).toEqual(['T2']);
        expect(await a.beginPurge('T2')).toBe(0);
        await a.purged('T2', 0);
        expect(await b.duePurges(Number.MAX_SAFE_INTEGER)).toEqual([]);
      }));

    it('a lease has one holder across replicas until it expires', () =>
      withDirectory(async (a, b) => {
        const results = await Promise.all(
          Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).lease('refresh:T1', 60_000)),
        );
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await a.lease('refresh:T1', 60_000)).toBe(false);
        expect(await b.lease('refresh:T2', 60_000)).toBe(true);
        expect(await a.lease('purge', 150)).toBe(true);
        expect(await b.lease('purge', 150)).toBe(false);
        await eventually(() => b.lease('purge', 60_000));
        expect(await a.lease('purge', 60_000)).toBe(false);
      }));
  });
}
