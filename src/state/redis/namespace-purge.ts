import type { RedisClient } from './redis-client.js';
import { clusterOf, type NodeRedisCluster } from './redis-cluster.js';

/** Keys deleted per UNLINK, and looked at per SCAN: small calls, so nobody waits behind a purge. */
const BATCH = 500;
/** Keys read from one slot at most (a slot holds about 1/16,384 of the keyspace; this is far above it). */
const MAX_SLOT_KEYS = 1_000_000;

/**
 * Deletes every key under `namespace:` except those `keep` names; resolves how many. On a Redis Cluster the
 * namespace's hash tag puts all of them in one slot, so only that slot's keys are read (CLUSTER
 * GETKEYSINSLOT on its master), not everyone's: the purge issue 34 asks for. On one node, a SCAN with MATCH
 * on the namespace still walks the keyspace (about 0.75 µs of Redis time per key, BENCHMARKS §12).
 */
export async function purgeNamespace(
  client: RedisClient,
  namespace: string,
  keep: (key: string) => boolean = () => false,
): Promise<number> {
  const cluster = clusterOf(client);
  let deleted = 0;
  let batch: string[] = [];
  const flush = async () => {
    if (batch.length > 0) deleted += await client.unlink(batch);
    batch = [];
  };
  const take = async (keys: readonly string[]) => {
    for (const key of keys) if (key.startsWith(`${namespace}:`) && !keep(key)) batch.push(key);
    if (batch.length >= BATCH) await flush();
  };
  if (cluster) for (const keys of await slotKeys(cluster, namespace)) await take(keys);
  else
    for await (const keys of client.scanIterator({ MATCH: `${namespace}:*`, COUNT: BATCH })) await take(keys);
  await flush();
  return deleted;
}

/** The keys of the slot a namespace's keys hash to, read from that slot's master in pages. */
async function slotKeys(cluster: NodeRedisCluster, namespace: string): Promise<string[][]> {
  const anyNode = await cluster.nodeClient(cluster.getRandomNode());
  const slot = Number(await anyNode.sendCommand(['CLUSTER', 'KEYSLOT', `${namespace}:`]));
  const master = await cluster.nodeClient(cluster.getSlotMaster(slot));
  const count = Number(await master.sendCommand(['CLUSTER', 'COUNTKEYSINSLOT', String(slot)]));
  const keys = (await master.sendCommand([
    'CLUSTER',
    'GETKEYSINSLOT',
    String(slot),
    String(Math.min(count, MAX_SLOT_KEYS)),
  ])) as string[];
  const pages: string[][] = [];
  for (let i = 0; i < keys.length; i += BATCH) pages.push(keys.slice(i, i + BATCH));
  return pages;
}
