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
import { DirectoryIndex, type IndexView } from './redis-directory-index.js';
import {
  BEGIN_PURGE,
  PURGED,
  READ_VIEW,
  RECORD_KEYS,
  REMOVE_TENANT,
  RESEAL_SETTINGS,
  RESEAL_VALUE,
  SAVE_INSTALLATION,
  SAVE_SETTINGS,
  SAVE_TOKENS,
  SET_HOLD,
} from './redis-tenant-scripts.js';

// Each install's record and the scripts that write it: ./redis-tenant-scripts.ts; the directory's small
// index: ./redis-directory-index.ts. Every secret is inside a sealed value; nothing in Redis is in clear but
// ids, names of keys, versions, generations and holds.

/** Slack's team and enterprise ids; anything else would let a key name reach into another record's keys. */
const TENANT_KEY = /^[A-Za-z0-9_-]{1,64}$/;

export class TenantKeyError extends AppError<'tenant_key_invalid'> {
  constructor() {
    super('tenant_key_invalid', 'a tenant key is not a Slack team or enterprise id');
  }
}

/**
 * Where one tenant's record lives: under the directory's prefix without its hash tag, with the tenant's tag
 * instead when the prefix has one (a Redis Cluster: the record sits in the slot of the tenant's other keys,
 * not in the directory's). On one node it is where records always were (`docs-agent:directory:tenant:T:`).
 */
export function directoryRecordPrefix(directoryPrefix: string, tenant: TenantKey): string {
  const cluster = directoryPrefix.includes('{');
  const root = directoryPrefix.replace(/[{}]/g, '');
  return `${root}tenant:${cluster ? `{${checked(tenant)}}` : checked(tenant)}:`;
}

/** `TenantDirectory` in Redis, shared by every replica; secrets sealed with the SecretBox. */
export class RedisTenantDirectory implements TenantDirectory {
  private readonly index: DirectoryIndex;

