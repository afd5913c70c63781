import { AppError } from '../../common/errors.js';
import type { SecretBox } from '../../common/secret-box.js';
import type { TenantDirectory } from '../../tenants/ports.js';
import {
  settingsBody,
  settingsFromBody,
  type TenantInstallation,
  type TenantKey,
  type TenantSettings,
} from '../../tenants/tenant.js';
import { guardState } from '../keyv-job-store.js';
import { closeRedis, type RedisClient } from './redis-client.js';

/*
 * Keys (all under the prefix): `tenants` (hash tenant → stamp), `tenant:<key>:installation` (one sealed value),
 * `tenant:<key>:settings` (hash: version, value = one sealed value), `tenant-stamp` (counter: stamps never
 * repeat, not even after a re-install), `tenant-purges` (zset tenant → purgeAt), `tenant-lease:<name>`.
 * Every secret is inside a sealed value; nothing in Redis is in clear but ids, names of keys and versions.
 */

/**
 * A re-install replaces the installation (settings stay) and calls off a pending purge: its data is live again.
 * A token refresh passes the stamp it read (ARGV[3]) and saves only while it is still the tenant's stamp.
 */
const SAVE_INSTALLATION = `
if ARGV[3] ~= '' and redis.call('HGET', KEYS[2], ARGV[1]) ~= ARGV[3] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
local stamp = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[2], ARGV[1], stamp)
redis.call('ZREM', KEYS[4], ARGV[1])
return stamp
`;

/**
 * The version check and the write in one step on the server, so of two replicas saving over the same version
 * exactly one wins. An uninstalled tenant takes no settings (its secrets would outlive the uninstall).
 */
const SAVE_SETTINGS = `
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return 0 end
local current = tonumber(redis.call('HGET', KEYS[1], 'version') or '0')
if current ~= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'version', ARGV[3], 'value', ARGV[4])
local stamp = redis.call('INCR', KEYS[3])
redis.call('HSET', KEYS[2], ARGV[1], stamp)
return 1
`;

/** Re-sealing (key rotation) only replaces the exact value that was read: a save in between wins. */
const RESEAL_INSTALLATION = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[1], ARGV[2])
return 1
`;

const RESEAL_SETTINGS = `
if redis.call('HGET', KEYS[1], 'value') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'value', ARGV[2])
return 1
`;

/** The Pub/Sub channel (under the prefix) on which every write to the directory is announced. */
export const CHANGES_CHANNEL = 'changes';

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
    const stamp = await guardState(() =>
      this.client.eval(SAVE_INSTALLATION, {
        keys: [
          this.installationKey(tenant),
          this.key('tenants'),
          this.key('tenant-stamp'),
          this.key('tenant-purges'),
        ],
        arguments: [tenant, sealed, expectedStamp ?? ''],
      }),
    );
    if (stamp !== 0) this.announce();
    return stamp !== 0;
  }

  async installation(tenant: TenantKey): Promise<TenantInstallation | undefined> {
    const key = this.installationKey(tenant);
    const sealed = await guardState(() => this.client.get(key));
    if (sealed === null) return undefined;
    const context = installationContext(tenant);
    const opened = this.box.open(sealed, context);
    if (opened.sealedWithOldKey) {
      const resealed = this.box.seal(opened.value, context);
      await guardState(() =>
        this.client.eval(RESEAL_INSTALLATION, { keys: [key], arguments: [sealed, resealed] }),
      );
    }
    return JSON.parse(opened.value) as TenantInstallation;
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
    const saved = await guardState(() =>
      this.client.eval(SAVE_SETTINGS, {
        keys: [this.settingsKey(tenant), this.key('tenants'), this.key('tenant-stamp')],
        arguments: [tenant, String(expectedVersion), String(version), sealed],
      }),
    );
    if (saved === 1) this.announce();
    return saved === 1;
  }

  async stamps(): Promise<Map<TenantKey, string>> {
    const all = await guardState(() => this.client.hGetAll(this.key('tenants')));
    return new Map(Object.entries(all as Record<string, string>));
  }

  async stamp(tenant: TenantKey): Promise<string | undefined> {
    return (await guardState(() => this.client.hGet(this.key('tenants'), tenant))) ?? undefined;
  }

  async removeTenant(tenant: TenantKey, purgeAt: number): Promise<void> {
    const installation = this.installationKey(tenant);
    const settings = this.settingsKey(tenant);
    // MULTI/EXEC: the secrets, the stamp and the purge entry go together or not at all.
    await guardState(() =>
      this.client
        .multi()
        .del([installation, settings])
        .hDel(this.key('tenants'), tenant)
        .zAdd(this.key('tenant-purges'), { score: purgeAt, value: tenant })
        .exec(),
    );
    this.announce();
  }

  async duePurges(now: number): Promise<TenantKey[]> {
    return guardState(() => this.client.zRangeByScore(this.key('tenant-purges'), '-inf', now));
  }

  async purged(tenant: TenantKey): Promise<void> {
    await guardState(() => this.client.zRem(this.key('tenant-purges'), tenant));
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

  /**
   * Tells every replica the directory changed (an install, a refreshed token, settings, an uninstall), so
   * each reads it now rather than at its next sync. Best effort: a lost message waits for that sync.
   */
  private announce(): void {
    this.client.publish(this.key(CHANGES_CHANNEL), '1').catch(() => undefined);
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
const settingsContext = (tenant: TenantKey, version: number) => `settings:${tenant}:${version}`;

function checked(tenant: TenantKey): TenantKey {
  if (!TENANT_KEY.test(tenant)) throw new TenantKeyError();
  return tenant;
}
