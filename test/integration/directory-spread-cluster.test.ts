import { randomUUID } from 'node:crypto';
import { createCluster } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { SecretBox } from '../../src/common/secret-box.js';
import { migrateDirectoryLayout } from '../../src/state/redis/directory-migration.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisTenantDirectory } from '../../src/state/redis/redis-tenant-directory.js';
import type { TenantDirectory } from '../../src/tenants/ports.js';
import { installation, project, testBox } from '../contract/tenant-directory.contract.js';
import { LegacyRedisTenantDirectory } from '../support/legacy-directory/legacy-tenant-directory.js';
import { primariesOf, type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });
type Probe = ReturnType<typeof createCluster>;
type Node = Awaited<ReturnType<typeof primariesOf<Probe['masters'][number], RedisClient>>>[number];

/** The keys of the slot `prefix` hashes to, on its primary, with the bytes each takes (MEMORY USAGE). */
async function slotOf(probe: Probe, prefix: string): Promise<Map<string, number>> {
  const nodes = (await primariesOf(probe)) as unknown as Node[];
  const slot = Number(await nodes[0]!.sendCommand(['CLUSTER', 'KEYSLOT', prefix]));
  const master = (await probe.nodeClient(probe.getSlotMaster(slot))) as unknown as Node;
  const keys = (await master.sendCommand(['CLUSTER', 'GETKEYSINSLOT', String(slot), '100000'])) as string[];
  const sizes = new Map<string, number>();
  for (const key of keys.filter((k) => k.startsWith(prefix)))
    sizes.set(key, Number(await master.sendCommand(['MEMORY', 'USAGE', key, 'SAMPLES', '0'])));
  return sizes;
}
const total = (sizes: Map<string, number>) => [...sizes.values()].reduce((a, b) => a + b, 0);

/** What a directory says of every tenant, to compare before and after the migration. */
async function everything(d: TenantDirectory, tenants: string[]) {
  const each = await Promise.all(
    tenants.map(async (t) => [t, await d.installation(t), await d.settings(t), await d.lifecycle(t)]),
  );
  return {
    each,
    stamps: [...(await d.stamps())].sort(),
    holds: [...(await d.holds())].sort(),
    due: (await d.refreshesDue(Number.MAX_SAFE_INTEGER)).sort(),
    purges: (await d.duePurges(Number.MAX_SAFE_INTEGER)).sort(),
  };
}

/** The old code's own writes: every kind of record and lifecycle the old layout holds. */
async function seedOldLayout(old: TenantDirectory): Promise<string[]> {
  await old.saveInstallation(installation('T0REFRESHED'));
  await old.saveTokens(
    'T0REFRESHED',
    { botToken: 'xoxb-new', refreshToken: 'xoxe-new', expiresAt: 9 },
    (await old.lifecycle('T0REFRESHED'))!.installId,
  );
  expect(await old.saveSettings('T0REFRESHED', { projects: [project('p1'), project('p2', 'C1')] }, 0)).toBe(
    true,
  );
  await old.saveInstallation(installation('T0HELD'));
  const suspended = {
    state: 'suspended' as const,
    since: 1,
    checks: 2,
    nextCheckAt: 3,
    code: 'token_revoked',
  };
  await old.hold('T0HELD', suspended, (await old.lifecycle('T0HELD'))!.installId);
  await old.saveInstallation(installation('T0GONE'));
  await old.removeTenant('T0GONE', 40);
  // Uninstalled, purge begun, installed again: writes under generation 1, the purge of 0 still open.
  await old.saveInstallation(installation('T0AGAIN'));
  await old.removeTenant('T0AGAIN', 10);
  expect(await old.beginPurge('T0AGAIN')).toBe(0);
  await old.saveInstallation(installation('T0AGAIN'));
  await old.saveInstallation(installation('E0GRID', { refreshToken: undefined, expiresAt: undefined }));
  return ['T0REFRESHED', 'T0HELD', 'T0GONE', 'T0AGAIN', 'E0GRID'];
}

