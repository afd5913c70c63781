import type { TenantInstallation, TenantKey, TenantSettings } from './tenant.js';

/**
 * Every installed tenant, its installation and its settings, shared by all replicas (Redis) or kept in this
 * process (memory). Secrets are encrypted at rest (AES-256-GCM, key id stored with each value).
 */
export interface TenantDirectory {
  /**
   * Saves (or replaces, on a re-install) an installation; the tenant's stamp changes. With `expectedStamp`
   * (a token refresh: read the stamp, refresh, save) it saves only while the stamp is still that one, so a
   * refresh never brings back an uninstalled tenant's secrets nor overwrites a re-install or another save.
   * True when saved (always, without `expectedStamp`).
   */
  saveInstallation(installation: TenantInstallation, expectedStamp?: string): Promise<boolean>;
  installation(tenant: TenantKey): Promise<TenantInstallation | undefined>;
  settings(tenant: TenantKey): Promise<TenantSettings>;
  /** Saves when the stored version is still `expectedVersion` (false otherwise); the stamp changes. */
  saveSettings(
    tenant: TenantKey,
    next: Omit<TenantSettings, 'version'>,
    expectedVersion: number,
  ): Promise<boolean>;
  /** Every installed tenant and a stamp that changes whenever its installation or settings change. */
  stamps(): Promise<Map<TenantKey, string>>;
  /** One tenant's stamp (undefined once uninstalled): whether a runtime's copy is still current. */
  stamp(tenant: TenantKey): Promise<string | undefined>;
  /**
   * Uninstall: the installation and settings (every secret) are deleted at once, the tenant leaves `stamps()`,
   * and its other data is due for purging at `purgeAt`.
   */
  removeTenant(tenant: TenantKey, purgeAt: number): Promise<void>;
  /** Tenants whose data is due for purging (removed, `purgeAt` passed). */
  duePurges(now: number): Promise<TenantKey[]>;
  /** The purge of this tenant's data is done. */
  purged(tenant: TenantKey): Promise<void>;
  /** One holder at a time across replicas (token refresh, purge) for `ttlMs`; false when someone holds it. */
  lease(name: string, ttlMs: number): Promise<boolean>;
  close(): Promise<void>;
}