  constructor(
    private readonly client: RedisClient,
    /** Key prefix ending in `:` (the bot's namespace, e.g. `docs-agent:`). */
    private readonly prefix: string,
    private readonly box: SecretBox,
    /** Close the client on close() (when the directory has a connection of its own). */
    private readonly options: { ownsClient?: boolean; now?: () => number } = {},
  ) {
    this.index = new DirectoryIndex(client, prefix, options.now);
  }

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
      this.openValue(this.recordKey(tenant, 'installation'), installationContext(tenant)),
      this.openValue(this.recordKey(tenant, 'tokens'), tokensContext(tenant)),
    ]);
    if (installation === undefined) return undefined;
    const stored = JSON.parse(installation) as TenantInstallation;
    return tokens === undefined ? stored : { ...stored, ...(JSON.parse(tokens) as TenantTokens) };
  }

  async lifecycle(tenant: TenantKey): Promise<TenantLifecycle | undefined> {
    const [stamp, installId, generation, hold] = (await guardState(() =>
      this.client.hmGet(this.recordKey(tenant, 'state'), ['stamp', 'install', 'generation', 'hold']),
    )) as Array<string | null>;
    if (!stamp) return undefined;
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

  /** From the index (the upkeep reads each one's record before it acts on it). */
  async holds(): Promise<Map<TenantKey, TenantHold>> {
    const all = await guardState(() => this.client.hGetAll(this.index.key('tenant-holds')));
    return new Map(
      Object.entries(all as Record<string, string>).map(([t, h]) => [t, JSON.parse(h) as TenantHold]),
    );
  }

  /** From the index (the refresh reads the record before it acts). */
  async refreshesDue(before: number): Promise<TenantKey[]> {
    return guardState(() => this.client.zRangeByScore(this.index.key('tenant-refresh-due'), '-inf', before));
  }

  async settings(tenant: TenantKey): Promise<TenantSettings> {
    const key = this.recordKey(tenant, 'settings');
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

  /** The index names the installed tenants; their records say their stamps (an entry without one is left out). */
  async stamps(): Promise<Map<TenantKey, string>> {
    const listed = Object.keys(
      (await guardState(() => this.client.hGetAll(this.index.key('tenants')))) as Record<string, string>,
    );
    const stamps = new Map<TenantKey, string>();
    for (let i = 0; i < listed.length; i += 1_000) {
      const batch = listed.slice(i, i + 1_000);
      for (const [j, stamp] of (await this.stampsOf(batch)).entries())
        if (stamp !== undefined) stamps.set(batch[j]!, stamp);
    }
    return stamps;
  }

  async stamp(tenant: TenantKey): Promise<string | undefined> {
    return (await guardState(() => this.client.hGet(this.recordKey(tenant, 'state'), 'stamp'))) ?? undefined;
  }

  /** One read per tenant, each on its record's node (sent together: one round trip per node). */
  async stampsOf(tenants: TenantKey[]): Promise<Array<string | undefined>> {
    return Promise.all(tenants.map((tenant) => this.stamp(tenant)));
  }

  async removeTenant(tenant: TenantKey, purgeAt: number, installId?: string): Promise<boolean> {
    return this.write(REMOVE_TENANT, tenant, [String(purgeAt), installId ?? '']);
  }

  /** From the index; first repairs the entries a write that stopped half-way left (the upkeep's tick). */
  async duePurges(now: number): Promise<TenantKey[]> {
    await this.repairIndex();
    return guardState(() => this.client.zRangeByScore(this.index.key('tenant-purges'), '-inf', now));
  }

  async beginPurge(tenant: TenantKey): Promise<number | undefined> {
    const generation = await this.writeRecord(BEGIN_PURGE, tenant, []);
    return generation < 0 ? undefined : generation;
  }

  async purged(tenant: TenantKey, generation: number): Promise<void> {
    await this.writeRecord(PURGED, tenant, [String(generation)]);
  }

  /** Brings the index up to the records a stopped write left it behind; resolves how many it looked at. */
  repairIndex(): Promise<number> {
    return this.index.repair((tenant) => this.view(tenant));
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

  /** A write of the tenant's record that readers see (replicas follow the index's `tenant-changes` stream). */
  private async write(script: string, tenant: TenantKey, args: string[]): Promise<boolean> {
    return (await this.writeRecord(script, tenant, args)) !== 0;
  }

  /**
   * Intent, record, index: the record's script is one step in the tenant's slot, then the index is brought
   * up to the view it answered (its own slot). Resolves the script's result (0: refused, nothing written).
   */
  private async writeRecord(script: string, tenant: TenantKey, args: string[]): Promise<number> {
    const keys = this.recordKeys(tenant);
    const intent = await this.index.intend(tenant);
    const reply = (await guardState(() =>
      this.client.eval(script, { keys, arguments: [tenant, ...args] }),
    )) as unknown[];
    const result = Number(reply[0]);
    if (reply.length < 6) {
      // Refused, or a purge that resumes: the record did not change, nor does the index.
      await this.index.drop(intent);
      return result;
    }
    await this.index.apply(tenant, reply.slice(1).map(String) as IndexView, intent);
    return result;
  }

  /** The record's index view as it is now. */
  private async view(tenant: TenantKey): Promise<IndexView> {
    const keys = this.recordKeys(tenant);
    const reply = (await guardState(() =>
      this.client.eval(READ_VIEW, { keys, arguments: [tenant] }),
    )) as unknown[];
    return reply.slice(1).map(String) as IndexView;
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

  private recordKeys(tenant: TenantKey): string[] {
    return RECORD_KEYS.map((name) => this.recordKey(tenant, name));
  }

  private recordKey(tenant: TenantKey, name: (typeof RECORD_KEYS)[number]): string {
    return directoryRecordPrefix(this.prefix, tenant) + name;
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
