import { randomBytes } from 'node:crypto';
import { createCluster } from '@redis/client';
import { SecretBox } from '../src/common/secret-box.js';
import { closeRedis, connectRedis } from '../src/state/redis/redis-client.js';
import { RedisTenantDirectory } from '../src/state/redis/redis-tenant-directory.js';
import type { TenantDirectory } from '../src/tenants/ports.js';
import type { TenantInstallation } from '../src/tenants/tenant.js';
import { LegacyRedisTenantDirectory } from '../test/support/legacy-directory/legacy-tenant-directory.js';
import { primariesOf, startRedisCluster } from '../test/support/redis-cluster.js';
import { createLogger } from './product.js';
import { sized } from './smoke.js';
import { fmt, percentile, type Row, seededRandom } from './stats.js';

/** Installs seeded in each layout; lookups in the burst, and how many are under way at once. */
export const SPREAD_INSTALLS = sized(10_000, 100);
const LOOKUPS = sized(20_000, 200);
const CONCURRENCY = 100;

/** A plain cluster client for what is per node (KEYSLOT, GETKEYSINSLOT, MEMORY USAGE, INFO). */
const probeOf = (url: string) => createCluster({ rootNodes: [{ url }] });
type Probe = ReturnType<typeof probeOf>;
interface Layout {
  name: string;
  prefix: string;
  directory: TenantDirectory;
}

/**
 * Issue 43 §5 on a three-primary Redis Cluster: the same installs in the old layout (every record in the
 * `{directory}` slot; the old code, kept in test/support) and in the new (records in their tenants' slots,
 * a small index in `{directory}`), both through the directory's own API on the product's cluster client.
 * Per layout: the bytes in the `{directory}` slot (MEMORY USAGE of each of its keys), keys per primary, and a
 * burst of lookups (what a cold tenant's first request reads: its stamp, installation and settings) with
 * their latency and the commands each primary served meanwhile (INFO commandstats).
 */
export async function runDirectorySpread(): Promise<Row[]> {
  const cluster = await startRedisCluster();
  const probe = probeOf(cluster.seedUrl);
  await probe.connect();
  const logger = createLogger({ level: 'silent', secrets: [] });
  const client = await connectRedis(cluster.seedUrl, logger, { failFast: true, cluster: true });
  const box = new SecretBox({ id: 'bench', key: randomBytes(32) });
  const tenants = Array.from({ length: SPREAD_INSTALLS }, (_, i) => `T${String(i).padStart(6, '0')}B`);
  const layouts: Layout[] = [
    { name: 'before: records in {directory}', prefix: 'docs-agent:{old-directory}:', directory: undefined! },
    { name: 'after: records in tenant slots', prefix: 'docs-agent:{directory}:', directory: undefined! },
  ];
  layouts[0]!.directory = new LegacyRedisTenantDirectory(client, layouts[0]!.prefix, box);
  layouts[1]!.directory = new RedisTenantDirectory(client, layouts[1]!.prefix, box);
  try {
    const rows: Row[] = [];
    for (const layout of layouts) {
      await seed(layout.directory, tenants);
      rows.push(await measure(probe, layout, tenants));
    }
    return rows;
  } finally {
    await closeRedis(client);
    probe.destroy();
    await cluster.stop();
  }
}

async function seed(directory: TenantDirectory, tenants: string[]): Promise<void> {
  for (let i = 0; i < tenants.length; i += 500)
    await Promise.all(
      tenants.slice(i, i + 500).map(async (tenant) => {
        await directory.saveInstallation(installationOf(tenant));
        await directory.saveSettings(tenant, { projects: [projectOf()] }, 0);
      }),
    );
}

