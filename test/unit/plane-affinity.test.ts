import { describe, expect, it } from 'vitest';
import { ReplicaHolds } from '../../src/state/redis/plane-affinity.js';

/** Which holds each take carries: written once held, refreshed well before expiry, let go once evicted. */
describe('a replica’s holds, as its fair takes carry them', () => {
  const timings = { holdMs: 30_000, stealAfterMs: 2_000 };
  const shardOf = (tenant: string) => (tenant.endsWith('1') ? 1 : 0);

  it('writes a newly held tenant with the next take of its shard only, and tells that shard at once', () => {
    const holds = new ReplicaHolds(shardOf, timings);
    let told = 0;
    const shard0 = holds.forShard(0, () => told++);
    const shard1 = holds.forShard(1, () => undefined);
    holds.set('T0', true);
    expect(told).toBe(1);
    expect(shard0.batch(1_000)).toMatchObject({ replica: holds.replica, hold: ['T0'], unhold: [] });
    expect(shard1.batch(1_000)).toMatchObject({ hold: [], unhold: [] });
    expect(shard0.batch(1_001).hold).toEqual([]); // written: not again with every take
  });

  it('refreshes every hold a third of its time after it was written, long before it expires', () => {
    const holds = new ReplicaHolds(shardOf, timings);
    const shard = holds.forShard(0, () => undefined);
    holds.set('T0', true);
    shard.batch(0);
    holds.set('T2', true);
    shard.batch(4_000);
    expect(shard.batch(9_999).hold).toEqual([]);
    expect(shard.batch(10_000).hold).toEqual(['T0']);
    expect(shard.batch(14_000).hold).toEqual(['T2']);
  });

  it('lets an evicted tenant go with the next take, and every hold at close', () => {
    const holds = new ReplicaHolds(shardOf, timings);
    const shard = holds.forShard(0, () => undefined);
    for (const tenant of ['T0', 'T2', 'T4']) holds.set(tenant, true);
    shard.batch(0);
    holds.set('T2', false);
    expect(shard.batch(1).unhold).toEqual(['T2']);
    expect(shard.batch(2).unhold).toEqual([]);
    expect(shard.releaseAll()).toBe(true);
    expect(shard.batch(3)).toMatchObject({ hold: [], unhold: ['T0', 'T4'] });
    expect(shard.releaseAll()).toBe(false);
  });

  it('carries a failed take’s writes with the next one', () => {
    const holds = new ReplicaHolds(shardOf, timings);
    const shard = holds.forShard(0, () => undefined);
    holds.set('T0', true);
    holds.set('T2', true);
    shard.batch(0);
    holds.set('T2', false);
    holds.set('T4', true);
    const failed = shard.batch(1);
    expect(failed).toMatchObject({ hold: ['T4'], unhold: ['T2'] });
    shard.failed(failed);
    expect(shard.batch(2)).toMatchObject({ hold: ['T4'], unhold: ['T2'] });
  });

  it('gives a shard made later the tenants already held there', () => {
    const holds = new ReplicaHolds(shardOf, timings);
    holds.set('T0', true);
    holds.set('T1', true);
    expect(holds.forShard(0, () => undefined).batch(0).hold).toEqual(['T0']);
  });
});
