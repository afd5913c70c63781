import { AppError } from '../../common/errors.js';
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
import { guardState } from '../keyv-job-store.js';
import { closeRedis, type RedisClient } from './redis-client.js';
import {
  BEGIN_PURGE,
  DIRECTORY_KEYS,
  PURGED,
  REMOVE_TENANT,
  RESEAL_SETTINGS,
  RESEAL_VALUE,
  SAVE_INSTALLATION,
  SAVE_SETTINGS,
  SAVE_TOKENS,
  SET_HOLD,
} from './redis-tenant-scripts.js';

// Keys and the scripts that write them: ./redis-tenant-scripts.ts. Every secret is inside a sealed value;
// nothing in Redis is in clear but ids, names of keys, versions, generations and holds.

/** Slack's team and enterprise ids; anything else would let a key name reach into another record's keys. */
const TENANT_KEY = /^[A-Za-z0-9_-]{1,64}$/;

export class TenantKeyError extends AppError<'tenant_key_invalid'> {
  constructor() {
    super('tenant_key_invalid', 'a tenant key is not a Slack team or enterprise id');
  }
}

/** `TenantDirectory` in Redis, shared by every replica; secrets sealed with the SecretBox. */
export class RedisTenantDirectory implements TenantDirectory {
  constructor(
    private readonly client: RedisClient,
    /** Key prefix ending in `:` (the bot's namespace, e.g. `docs-agent:`). */
    private readonly prefix: string,
    private readonly box: SecretBox,
    /** Close the client on close() (when the directory has a connection of its own). */
    private readonly options: { ownsClient?: boolean } = {},
  ) {}

  async saveInstallation(installation: TenantInstallation, expectedStamp?: string): Promise<boolean> {
    const { tenant } = installation;
    const sealed = this.box.seal(JSON.stringify(installation), installationContext(tenant));
    const expiresAt = installation.refreshToken ? String(installation.expiresAt ?? '') : '';
    return this.write(SAVE_INSTALLATION, tenant, [sealed, expectedStamp ?? '', expiresAt]);
  }

  async saveTokens(tenant: TenantKey, tokens: TenantTokens, installId: string): Promise<boolean> {
    const sealed = this.box.seal(JSON.stringify(tokens), tokensContext(tenant));
    const expiresAt = tokens.refreshToken ? String(tokens.expiresAt ?? '') : '';
    return this.write(SAVE_TOKENS, tenant, [sealed, installId, expiresAt]);
  }

  async installation(tenant: TenantKey): Promise<TenantInstallation | undefined> {
    const [installation, tokens] = await Promise.all([
      this.openValue(this.installationKey(tenant), installationContext(tenant)),
      this.openValue(this.tokensKey(tenant), tokensContext(tenant)),
    ]);
    if (installation === undefined) return undefined;
    const stored = JSON.parse(installation) as TenantInstallation;
    return tokens === undefined ? stored : { ...stored, ...(JSON.parse(tokens) as TenantTokens) };
  }

  async lifecycle(tenant: TenantKey): Promise<TenantLifecycle | undefined> {
    checked(tenant);
    const [installed, installId, generation, hold] = await guardState(() =>
      Promise.all([
        this.client.hExists(this.key('tenants'), tenant),
        this.client.hGet(this.key('tenant-installs'), tenant),
        this.client.hGet(this.key('tenant-generations'), tenant),
        this.client.hGet(this.key('tenant-holds'), tenant),
      ]),
    );
    if (!installed) return undefined;
    return {
      // Installed before install ids were kept: '0', as the scripts take it.
      installId: installId ?? '0',
      generation: Number(generation ?? 0),
      hold: hold ? (JSON.parse(hold) as TenantHold) : undefined,
    };
  }

  async hold(tenant: TenantKey, hold: TenantHold | undefined, installId: string): Promise<boolean> {
    const unrefreshable = hold?.state === 'needs_reinstall' ? '1' : '';
    return this.write(SET_HOLD, tenant, [hold ? JSON.stringify(hold) : '', installId, unrefreshable]);
  }

  async holds(): Promise<Map<TenantKey, TenantHold>> {
    const all = await guardState(() => this.client.hGetAll(this.key('tenant-holds')));
    return new Map(
      Object.entries(all as Record<string, string>).map(([t, h]) => [t, JSON.parse(h) as TenantHold]),
    );
  }

  async refreshesDue(before: number): Promise<TenantKey[]> {
    return guardState(() => this.client.zRangeByScore(this.key('tenant-refresh-due'), '-inf', before));
  }

