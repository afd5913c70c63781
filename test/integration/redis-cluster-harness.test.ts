import { createCluster, type RedisClusterType } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';

/**
 * The test helper itself: startRedisCluster() must give a real three-primary cluster that a cluster client
 * can use, spreading keys over its primaries and enforcing slot rules, or the cluster contract tests built on
 * it would prove nothing.
 */
describe('startRedisCluster (test support)', () => {
  let cluster: RedisCluster;
  let client: RedisClusterType;
  // {a}, {b} and {c} hash to slots 15495, 3300 and 7365: one in each third of the 16384 slots.
  const keys = ['{a}x', '{b}x', '{c}x'];

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = createCluster({ rootNodes: [{ url: cluster.seedUrl }] });
    await client.connect();
  }, 60_000);
  afterAll(async () => {
    await client?.close();
    await cluster?.stop();
  });

  it('has three primaries on distinct loopback ports', () => {
    expect(cluster.urls).toHaveLength(3);
    expect(new Set(cluster.urls).size).toBe(3);
    expect(cluster.urls).toContain(cluster.seedUrl);
    expect(client.masters).toHaveLength(3);
  });

  it('stores keys of different slots on different primaries and reads them back', async () => {
    for (const key of keys) await client.set(key, `value of ${key}`);
    for (const key of keys) expect(await client.get(key)).toBe(`value of ${key}`);

    // Ask a node, not the library, which slot each key has and who serves it.
    const node = await client.nodeClient(client.masters[0]!);
    const owners = new Set<string>();
    for (const key of keys) {
      const slot = await node.clusterKeySlot(key);
      owners.add(client.slots[slot]!.master.address);
    }
    expect(owners.size).toBeGreaterThanOrEqual(2);

    // KEYS is never redirected: each primary lists only what it holds itself.
    const held = await Promise.all(
      client.masters.map(async (master) => (await client.nodeClient(master)).keys('*')),
    );
    expect(held.filter((list) => list.length > 0).length).toBeGreaterThanOrEqual(2);
    expect(held.flat().sort()).toEqual([...keys].sort());
  });

  it('runs a MULTI on two keys of one hash tag', async () => {
    const replies = await client.multi().set('{a}m1', '1').incr('{a}m2').get('{a}m1').exec();
    expect(replies).toEqual(['OK', 1, '1']);
  });

  it('refuses an EVAL whose keys are in different slots (CROSSSLOT)', async () => {
    await expect(
      client.eval("return redis.call('GET', KEYS[1])", { keys: ['{a}x', '{b}x'] }),
    ).rejects.toThrow(/CROSSSLOT/);
  });
});
