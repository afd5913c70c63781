import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { APPLY_VIEW, DirectoryIndex, PENDING_GRACE_MS } from '../../src/state/redis/redis-directory-index.js';
import { directoryRecordPrefix, RedisTenantDirectory } from '../../src/state/redis/redis-tenant-directory.js';
import { installation, project, testBox } from '../contract/tenant-directory.contract.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/** A connection whose index updates fail: a process that stops between the record and the index. */
function failingIndex(client: RedisClient): RedisClient {
  return new Proxy(client, {
    get(target, property) {
      if (property === 'eval')
        return (script: string, options: Parameters<RedisClient['eval']>[1]) =>
          script === APPLY_VIEW ? Promise.reject(new Error('connection lost')) : target.eval(script, options);
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** Issue 43 §5 on one Redis node: records apart from the directory's index, the index kept to them. */
describe('the directory spread by tenant', () => {
  let redis: RedisServer;
  let client: RedisClient;
  let other: RedisClient;
  let now = 1_000_000;
  const clock = () => now;
  const box = testBox();
  let prefix: string;
  const directory = (on = client) => new RedisTenantDirectory(on, prefix, box, { now: clock });
  const indexed = async (name: string, tenant: string) => {
    if (name === 'tenants' || name === 'tenant-holds')
      return Boolean(await client.hExists(`${prefix}${name}`, tenant));
    return (await client.zScore(`${prefix}${name}`, tenant)) !== null;
  };

  beforeAll(async () => {
    redis = await startRedisServer();
    client = await connectRedis(redis.url, logger, { failFast: true });
    other = await connectRedis(redis.url, logger, { failFast: true });
  });
  afterAll(async () => {
    await closeRedis(client);
    await closeRedis(other);
    await redis?.stop();
  });
  beforeEach(() => {
    prefix = `spread-${randomUUID()}:`;
  });

  it('install, read by team, refresh due, uninstall: the record holds the secrets, the index only names', async () => {
    const d = directory();
    const saved = installation('T0ONE');
    await d.saveInstallation(saved);
    expect(await directory(other).installation('T0ONE')).toEqual(saved);
    expect(await d.refreshesDue(saved.expiresAt!)).toEqual(['T0ONE']);
    // A refresh's new expiry is what the upkeep finds next in the index.
    const { installId } = (await d.lifecycle('T0ONE'))!;
    const tokens = { botToken: 'xoxb-next', refreshToken: 'xoxe-next', expiresAt: saved.expiresAt! + 60_000 };
    expect(await directory(other).saveTokens('T0ONE', tokens, installId)).toBe(true);
    expect(await d.refreshesDue(saved.expiresAt!)).toEqual([]);
    expect(await d.refreshesDue(tokens.expiresAt)).toEqual(['T0ONE']);
    expect(await d.saveSettings('T0ONE', { projects: [project('p1')] }, 0)).toBe(true);
    // The index: a seq per installed tenant and when its token is due; no sealed value, no record.
    expect(await client.hGetAll(`${prefix}tenants`)).toEqual({ T0ONE: expect.stringMatching(/^\d+$/) });
    const indexKeys = await client.keys(`${prefix}*`);
    const record = directoryRecordPrefix(prefix, 'T0ONE');
    expect(indexKeys.filter((key) => !key.startsWith(record)).sort()).toEqual(
      ['tenant-changes', 'tenant-index-pending', 'tenant-refresh-due', 'tenants']
        .map((name) => prefix + name)
        .filter((key) => indexKeys.includes(key))
        .sort(),
    );
    expect(await client.exists(`${prefix}tenant-index-pending`)).toBe(0); // every intent dropped
    expect(await d.removeTenant('T0ONE', 5)).toBe(true);
    expect(await d.stamp('T0ONE')).toBeUndefined();
    expect(await d.installation('T0ONE')).toBeUndefined();
    expect(await d.refreshesDue(Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(await d.duePurges(5)).toEqual(['T0ONE']);
    expect(await indexed('tenants', 'T0ONE')).toBe(false);
    // The purge done: nothing of the tenant is left in the index.
    const generation = await d.beginPurge('T0ONE');
    await d.purged('T0ONE', generation!);
    expect(await d.duePurges(Number.MAX_SAFE_INTEGER)).toEqual([]);
    expect(await client.hLen(`${prefix}tenant-removed`)).toBe(0);
  });

  it('a write stopped between its record and the index: the record decides, the repair catches the index up', async () => {
    const stopped = directory(failingIndex(other));
    const d = directory();
    await expect(stopped.saveInstallation(installation('T0HALF'))).rejects.toThrow();
    // Installed (its record says so), though the index does not list it yet.
    expect(await d.stamp('T0HALF')).toBeDefined();
    expect(await indexed('tenant-refresh-due', 'T0HALF')).toBe(false);
    expect(await d.repairIndex()).toBe(0); // the write may still be under way: its intent is left alone
    now += PENDING_GRACE_MS + 1;
    await d.duePurges(now); // the upkeep's tick repairs
    expect(await indexed('tenants', 'T0HALF')).toBe(true);
    expect(await d.refreshesDue(Number.MAX_SAFE_INTEGER)).toEqual(['T0HALF']);
    expect([...(await d.stamps()).keys()]).toEqual(['T0HALF']);

    // An uninstall stopped half-way: the index still names it, but nobody takes it for installed.
    await expect(stopped.removeTenant('T0HALF', 7)).rejects.toThrow();
    expect(await indexed('tenants', 'T0HALF')).toBe(true);
    expect(await d.stamps()).toEqual(new Map());
    expect(await d.lifecycle('T0HALF')).toBeUndefined();
    now += PENDING_GRACE_MS + 1;
    await d.duePurges(now);
    expect(await indexed('tenants', 'T0HALF')).toBe(false);
    expect(await indexed('tenant-refresh-due', 'T0HALF')).toBe(false);
    expect(await d.duePurges(now)).toEqual(['T0HALF']);
    expect(await client.zCard(`${prefix}tenant-index-pending`)).toBe(0);
  });

  it('an older view arriving after a newer one changes nothing (two replicas’ updates out of order)', async () => {
    const index = new DirectoryIndex(client, prefix, clock);
    expect(await index.apply('T0RACE', ['6', '', '', '', '9'])).toBe(true); // uninstalled, purge due
    expect(await index.apply('T0RACE', ['5', '5.T0RACE', '', '100', ''])).toBe(false); // the install before it
    expect(await indexed('tenants', 'T0RACE')).toBe(false);
    expect(await indexed('tenant-refresh-due', 'T0RACE')).toBe(false);
    expect(await indexed('tenant-purges', 'T0RACE')).toBe(true);
  });

  it('two replicas racing installs, refreshes, holds and uninstalls leave the index as the records say', async () => {
    const [a, b] = [directory(), directory(other)];
    const tenants = Array.from({ length: 20 }, (_, i) => `T0R${i}`);
    await Promise.all(
      tenants.flatMap((tenant, i) => [
        a.saveInstallation(installation(tenant, { expiresAt: 1_000 + i })),
        b.saveInstallation(installation(tenant, { expiresAt: 2_000 + i })),
        (async () => {
          const lifecycle = await a.lifecycle(tenant);
          if (lifecycle)
            await b.hold(tenant, { state: 'needs_reinstall', since: 1, reason: 'x' }, lifecycle.installId);
        })(),
        i % 2 === 0 ? b.removeTenant(tenant, 50) : a.saveSettings(tenant, { projects: [] }, 0),
      ]),
    );
    for (const tenant of tenants) {
      const lifecycle = await a.lifecycle(tenant);
      const state = await client.hGetAll(`${directoryRecordPrefix(prefix, tenant)}state`);
      expect(await indexed('tenants', tenant)).toBe(lifecycle !== undefined);
      expect(await indexed('tenant-holds', tenant)).toBe(lifecycle?.hold !== undefined);
      expect(await client.zScore(`${prefix}tenant-refresh-due`, tenant)).toBe(
        state.due === undefined ? null : Number(state.due),
      );
      expect(await indexed('tenant-purges', tenant)).toBe(state.purgeAt !== undefined);
    }
    expect(await client.zCard(`${prefix}tenant-index-pending`)).toBe(0);
  });
});
