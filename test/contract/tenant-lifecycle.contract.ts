import { expect, it } from 'vitest';
import type { TenantDirectory } from '../../src/tenants/ports.js';
import { installation, project, type TenantDirectoryFactory, testBox } from './tenant-directory.contract.js';

/**
 * Issue 36, the directory's side of a tenant's life: refreshed tokens apart from settings, holds, uninstalls
 * about one install only, and purges fenced by key-space generation. Every implementation passes these.
 */
export function tenantLifecycleContract(create: TenantDirectoryFactory): void {
  async function withDirectory(test: (a: TenantDirectory, b: TenantDirectory) => Promise<void>) {
    const { replicas, close } = await create(testBox());
    try {
      await test(...replicas);
    } finally {
      for (const r of new Set(replicas)) await r.close();
      await close();
    }
  }

  it('a refresh’s tokens survive a settings save at the same moment, and a settings save never undoes them', () =>
    withDirectory(async (a, b) => {
      await a.saveInstallation(installation('T1'));
      const { installId } = (await a.lifecycle('T1'))!;
      // `/docs-agent connect` saved on another replica between the refresh's read and its save.
      expect(await b.saveSettings('T1', { projects: [project('p1')] }, 0)).toBe(true);
      const tokens = { botToken: 'xoxb-new', refreshToken: 'xoxe-new', expiresAt: 1_900_000_000_000 };
      expect(await a.saveTokens('T1', tokens, installId)).toBe(true);
      expect(await b.saveSettings('T1', { projects: [project('p2')] }, 1)).toBe(true);
      expect(await b.installation('T1')).toMatchObject(tokens);
      expect((await b.settings('T1')).projects.map((p) => p.projectId)).toEqual(['p2']);
      expect((await b.lifecycle('T1'))?.installId).toBe(installId);
      // Due for its next refresh by its new expiry, read from the index.
      expect(await b.refreshesDue(1_899_999_999_999)).toEqual([]);
      expect(await b.refreshesDue(1_900_000_000_000)).toEqual(['T1']);
    }));

  it('a refresh for an earlier install (uninstalled or installed again meanwhile) saves nothing', () =>
    withDirectory(async (a, b) => {
      await a.saveInstallation(installation('T1'));
      const { installId } = (await a.lifecycle('T1'))!;
      await b.saveInstallation(installation('T1', { botToken: 'xoxb-reinstalled' }));
      const stale = { botToken: 'xoxb-stale', refreshToken: 'xoxe-stale', expiresAt: 1 };
      expect(await a.saveTokens('T1', stale, installId)).toBe(false);
      expect((await a.installation('T1'))?.botToken).toBe('xoxb-reinstalled');
      const current = (await a.lifecycle('T1'))!.installId;
      await b.removeTenant('T1', 1_000);
      expect(await a.saveTokens('T1', stale, current)).toBe(false);
      expect(await a.installation('T1')).toBeUndefined();
    }));

  it('a hold is shared, lifted by a re-install, and an uninstall naming an earlier install removes nothing', () =>
    withDirectory(async (a, b) => {
      await a.saveInstallation(installation('T1'));
      const first = (await a.lifecycle('T1'))!.installId;
      const hold = { state: 'needs_reinstall' as const, since: 5, reason: 'refused' };
      expect(await a.refreshesDue(Number.MAX_SAFE_INTEGER)).toEqual(['T1']);
      expect(await a.hold('T1', hold, first)).toBe(true);
      // A token that cannot be refreshed is no longer read as due; the re-install puts it back.
      expect(await a.refreshesDue(Number.MAX_SAFE_INTEGER)).toEqual([]);
      expect((await b.lifecycle('T1'))?.hold).toEqual(hold);
      expect(await b.holds()).toEqual(new Map([['T1', hold]]));
      await b.saveInstallation(installation('T1', { botToken: 'xoxb-again' }));
      const second = (await a.lifecycle('T1'))!;
      expect(second.hold).toBeUndefined();
      expect(await a.refreshesDue(Number.MAX_SAFE_INTEGER)).toEqual(['T1']);
      expect(second.installId).not.toBe(first);
      // A late signal about the first install: the re-install stays, whole.
      expect(await a.removeTenant('T1', 1_000, first)).toBe(false);
      expect((await b.installation('T1'))?.botToken).toBe('xoxb-again');
      expect(await b.duePurges(Number.MAX_SAFE_INTEGER)).toEqual([]);
      expect(await a.hold('T1', hold, first)).toBe(false);
      // About the current one: removed.
      expect(await a.removeTenant('T1', 1_000, second.installId)).toBe(true);
      expect(await b.lifecycle('T1')).toBeUndefined();
      expect(await b.holds()).toEqual(new Map());
    }));

  it('an install after a purge began writes under the next generation; one before it calls the purge off', () =>
    withDirectory(async (a, b) => {
      await a.saveInstallation(installation('T1'));
      await a.removeTenant('T1', 1_000);
      // Installed again before the purge began: its data (generation 0) is its own again.
      await b.saveInstallation(installation('T1'));
      expect(await a.beginPurge('T1')).toBeUndefined();
      expect(await a.duePurges(Number.MAX_SAFE_INTEGER)).toEqual([]);
      expect((await a.lifecycle('T1'))?.generation).toBe(0);

      await a.removeTenant('T1', 1_000);
      expect(await b.beginPurge('T1')).toBe(0);
      // Installed again while that purge runs: a new key space, out of the purge's reach.
      await a.saveInstallation(installation('T1'));
      expect((await b.lifecycle('T1'))?.generation).toBe(1);
      // The purge resumed elsewhere (its lease lapsed) still deletes generation 0 only, then is done.
      expect(await a.beginPurge('T1')).toBe(0);
      await b.purged('T1', 0);
      expect(await a.duePurges(Number.MAX_SAFE_INTEGER)).toEqual([]);
      expect((await a.lifecycle('T1'))?.generation).toBe(1);
    }));

  it('an uninstall during a purge leaves its own purge due, for the newer generation', () =>
    withDirectory(async (a, b) => {
      await a.saveInstallation(installation('T1'));
      await a.removeTenant('T1', 1_000);
      expect(await a.beginPurge('T1')).toBe(0);
      await b.saveInstallation(installation('T1'));
      await b.removeTenant('T1', 2_000);
      await a.purged('T1', 0);
      expect(await a.duePurges(2_000)).toEqual(['T1']);
      expect(await b.beginPurge('T1')).toBe(1);
      await b.purged('T1', 1);
      expect(await a.duePurges(Number.MAX_SAFE_INTEGER)).toEqual([]);
    }));

  it('tokens saved late (Redis was refusing writes) lift a "needs re-install" set meanwhile, not a suspension', () =>
    withDirectory(async (a, b) => {
      await a.saveInstallation(installation('T1'));
      const { installId } = (await a.lifecycle('T1'))!;
      const tokens = { botToken: 'xoxb-late', refreshToken: 'xoxe-late', expiresAt: 1_900_000_000_000 };
      await b.hold('T1', { state: 'needs_reinstall', since: 1, reason: 'refused' }, installId);
      expect(await a.saveTokens('T1', tokens, installId)).toBe(true);
      expect((await b.lifecycle('T1'))?.hold).toBeUndefined();
      expect(await b.refreshesDue(Number.MAX_SAFE_INTEGER)).toEqual(['T1']);
      const suspended = {
        state: 'suspended' as const,
        since: 1,
        checks: 0,
        nextCheckAt: 2,
        code: 'invalid_auth',
      };
      await b.hold('T1', suspended, installId);
      expect(await a.saveTokens('T1', tokens, installId)).toBe(true);
      expect((await b.lifecycle('T1'))?.hold).toEqual(suspended);
    }));
}
