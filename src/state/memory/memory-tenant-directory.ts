import type { SecretBox } from '../../common/secret-box.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import {
  settingsBody,
  settingsFromBody,
  type TenantInstallation,
  type TenantKey,
  type TenantSettings,
} from '../../tenants/tenant.js';

/**
 * `TenantDirectory` in this process (memory mode: one process, installs lost on restart). It keeps what the
 * Redis directory keeps, sealed the same way (installation and settings each one sealed value), so no clear
 * secret sits in the directory's maps and both modes run the same sealing code; readers get fresh copies.
 */
export class MemoryTenantDirectory implements TenantDirectory {
  private readonly installations = new Map<TenantKey, string>();
  private readonly settingsOf = new Map<TenantKey, { version: number; sealed: string }>();
  private readonly stampOf = new Map<TenantKey, string>();
  private readonly purges = new Map<TenantKey, number>();
  private readonly leases = new Map<string, number>();
  private lastStamp = 0;

  constructor(
    private readonly box: SecretBox,
    private readonly now: () => number = Date.now,
  ) {}

  async saveInstallation(installation: TenantInstallation, expectedStamp?: string): Promise<boolean> {
    const { tenant } = installation;
    if (expectedStamp !== undefined && this.stampOf.get(tenant) !== expectedStamp) return false;
    this.installations.set(tenant, this.box.seal(JSON.stringify(installation), `installation:${tenant}`));
    this.stampOf.set(tenant, this.nextStamp());
    // A re-install: its data is live again, so the pending purge of the earlier install is called off.
    this.purges.delete(tenant);
    return true;
  }

  async installation(tenant: TenantKey): Promise<TenantInstallation | undefined> {
    const sealed = this.installations.get(tenant);
    if (sealed === undefined) return undefined;
    const context = `installation:${tenant}`;
    const opened = this.box.open(sealed, context);
    if (opened.sealedWithOldKey) this.installations.set(tenant, this.box.seal(opened.value, context));
    return JSON.parse(opened.value) as TenantInstallation;
  }

  async settings(tenant: TenantKey): Promise<TenantSettings> {
    const stored = this.settingsOf.get(tenant);
    if (!stored) return { version: 0, projects: [] };
    const context = `settings:${tenant}:${stored.version}`;
    const opened = this.box.open(stored.sealed, context);
    if (opened.sealedWithOldKey) stored.sealed = this.box.seal(opened.value, context);
    return settingsFromBody(opened.value, stored.version);
  }

  async saveSettings(
    tenant: TenantKey,
    next: Omit<TenantSettings, 'version'>,
    expectedVersion: number,
  ): Promise<boolean> {
    // An uninstalled tenant takes no settings: its secrets would outlive the uninstall.
    if (!this.stampOf.has(tenant)) return false;
    if ((this.settingsOf.get(tenant)?.version ?? 0) !== expectedVersion) return false;
    const version = expectedVersion + 1;
    const sealed = this.box.seal(settingsBody(next), `settings:${tenant}:${version}`);
    this.settingsOf.set(tenant, { version, sealed });
    this.stampOf.set(tenant, this.nextStamp());
    return true;
  }

  async stamps(): Promise<Map<TenantKey, string>> {
    return new Map(this.stampOf);
  }

  async stamp(tenant: TenantKey): Promise<string | undefined> {
    return this.stampOf.get(tenant);
  }

  async removeTenant(tenant: TenantKey, purgeAt: number): Promise<void> {
    this.installations.delete(tenant);
    this.settingsOf.delete(tenant);
    this.stampOf.delete(tenant);
    this.purges.set(tenant, purgeAt);
  }

  async duePurges(now: number): Promise<TenantKey[]> {
    return [...this.purges].filter(([, at]) => at <= now).map(([tenant]) => tenant);
  }

  async purged(tenant: TenantKey): Promise<void> {
    this.purges.delete(tenant);
  }

  async lease(name: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    for (const [held, until] of this.leases) if (until <= now) this.leases.delete(held);
    if (this.leases.has(name)) return false;
    this.leases.set(name, now + Math.max(1, Math.ceil(ttlMs)));
    return true;
  }

  async close(): Promise<void> {}

  private nextStamp(): string {
    this.lastStamp += 1;
    return String(this.lastStamp);
  }
}
