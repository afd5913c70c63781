import { createCluster } from '@redis/client';
import { primariesOf, startRedisCluster } from '../test/support/redis-cluster.js';
import { createLogger, loadConfig, secretBoxFromSettings, tenantDirectoryFor } from './product.js';
import { BUSY_TENANTS, KEYS_PER_BUSY_TENANT, PURGED, PURGED_KEYS } from './purge-cost.js';
import { sized } from './smoke.js';

/** Other tenants' keys, one each (an idle install's key space), spread over the slots as real ones are. */
const IDLE_TENANTS = sized(100_000, 200);

export interface ClusterPurgeCost {
  keysInCluster: number;
  deleted: number;
  wallMs: number;
  /** Keys in the purged tenant's slot, which is all the purge reads (its own plus the few sharing the slot). */
  slotKeys: number;
  scanCalls: number;
  othersKept: boolean;
}

/**
 * The same purge as purge-cost.ts, on a three-primary Redis Cluster (REDIS_CLUSTER): the tenant's hash tag
 * puts its keys in one slot, and the product's purge reads that slot (CLUSTER GETKEYSINSLOT) instead of
 * scanning. Measured from outside: the nodes' own key counts and command statistics.
 */
export async function measureClusterPurge(env: Record<string, string>): Promise<ClusterPurgeCost> {
  const cluster = await startRedisCluster();
  const keys = createCluster({ rootNodes: [{ url: cluster.seedUrl }] });
  await keys.connect();
  const config = { ...loadConfig({ ...env, REDIS_CLUSTER: 'true', REDIS_URL: cluster.seedUrl }) };
  const handle = tenantDirectoryFor(
    config,
    secretBoxFromSettings(config.oauth!.encryptionKey, undefined),
    createLogger({ level: 'silent', secrets: [] }),
  );
  const nodes = () => primariesOf(keys);
  const total = async () =>
    (await Promise.all((await nodes()).map((n) => n.dbSize()))).reduce((a, b) => a + b);
  const scans = async () => {
    const stats = await Promise.all((await nodes()).map((n) => n.info('commandstats')));
    return stats.reduce((sum, text) => sum + Number(/cmdstat_scan:calls=(\d+)/.exec(text)?.[1] ?? 0), 0);
  };
  try {
    const writes: Array<() => Promise<unknown>> = [];
    for (let t = 0; t < IDLE_TENANTS; t++) writes.push(() => keys.set(`docs-agent:t:{T0IDLE${t}}:x`, 'x'));
    for (let t = 0; t < BUSY_TENANTS; t++)
      for (let k = 0; k < KEYS_PER_BUSY_TENANT; k++)
        writes.push(() => keys.set(`docs-agent:t:{T0BUSY${t}}:job:${k}`, 'x'));
    for (let k = 0; k < PURGED_KEYS; k++)
      writes.push(() =>
        keys.hSet(`docs-agent:t:{${PURGED}}:delivery:${k}`, { state: 'posted', payload: 'null' }),
      );
    for (let i = 0; i < writes.length; i += 2_000)
      await Promise.all(writes.slice(i, i + 2_000).map((w) => w()));
    await handle.waitUntilReady(new AbortController().signal);
    const keysInCluster = await total();
    const slot = Number(await (await nodes())[0]!.sendCommand(['CLUSTER', 'KEYSLOT', `{${PURGED}}`]));
    const owner = await keys.nodeClient(keys.getSlotMaster(slot));
    const slotKeys = Number(await owner.sendCommand(['CLUSTER', 'COUNTKEYSINSLOT', String(slot)]));
    const scansBefore = await scans();
    const started = performance.now();
    const deleted = await handle.purge(PURGED, 0);
    const wallMs = performance.now() - started;
    return {
      keysInCluster,
      deleted,
      wallMs,
      slotKeys,
      scanCalls: (await scans()) - scansBefore,
      othersKept: (await total()) === keysInCluster - PURGED_KEYS,
    };
  } finally {
    await handle.close();
    keys.destroy();
    await cluster.stop();
  }
}
