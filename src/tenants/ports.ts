import { AppError } from '../common/errors.js';
import type {
  TenantHold,
  TenantInstallation,
  TenantKey,
  TenantLifecycle,
  TenantSettings,
  TenantTokens,
} from './tenant.js';

/**
 * Every installed tenant, its installation and its settings, shared by all replicas (Redis) or kept in this
 * process (memory). Secrets are encrypted at rest (AES-256-GCM, key id stored with each value).
 */
export interface TenantDirectory {
  /**
   * Saves (or replaces, on a re-install) an installation; the tenant's stamp changes. With `expectedStamp`
   * (a token refresh: read the stamp, refresh, save) it saves only while the stamp is still that one, so a
   * refresh never brings back an uninstalled tenant's secrets nor overwrites a re-install or another save.
   * True when saved (always, without `expectedStamp`). Without `expectedStamp` it is an install: a new
   * install id, refreshed tokens of the earlier install dropped, any hold lifted.
   */
  saveInstallation(installation: TenantInstallation, expectedStamp?: string): Promise<boolean>;
  /** The installation, with the tokens of its latest refresh when there was one. */
  installation(tenant: TenantKey): Promise<TenantInstallation | undefined>;
  /**
   * A refresh's new tokens, saved apart from the installation and the settings (a settings save never
   * overwrites them, nor makes them fail), while `installId` is still the tenant's install; the stamp changes.
   */
  saveTokens(tenant: TenantKey, tokens: TenantTokens, installId: string): Promise<boolean>;
  /** Install id, key-space generation and hold of an installed tenant (undefined when not installed). */
  lifecycle(tenant: TenantKey): Promise<TenantLifecycle | undefined>;
  /** Puts a tenant on hold or lifts it (undefined), while `installId` is its install; the stamp changes. */
  hold(tenant: TenantKey, hold: TenantHold | undefined, installId: string): Promise<boolean>;
  /** Every tenant on hold. */
  holds(): Promise<Map<TenantKey, TenantHold>>;
  /** Tenants whose rotating token expires before `before` (ms): a read of the due ones only. */
  refreshesDue(before: number): Promise<TenantKey[]>;
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
  /** Several tenants' stamps in one read (a replica re-reads those it holds), in the order asked. */
  stampsOf(tenants: TenantKey[]): Promise<Array<string | undefined>>;
  /**
   * Uninstall: the installation and settings (every secret) are deleted at once, the tenant leaves `stamps()`,
   * and its other data is due for purging at `purgeAt`. With `installId`, only while that is still its
   * install (one step in the store: a re-install a moment ago is never deleted). True when removed.
   */
  removeTenant(tenant: TenantKey, purgeAt: number, installId?: string): Promise<boolean>;
  /** Tenants whose data is due for purging (removed, `purgeAt` passed). */
  duePurges(now: number): Promise<TenantKey[]>;
  /**
   * Starts (or resumes) a due purge: the key-space generation to delete, from then on never installed into
   * again (an install meanwhile gets the next one). Undefined: installed again before it began, purge off.
   */
  beginPurge(tenant: TenantKey): Promise<number | undefined>;
  /** The purge of this generation of the tenant's data is done (one due since, for a later uninstall, stays). */
  purged(tenant: TenantKey, generation: number): Promise<void>;
  /** One holder at a time across replicas (token refresh, purge) for `ttlMs`; false when someone holds it. */
  lease(name: string, ttlMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * The directory could not say which install a request is for (Redis refused or did not answer in time):
 * not taken for "not installed". The front door answers it 503, so Slack delivers the event again.
 */
export class DirectoryUnreadableError extends AppError<'directory_unreadable'> {
  constructor() {
    super(
      'directory_unreadable',
      'the tenant directory did not answer; the request is refused so that Slack retries it',
    );
  }
}
