import type { ScopeOptions, TenantScope } from '../../src/composition/docs-agent.js';
import type { TenantDirectory } from '../../src/tenants/ports.js';
import {
  NO_SETTINGS,
  type TenantHold,
  type TenantInstallation,
  type TenantKey,
  type TenantSettings,
} from '../../src/tenants/tenant.js';

/**
 * A TenantDirectory kept in Maps, for tests of one tenant's runtime (the real memory and Redis ones are
 * tested on their own). Saves are checked against the stored version, as the port requires.
 */
export class MapTenantDirectory implements TenantDirectory {
  readonly installations = new Map<TenantKey, TenantInstallation>();
  readonly stored = new Map<TenantKey, TenantSettings>();
  /** Every save asked for, accepted or not. */
  readonly saves: Array<{ tenant: TenantKey; expectedVersion: number; accepted: boolean }> = [];
  /** Runs before a save is checked (a test saves in between to lose the race). */
  beforeSave: (() => Promise<void>) | undefined;
  /** Makes reads and saves fail (the store away). */
  failing = false;

  /** Always saves (no stamp to check against here). */
  async saveInstallation(installation: TenantInstallation): Promise<boolean> {
    this.installations.set(installation.tenant, installation);
    return true;
  }

  async installation(tenant: TenantKey): Promise<TenantInstallation | undefined> {
    return this.installations.get(tenant);
  }

  async settings(tenant: TenantKey): Promise<TenantSettings> {
    if (this.failing) throw Object.assign(new Error('store away'), { code: 'state_unavailable' });
    return structuredClone(this.stored.get(tenant) ?? NO_SETTINGS);
  }

  async saveSettings(
    tenant: TenantKey,
    next: Omit<TenantSettings, 'version'>,
    expectedVersion: number,
  ): Promise<boolean> {
    const hook = this.beforeSave;
    this.beforeSave = undefined;
    await hook?.();
    if (this.failing) throw Object.assign(new Error('store away'), { code: 'state_unavailable' });
    const version = this.stored.get(tenant)?.version ?? 0;
    const accepted = version === expectedVersion;
    this.saves.push({ tenant, expectedVersion, accepted });
    if (accepted) this.stored.set(tenant, { ...structuredClone(next), version: version + 1 });
    return accepted;
  }

  async stamps(): Promise<Map<TenantKey, string>> {
    return new Map([...this.installations.keys()].map((t) => [t, String(this.stored.get(t)?.version ?? 0)]));
  }

  async stamp(tenant: TenantKey): Promise<string | undefined> {
    return (await this.stamps()).get(tenant);
  }

  async stampsOf(tenants: TenantKey[]): Promise<Array<string | undefined>> {
    const all = await this.stamps();
    return tenants.map((tenant) => all.get(tenant));
  }

  async removeTenant(tenant: TenantKey): Promise<boolean> {
    this.installations.delete(tenant);
    this.stored.delete(tenant);
    return true;
  }

  async duePurges(): Promise<TenantKey[]> {
    return [];
  }

  async purged(): Promise<void> {}

  // The life-cycle side (refresh, holds, purges) is tested on the real directories; one runtime needs none.
  async saveTokens(): Promise<boolean> {
    return false;
  }

  async lifecycle(tenant: TenantKey) {
    return this.installations.has(tenant) ? { installId: '1', generation: 0, hold: undefined } : undefined;
  }

  async hold(): Promise<boolean> {
    return false;
  }

  async holds(): Promise<Map<TenantKey, TenantHold>> {
    return new Map();
  }

  async refreshesDue(): Promise<TenantKey[]> {
    return [];
  }

  async beginPurge(): Promise<number | undefined> {
    return undefined;
  }

  async lease(): Promise<boolean> {
    return true;
  }

  async close(): Promise<void> {}
}

export const TEST_TENANT = 'T0TEAM';
export const INSTALLER_ID = 'U0INSTALLER';

/** A tenant scope for `startTestApp({ agentOptions: { tenant } })`: its directory, and the changes it saw. */
export function testTenant(settings: TenantSettings = NO_SETTINGS): {
  scope: NonNullable<ScopeOptions['tenant']>;
  directory: MapTenantDirectory;
  changes: number[];
} {
  const directory = new MapTenantDirectory();
  const installation: TenantInstallation = {
    tenant: TEST_TENANT,
    teamId: TEST_TENANT,
    enterpriseId: undefined,
    isEnterpriseInstall: false,
    name: 'Acme',
    botToken: 'xoxb-test-0000000000-0000000000000-faketoken',
    botUserId: 'U0DOCSBOT',
    botId: 'B0DOCSBOT',
    refreshToken: undefined,
    expiresAt: undefined,
    installerUserId: INSTALLER_ID,
    scopes: ['commands', 'chat:write'],
    appId: 'A0DOCSAGENT',
    installedAt: Date.now(),
  };
  directory.installations.set(TEST_TENANT, installation);
  if (settings.projects.length > 0) directory.stored.set(TEST_TENANT, settings);
  const changes: number[] = [];
  const scope: TenantScope = {
    key: TEST_TENANT,
    directory,
    installation,
    settings,
    changed: () => changes.push(Date.now()),
  };
  return { scope, directory, changes };
}