describe('the directory spread by tenant on a three-primary Redis Cluster (issue 43 §5)', () => {
  let cluster: RedisCluster;
  let single: RedisServer;
  let probe: Probe;
  const clients: RedisClient[] = [];
  const connect = async (url: string, onCluster: boolean) => {
    const client = await connectRedis(url, logger, { failFast: true, cluster: onCluster });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    [cluster, single] = await Promise.all([startRedisCluster(), startRedisServer()]);
    probe = createCluster({ rootNodes: [{ url: cluster.seedUrl }] });
    await probe.connect();
  }, 60_000);
  afterAll(async () => {
    probe?.destroy();
    await Promise.all(clients.map((client) => closeRedis(client)));
    await Promise.all([cluster?.stop(), single?.stop()]);
  });

  it('200 installs: the records land on every primary, the directory’s slot keeps a small index only', async () => {
    const box = testBox();
    const client = await connect(cluster.seedUrl, true);
    const spread = `docs-agent:{directory-${randomUUID()}}:`;
    const before = `docs-agent:{legacy-${randomUUID()}}:`;
    const tenants = Array.from({ length: 200 }, (_, i) => `T${String(i).padStart(4, '0')}SPREAD`);
    const d = new RedisTenantDirectory(client, spread, box);
    const old = new LegacyRedisTenantDirectory(client, before, box);
    for (const directory of [d, old])
      await Promise.all(
        tenants.map(async (tenant) => {
          await directory.saveInstallation(installation(tenant));
          await directory.saveSettings(tenant, { projects: [project('p1')] }, 0);
        }),
      );
    const nodes = await primariesOf(probe);
    const records = await Promise.all(
      nodes.map((node) => node.keys(`${spread.replace(/[{}]/g, '')}tenant:*`)),
    );
    expect(records.map((keys) => keys.length).every((count) => count > 0)).toBe(true);
    expect(records.flat()).toHaveLength(200 * 3); // state, installation, settings
    const index = await slotOf(probe, spread);
    expect([...index.keys()].every((key) => !key.includes(':tenant:'))).toBe(true);
    const oldSlot = await slotOf(probe, before);
    console.log(
      `{directory} slot at 200 installs: ${total(index)} bytes in ${index.size} keys (the old layout: ${total(oldSlot)} bytes in ${oldSlot.size} keys)`,
    );
    expect(total(index)).toBeLessThan(total(oldSlot) / 4);
    // Read from the records, on every primary: every install is there.
    expect((await d.stampsOf(tenants)).filter((stamp) => stamp === undefined)).toEqual([]);
    expect((await d.stamps()).size).toBe(200);
  });

  const layouts = [
    { name: 'one node', onCluster: false },
    { name: 'a cluster', onCluster: true },
  ];
  it.each(layouts)(
    'on $name, the old layout (seeded by the old code) moves, twice and from two replicas at once',
    async ({ onCluster }) => {
      const box: SecretBox = testBox();
      const url = onCluster ? cluster.seedUrl : single.url;
      const [a, b] = [await connect(url, onCluster), await connect(url, onCluster)];
      const prefix = onCluster
        ? `docs-agent:{directory-${randomUUID()}}:`
        : `docs-agent-${randomUUID()}:directory:`;
      const tenants = await seedOldLayout(new LegacyRedisTenantDirectory(a, prefix, box));
      const seen = await everything(new LegacyRedisTenantDirectory(a, prefix, box), tenants);

      const [first, second] = await Promise.all([
        migrateDirectoryLayout(a, prefix, { waitMs: 10 }),
        migrateDirectoryLayout(b, prefix, { waitMs: 10 }),
      ]);
      expect(first.tenants + second.tenants).toBe(tenants.length); // one replica moved them, the other waited
      expect(await migrateDirectoryLayout(b, prefix)).toEqual({ tenants: 0, done: true });

      const d = new RedisTenantDirectory(b, prefix, box);
      expect(await everything(d, tenants)).toEqual(seen); // stamps too: no runtime has to read again
      for (const hash of ['tenant-installs', 'tenant-generations', 'tenant-purging', 'tenant-removals'])
        expect(await a.exists(`${prefix}${hash}`)).toBe(0);
      if (onCluster)
        expect([...(await slotOf(probe, prefix)).keys()].filter((k) => k.includes(':tenant:'))).toEqual([]);

      // The moved records take the new layout's writes: a settings save, a refresh, the open purge's end.
      const settings = await d.settings('T0REFRESHED');
      expect(await d.saveSettings('T0REFRESHED', { projects: [] }, settings.version)).toBe(true);
      const stamp = await d.stamp('T0REFRESHED');
      expect(stamp).not.toBe(seen.stamps.find(([t]) => t === 'T0REFRESHED')?.[1]);
      const { installId } = (await d.lifecycle('T0HELD'))!;
      expect(
        await d.saveTokens(
          'T0HELD',
          { botToken: 'xoxb-2', refreshToken: undefined, expiresAt: undefined },
          installId,
        ),
      ).toBe(true);
      await d.purged('T0AGAIN', 0);
      expect(await d.duePurges(Number.MAX_SAFE_INTEGER)).toEqual(['T0GONE']);
      expect((await d.lifecycle('T0AGAIN'))?.generation).toBe(1);

      // A replica of the previous version installs during the rolling upgrade: the next start moves it.
      const late = installation('T0LATE');
      await new LegacyRedisTenantDirectory(a, prefix, box).saveInstallation(late);
      expect((await migrateDirectoryLayout(a, prefix)).tenants).toBeGreaterThan(0);
      expect(await d.installation('T0LATE')).toEqual(late);
      expect((await d.stamps()).has('T0LATE')).toBe(true);
      expect(await migrateDirectoryLayout(b, prefix)).toEqual({ tenants: 0, done: true });
    },
  );

  it('a migration stopped half-way (Redis refused part-way through) is finished by its next pass', async () => {
    const box = testBox();
    const client = await connect(single.url, false);
    const prefix = `docs-agent-${randomUUID()}:directory:`;
    const tenants = await seedOldLayout(new LegacyRedisTenantDirectory(client, prefix, box));
    const seen = await everything(new LegacyRedisTenantDirectory(client, prefix, box), tenants);
    let moves = 0;
    const refusing = new Proxy(client, {
      get(target, property) {
        if (property === 'hDel')
          return (...args: Parameters<RedisClient['hDel']>) =>
            ++moves === 3 ? Promise.reject(new Error('connection lost')) : target.hDel(...args);
        const value = Reflect.get(target, property, target) as unknown;
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const said: string[] = [];
    const log = createLogger({
      level: 'warn',
      secrets: [],
      destination: { write: (l: string) => said.push(l) },
    });
    expect((await migrateDirectoryLayout(refusing, prefix, { waitMs: 10, logger: log })).done).toBe(true);
    expect(said.join('')).toContain('could not finish moving the directory’s records');
    expect(await everything(new RedisTenantDirectory(client, prefix, box), tenants)).toEqual(seen);
    expect(await client.exists(`${prefix}tenant-installs`)).toBe(0);
  });
});
