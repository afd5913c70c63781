import { randomBytes, randomUUID } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { errorCode } from '../../src/common/errors.js';
import { createLogger } from '../../src/common/logger.js';
import { SecretBox } from '../../src/common/secret-box.js';
import { MemoryTenantDirectory } from '../../src/state/memory/memory-tenant-directory.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisTenantDirectory } from '../../src/state/redis/redis-tenant-directory.js';
import {
  installation,
  project,
  tenantDirectoryContract,
  testBox,
} from '../contract/tenant-directory.contract.js';
import { tenantLifecycleContract } from '../contract/tenant-lifecycle.contract.js';
import { redisForReplicas } from '../support/redis-replicas.js';
import { startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });

describe('memory tenant directory', () => {
  const memory = async (box: SecretBox) => {
    const directory = new MemoryTenantDirectory(box);
    return {
      replicas: [directory, directory] as [MemoryTenantDirectory, MemoryTenantDirectory],
      close: () => directory.close(),
    };
  };
  tenantDirectoryContract(memory);
  tenantLifecycleContract(memory);
});

describe('redis tenant directory', () => {
  const redis = redisForReplicas();
  /** Every replica's connection, latest last (closed by `redisForReplicas`). */
  const clients: RedisClient[] = [];

  /** A directory on its own connection (one replica). */
  async function replica(prefix: string, box: SecretBox): Promise<RedisTenantDirectory> {
    const client = await redis.replica();
    clients.push(client);
    return new RedisTenantDirectory(client, prefix, box);
  }

  const replicasOnOneRedis = async (box: SecretBox) => {
    const prefix = `t-${randomUUID()}:`;
    const replicas: [RedisTenantDirectory, RedisTenantDirectory] = [
      await replica(prefix, box),
      await replica(prefix, box),
    ];
    return { replicas, close: async () => {} };
  };
  tenantDirectoryContract(replicasOnOneRedis);
  tenantLifecycleContract(replicasOnOneRedis);

  /** Every key of the whole Redis and everything stored under it, as one text. */
  async function everything(client: RedisClient): Promise<string> {
    const out: string[] = [];
    for await (const keys of client.scanIterator({ COUNT: 100 })) {
      for (const key of keys) {
        const type = await client.type(key);
        const value =
          type === 'string'
            ? await client.get(key)
            : type === 'hash'
              ? await client.hGetAll(key)
              : type === 'zset'
                ? await client.zRangeWithScores(key, 0, -1)
                : type === 'set'
                  ? await client.sMembers(key)
                  : type === 'stream'
                    ? await client.xRange(key, '-', '+')
                    : await client.lRange(key, 0, -1);
        out.push(key, JSON.stringify(value));
      }
    }
    return out.join('\n');
  }

  it('keeps no bot token, refresh token or API key in clear in any key or value, all under its prefix', async () => {
    const prefix = `docs-agent-${randomUUID()}:`;
    const directory = await replica(prefix, testBox());
    const installs = [
      installation('T1'),
      installation('E1', { teamId: undefined, isEnterpriseInstall: true }),
    ];
    for (const install of installs) await directory.saveInstallation(install);
    const projects = [project('p1'), project('p2', 'C1')];
    expect(await directory.saveSettings('T1', { projects }, 0)).toBe(true);
    await directory.removeTenant('E1', Date.now() + 60_000);
    await directory.saveInstallation(installs[1]!);
    expect(await directory.lease('refresh:T1', 60_000)).toBe(true);
    const stored = await everything(clients.at(-1)!);
    const secrets = [
      ...installs.flatMap((i) => [i.botToken, i.refreshToken!]),
      ...projects.map((p) => p.apiKey),
    ];
    expect(secrets.length).toBe(6);
    for (const secret of secrets) {
      expect(stored).not.toContain(secret);
      // Not even in a recognisable part (the random tail of each secret).
      expect(stored).not.toContain(secret.slice(-12));
    }
    // Still readable through the directory, so the test looks at the right records.
    expect((await directory.installation('T1'))?.botToken).toBe(installs[0]!.botToken);
    expect((await directory.settings('T1')).projects).toEqual(projects);
    const keys = stored.split('\n').filter((_, i) => i % 2 === 0);
    expect(keys.filter((key) => key.startsWith(prefix)).length).toBeGreaterThanOrEqual(5);
    const client = clients.at(-1)!;
    for (const key of await client.keys(`${prefix}*`)) expect(key.startsWith(prefix)).toBe(true);
  });

  it('a value sealed under an old key reads after rotation and is sealed again with the current key', async () => {
    const prefix = `rot-${randomUUID()}:`;
    const oldKey = { id: 'k2025', key: randomBytes(32) };
    const newKey = { id: 'k2026', key: randomBytes(32) };
    const before = await replica(prefix, new SecretBox(oldKey));
    const install = installation('T1');
    const projects = [project('p1')];
    await before.saveInstallation(install);
    expect(await before.saveSettings('T1', { projects }, 0)).toBe(true);
    const stampBefore = (await before.stamps()).get('T1');
    const client = clients.at(-1)!;
    const raw = async () => [
      (await client.get(`${prefix}tenant:T1:installation`))!,
      (await client.hGet(`${prefix}tenant:T1:settings`, 'value'))!,
    ];
    expect((await raw()).every((value) => value.startsWith('v1.k2025.'))).toBe(true);

    // Rotated: the new key is current, the old one still readable.
    const after = await replica(prefix, new SecretBox(newKey, [oldKey]));
    expect(await after.installation('T1')).toEqual(install);
    expect(await after.settings('T1')).toEqual({ version: 1, projects });
    expect((await raw()).every((value) => value.startsWith('v1.k2026.'))).toBe(true);
    // Re-sealing changes no content, so no stamp change (no runtime rebuild)...
    expect((await after.stamps()).get('T1')).toBe(stampBefore);
    // ...and once every value is re-sealed the old key can go.
    const onlyNew = await replica(prefix, new SecretBox(newKey));
    expect(await onlyNew.installation('T1')).toEqual(install);
    expect(await onlyNew.settings('T1')).toEqual({ version: 1, projects });
  });

  it('names the key id missing from the configuration, and refuses a value moved to another tenant', async () => {
    const prefix = `keys-${randomUUID()}:`;
    const sealedBy = await replica(prefix, new SecretBox({ id: 'lost', key: randomBytes(32) }));
    await sealedBy.saveInstallation(installation('T1'));
    await sealedBy.saveInstallation(installation('T2'));
    const other = await replica(prefix, testBox());
    const refused = await other.installation('T1').catch((error: unknown) => error);
    expect(errorCode(refused)).toBe('sealed_with_unknown_key');
    expect((refused as Error).message).toContain('sealed with key lost, which is not configured');
    // Someone with write access to Redis copies T1's installation over T2's: it does not open as T2's.
    const client = clients.at(-1)!;
    await client.set(
      `${prefix}tenant:T2:installation`,
      (await client.get(`${prefix}tenant:T1:installation`))!,
    );
    expect(errorCode(await sealedBy.installation('T2').catch((error: unknown) => error))).toBe(
      'sealed_value_invalid',
    );
  });

  it('says state_unavailable (never "not installed") while Redis is down', async () => {
    const down = await startRedisServer();
    const client = await connectRedis(down.url, logger, { failFast: true });
    onTestFinished(() => closeRedis(client));
    const directory = new RedisTenantDirectory(client, 'down:', testBox());
    await directory.saveInstallation(installation('T1'));
    await down.stop();
    for (const call of [
      () => directory.installation('T1'),
      () => directory.stamps(),
      () => directory.lease('x', 1),
    ])
      expect(errorCode(await call().catch((error: unknown) => error))).toBe('state_unavailable');
  });

  it('refuses a tenant key that is not a Slack id (it would reach into other keys)', async () => {
    const directory = await replica(`bad-${randomUUID()}:`, testBox());
    for (const tenant of ['T1:settings', '', 'T 1', 'x'.repeat(65)]) {
      const error = await directory.installation(tenant).catch((e: unknown) => e);
      expect(errorCode(error)).toBe('tenant_key_invalid');
    }
  });
});