async function measure(probe: Probe, layout: Layout, tenants: string[]): Promise<Row> {
  const nodes = await primariesOf(probe);
  const slot = Number(await nodes[0]!.sendCommand(['CLUSTER', 'KEYSLOT', layout.prefix]));
  const owner = await probe.nodeClient(probe.getSlotMaster(slot));
  const slotKeys = (
    (await owner.sendCommand(['CLUSTER', 'GETKEYSINSLOT', String(slot), '1000000'])) as string[]
  ).filter((key) => key.startsWith(layout.prefix));
  const sizes = new Map<string, number>();
  for (const key of slotKeys)
    sizes.set(key, Number(await owner.sendCommand(['MEMORY', 'USAGE', key, 'SAMPLES', '0'])));
  const slotBytes = [...sizes.values()].reduce((a, b) => a + b, 0);
  const largest = [...sizes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 3)
    .map(([key, bytes]) => `${key.slice(layout.prefix.length)} ${fmt(bytes / 1024 / 1024, 2)} MB`);
  const root = layout.prefix.replace(/[{}]/g, '');
  const keysPer = await Promise.all(
    nodes.map(async (node) => {
      let count = 0;
      // The old layout has nothing under `root` (its records are under the prefix itself).
      for (const pattern of [`${layout.prefix}*`, `${root}tenant:*`]) {
        for await (const keys of node.scanIterator({ MATCH: pattern, COUNT: 1_000 })) count += keys.length;
      }
      return count;
    }),
  );
  const calls = async () =>
    Promise.all(
      nodes.map(async (node) => {
        const text = await node.info('commandstats');
        return [...text.matchAll(/calls=(\d+)/g)].reduce((sum, m) => sum + Number(m[1]), 0);
      }),
    );
  const random = seededRandom(43);
  const pick = () => tenants[Math.floor(random() * tenants.length)]!;
  await burst(layout.directory, pick, Math.min(1_000, LOOKUPS)); // warm the connections and the scripts
  const before = await calls();
  const times = await burst(layout.directory, pick, LOOKUPS);
  const after = await calls();
  // Each INFO read is itself a command on its node: one per node between the two reads.
  const served = after.map((n, i) => n - before[i]! - 1);
  return {
    layout: layout.name,
    '{directory} slot': `${fmt(slotBytes / 1024 / 1024, 2)} MB in ${slotKeys.length} keys`,
    'bytes/install there': fmt(slotBytes / tenants.length, 0),
    'largest keys there': largest.join(', '),
    'keys per primary': keysPer.join(' / '),
    'burst commands per primary': served.join(' / '),
    'lookup p50 ms': fmt(percentile(times, 50), 2),
    'lookup p99 ms': fmt(percentile(times, 99), 2),
  };
}

/** `count` lookups, CONCURRENCY at a time: a cold request's reads, each timed. */
async function burst(directory: TenantDirectory, pick: () => string, count: number): Promise<number[]> {
  const times: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      const tenant = pick();
      const started = performance.now();
      await directory.stamp(tenant);
      await Promise.all([directory.installation(tenant), directory.settings(tenant)]);
      times.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return times;
}

function installationOf(tenant: string): TenantInstallation {
  return {
    tenant,
    teamId: tenant,
    enterpriseId: undefined,
    isEnterpriseInstall: false,
    name: `Workspace ${tenant}`,
    botToken: `xoxb-${randomBytes(24).toString('hex')}`,
    botUserId: 'U0BOT',
    botId: 'B0BOT',
    refreshToken: `xoxe-1-${randomBytes(32).toString('hex')}`,
    expiresAt: Date.now() + 12 * 3_600_000,
    installerUserId: 'U0INSTALLER',
    scopes: ['chat:write', 'commands', 'app_mentions:read', 'channels:history'],
    appId: 'A0APP',
    installedAt: Date.now(),
  };
}

function projectOf() {
  const projectId = `proj_${randomBytes(6).toString('hex')}`;
  return {
    projectId,
    apiKey: `svc_${randomBytes(16).toString('hex')}`,
    channelId: undefined,
    connectedBy: 'U0ADMIN',
    connectedAt: Date.now(),
  };
}