  async settings(tenant: TenantKey): Promise<TenantSettings> {
    const key = this.settingsKey(tenant);
    const stored = (await guardState(() => this.client.hGetAll(key))) as Record<string, string>;
    if (stored.value === undefined || stored.version === undefined) return { version: 0, projects: [] };
    const version = Number(stored.version);
    const context = settingsContext(tenant, version);
    const opened = this.box.open(stored.value, context);
    if (opened.sealedWithOldKey) {
      const resealed = this.box.seal(opened.value, context);
      await guardState(() =>
        this.client.eval(RESEAL_SETTINGS, { keys: [key], arguments: [stored.value!, resealed] }),
      );
    }
    return settingsFromBody(opened.value, version);
  }

  async saveSettings(
    tenant: TenantKey,
    next: Omit<TenantSettings, 'version'>,
    expectedVersion: number,
  ): Promise<boolean> {
    const version = expectedVersion + 1;
    const sealed = this.box.seal(settingsBody(next), settingsContext(tenant, version));
    return this.write(SAVE_SETTINGS, tenant, [String(expectedVersion), String(version), sealed]);
  }

  async stamps(): Promise<Map<TenantKey, string>> {
    const all = await guardState(() => this.client.hGetAll(this.key('tenants')));
    return new Map(Object.entries(all as Record<string, string>));
  }

  async stamp(tenant: TenantKey): Promise<string | undefined> {
    return (await guardState(() => this.client.hGet(this.key('tenants'), tenant))) ?? undefined;
  }

  async stampsOf(tenants: TenantKey[]): Promise<Array<string | undefined>> {
    if (tenants.length === 0) return [];
    const found = await guardState(() => this.client.hmGet(this.key('tenants'), tenants));
    return (found as Array<string | null>).map((stamp) => stamp ?? undefined);
  }

  async removeTenant(tenant: TenantKey, purgeAt: number, installId?: string): Promise<boolean> {
    return this.write(REMOVE_TENANT, tenant, [String(purgeAt), installId ?? '']);
  }

  async duePurges(now: number): Promise<TenantKey[]> {
    return guardState(() => this.client.zRangeByScore(this.key('tenant-purges'), '-inf', now));
  }

  async beginPurge(tenant: TenantKey): Promise<number | undefined> {
    const generation = Number(await this.run(BEGIN_PURGE, tenant, []));
    return generation < 0 ? undefined : generation;
  }

  async purged(tenant: TenantKey, generation: number): Promise<void> {
    await this.run(PURGED, tenant, [String(generation)]);
  }

  async lease(name: string, ttlMs: number): Promise<boolean> {
    const reply = await guardState(() =>
      this.client.set(this.key(`tenant-lease:${name}`), '1', {
        condition: 'NX',
        expiration: { type: 'PX', value: Math.max(1, Math.ceil(ttlMs)) },
      }),
    );
    return reply === 'OK';
  }

  async close(): Promise<void> {
    if (this.options.ownsClient) await closeRedis(this.client);
  }

  /** One of the directory's scripts over its keys and the tenant's (each adds to `tenant-changes`). */
  private async write(script: string, tenant: TenantKey, args: string[]): Promise<boolean> {
    return Number(await this.run(script, tenant, args)) !== 0;
  }

  private run(script: string, tenant: TenantKey, args: string[]): Promise<unknown> {
    const keys = [
      ...DIRECTORY_KEYS.map((name) => this.key(name)),
      this.installationKey(tenant),
      this.tokensKey(tenant),
      this.settingsKey(tenant),
    ];
    return guardState(() => this.client.eval(script, { keys, arguments: [tenant, ...args] }));
  }

  /** One sealed value, re-sealed in place when it was sealed with an earlier key. */
  private async openValue(key: string, context: string): Promise<string | undefined> {
    const sealed = await guardState(() => this.client.get(key));
    if (sealed === null) return undefined;
    const opened = this.box.open(sealed, context);
    if (opened.sealedWithOldKey) {
      const resealed = this.box.seal(opened.value, context);
      await guardState(() => this.client.eval(RESEAL_VALUE, { keys: [key], arguments: [sealed, resealed] }));
    }
    return opened.value;
  }

  private tokensKey(tenant: TenantKey): string {
    return this.key(`tenant:${checked(tenant)}:tokens`);
  }

  private installationKey(tenant: TenantKey): string {
    return this.key(`tenant:${checked(tenant)}:installation`);
  }

  private settingsKey(tenant: TenantKey): string {
    return this.key(`tenant:${checked(tenant)}:settings`);
  }

  private key(name: string): string {
    return this.prefix + name;
  }
}

/** Bound into each sealed value: it opens only as this tenant's installation or settings (at this version). */
const installationContext = (tenant: TenantKey) => `installation:${tenant}`;
const tokensContext = (tenant: TenantKey) => `tokens:${tenant}`;
const settingsContext = (tenant: TenantKey, version: number) => `settings:${tenant}:${version}`;

function checked(tenant: TenantKey): TenantKey {
  if (!TENANT_KEY.test(tenant)) throw new TenantKeyError();
  return tenant;
}
