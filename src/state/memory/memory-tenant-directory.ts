import type { SecretBox } from '../../common/secret-box.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import {
  settingsBody,
  settingsFromBody,
  type TenantHold,
  type TenantInstallation,
  type TenantKey,
  type TenantLifecycle,
  type TenantSettings,
  type TenantTokens,
} from '../../tenants/tenant.js';

/**
 * `TenantDirectory` in this process (memory mode: one process, installs lost on restart). It keeps what the
 * Redis directory keeps, sealed the same way (installation, refreshed tokens and settings each one sealed
 * value), so no clear secret sits in the directory's maps and both modes run the same sealing code; readers
 * get fresh copies. Each method is one synchronous step, as each Redis script is one step on the server.
 */
export class MemoryTenantDirectory implements TenantDirectory {
  private readonly installations = new Map<TenantKey, string>();
  private readonly tokensOf = new Map<TenantKey, string>();
  private readonly settingsOf = new Map<TenantKey, { version: number; sealed: string }>();
  private readonly stampOf = new Map<TenantKey, string>();
  private readonly installs = new Map<TenantKey, string>();
  private readonly holdOf = new Map<TenantKey, TenantHold>();
  private readonly generations = new Map<TenantKey, number>();
  private readonly purging = new Map<TenantKey, { generation: number; removals: number }>();
  private readonly removals = new Map<TenantKey, number>();
  private readonly purges = new Map<TenantKey, number>();
  private readonly refreshDue = new Map<TenantKey, number>();
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
    const stamp = this.bump(tenant);
    if (expectedStamp === undefined) {
      this.installs.set(tenant, stamp);
      this.holdOf.delete(tenant);
      this.tokensOf.delete(tenant);
    }
    // A re-install: its data is live again, so a purge that has not begun is called off.
    if (!this.purging.has(tenant)) this.purges.delete(tenant);
    this.indexRefresh(tenant, installation);
    return true;
  }

  async saveTokens(tenant: TenantKey, tokens: TenantTokens, installId: string): Promise<boolean> {
    if (this.installOf(tenant) !== installId) return false;
    this.tokensOf.set(tenant, this.box.seal(JSON.stringify(tokens), `tokens:${tenant}`));
    this.indexRefresh(tenant, tokens);
    // Fresh tokens can be renewed again: a "needs re-install" set meanwhile is lifted.
    if (this.holdOf.get(tenant)?.state === 'needs_reinstall') this.holdOf.delete(tenant);
    this.bump(tenant);
    return true;
  }

  async installation(tenant: TenantKey): Promise<TenantInstallation | undefined> {
    const installation = this.open(this.installations, tenant, `installation:${tenant}`);
    if (installation === undefined) return undefined;
    const tokens = this.open(this.tokensOf, tenant, `tokens:${tenant}`);
    const stored = JSON.parse(installation) as TenantInstallation;
    return tokens === undefined ? stored : { ...stored, ...(JSON.parse(tokens) as TenantTokens) };
  }

  async lifecycle(tenant: TenantKey): Promise<TenantLifecycle | undefined> {
    const installId = this.installOf(tenant);
    if (installId === undefined) return undefined;
    const hold = this.holdOf.get(tenant);
    return {
      installId,
      generation: this.generations.get(tenant) ?? 0,
      hold: hold ? structuredClone(hold) : undefined,
    };
  }

  async hold(tenant: TenantKey, hold: TenantHold | undefined, installId: string): Promise<boolean> {
    if (this.installOf(tenant) !== installId) return false;
    if (hold) this.holdOf.set(tenant, structuredClone(hold));
    else this.holdOf.delete(tenant);
    // Its token can no longer be refreshed: out of the refresh index until an install puts it back.
    if (hold?.state === 'needs_reinstall') this.refreshDue.delete(tenant);
    this.bump(tenant);
    return true;
  }

  async holds(): Promise<Map<TenantKey, TenantHold>> {
    return new Map([...this.holdOf].map(([tenant, hold]) => [tenant, structuredClone(hold)]));
  }

  async refreshesDue(before: number): Promise<TenantKey[]> {
    return [...this.refreshDue].filter(([, at]) => at <= before).map(([tenant]) => tenant);
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
    this.bump(tenant);
    return true;
  }

  async stamps(): Promise<Map<TenantKey, string>> {
    return new Map(this.stampOf);
  }

  async stamp(tenant: TenantKey): Promise<string | undefined> {
    return this.stampOf.get(tenant);
  }

  async stampsOf(tenants: TenantKey[]): Promise<Array<string | undefined>> {
    return tenants.map((tenant) => this.stampOf.get(tenant));
  }

  async removeTenant(tenant: TenantKey, purgeAt: number, installId?: string): Promise<boolean> {
    if (installId !== undefined && this.installOf(tenant) !== installId) return false;
    for (const map of [this.installations, this.tokensOf, this.settingsOf, this.stampOf, this.installs])
      map.delete(tenant);
    this.holdOf.delete(tenant);
    this.refreshDue.delete(tenant);
    this.removals.set(tenant, (this.removals.get(tenant) ?? 0) + 1);
    this.purges.set(tenant, purgeAt);
    return true;
  }

  async duePurges(now: number): Promise<TenantKey[]> {
    return [...this.purges].filter(([, at]) => at <= now).map(([tenant]) => tenant);
  }

  async beginPurge(tenant: TenantKey): Promise<number | undefined> {
    const under = this.purging.get(tenant);
    if (under) return under.generation;
    if (this.stampOf.has(tenant)) {
      this.purges.delete(tenant);
      return undefined;
    }
    const generation = this.generations.get(tenant) ?? 0;
    this.generations.set(tenant, generation + 1);
    this.purging.set(tenant, { generation, removals: this.removals.get(tenant) ?? 0 });
    return generation;
  }

  async purged(tenant: TenantKey, generation: number): Promise<void> {
    const under = this.purging.get(tenant);
    if (under?.generation !== generation) return;
    this.purging.delete(tenant);
    // An uninstall since the purge began leaves its own purge due.
    if ((this.removals.get(tenant) ?? 0) === under.removals) this.purges.delete(tenant);
  }

  async lease(name: string, ttlMs: number): Promise<boolean> {
    const now = this.now();
    for (const [held, until] of this.leases) if (until <= now) this.leases.delete(held);
    if (this.leases.has(name)) return false;
    this.leases.set(name, now + Math.max(1, Math.ceil(ttlMs)));
    return true;
  }

  async close(): Promise<void> {}

  /** Installs from before install ids were kept count as install '0' (as in Redis). */
  private installOf(tenant: TenantKey): string | undefined {
    return this.stampOf.has(tenant) ? (this.installs.get(tenant) ?? '0') : undefined;
  }

  private indexRefresh(tenant: TenantKey, tokens: Pick<TenantTokens, 'refreshToken' | 'expiresAt'>): void {
    if (tokens.refreshToken && tokens.expiresAt !== undefined) this.refreshDue.set(tenant, tokens.expiresAt);
    else this.refreshDue.delete(tenant);
  }

  private open(map: Map<TenantKey, string>, tenant: TenantKey, context: string): string | undefined {
    const sealed = map.get(tenant);
    if (sealed === undefined) return undefined;
    const opened = this.box.open(sealed, context);
    if (opened.sealedWithOldKey) map.set(tenant, this.box.seal(opened.value, context));
    return opened.value;
  }

  private bump(tenant: TenantKey): string {
    this.lastStamp += 1;
    const stamp = String(this.lastStamp);
    this.stampOf.set(tenant, stamp);
    return stamp;
  }
}
