import { describe, expect, it } from 'vitest';
import { affinityArgs, ReplicaHolds } from '../../src/state/redis/plane-affinity.js';

/** What each script call carries: a hold once when held, let go once when evicted, "alive" every third. */
describe('a replica’s holds, as its takes and claims carry them', () => {
  const timings = { holdMs: 30_000, stealAfterMs: 2_000 };
  const shard = (n: number) => (tenant: string) => (tenant.endsWith('1') ? 1 : 0) === n;

  it('writes a newly held tenant once, with the next call of the views that cover it, told at once', () => {
    const holds = new ReplicaHolds(timings);
    let told = 0;
    const shard0 = holds.view(shard(0), () => told++);
    const shard1 = holds.view(shard(1));
    holds.set('T0', true);
    expect(told).toBe(1);
    expect(shard0.batch(1_000)).toMatchObject({ replica: holds.replica, hold: ['T0'], unhold: [] });
    expect(shard1.batch(1_000)).toMatchObject({ hold: [], unhold: [] });
    expect(shard0.batch(1_001).hold).toEqual([]); // written: never again while nothing changes
  });

  it('says the replica is alive every third of the hold time, and every hold again after a silence', () => {
    const holds = new ReplicaHolds(timings);
    const view = holds.view(shard(0));
    holds.set('T0', true);
    expect(view.batch(0)).toMatchObject({ alive: true, hold: ['T0'] });
    expect(view.batch(9_999)).toMatchObject({ alive: false, hold: [] });
    expect(view.batch(10_000)).toMatchObject({ alive: true, hold: [] });
    // No call for a whole hold time: taken for dead meanwhile, its holds may have been dropped.
    expect(view.batch(40_000)).toMatchObject({ alive: true, hold: ['T0'] });
  });

  it('lets an evicted tenant go with the next call, and every hold at close', () => {
    const holds = new ReplicaHolds(timings);
    const view = holds.view(shard(0));
    for (const tenant of ['T0', 'T2', 'T4']) holds.set(tenant, true);
    view.batch(0);
    holds.set('T2', false);
    expect(view.batch(1).unhold).toEqual(['T2']);
    expect(view.batch(2).unhold).toEqual([]);
    expect(view.releaseAll()).toBe(true);
    expect(view.batch(3)).toMatchObject({ hold: [], unhold: ['T0', 'T4'] });
    expect(view.releaseAll()).toBe(false);
  });

  it('forgets a tenant evicted idle: nothing written, nothing kept, written again when held again', () => {
    const holds = new ReplicaHolds(timings);
    const view = holds.view(shard(0));
    for (const tenant of ['T0', 'T2']) holds.set(tenant, true);
    view.batch(0);
    holds.forget('T2');
    expect(view.batch(1)).toMatchObject({ hold: [], unhold: [] });
    // Not let go at close either (it lapses with the replica's alive time), and not said again after a silence.
    expect(view.batch(40_000).hold).toEqual(['T0']);
    holds.set('T2', true);
    expect(view.batch(40_001).hold).toEqual(['T2']);
    holds.forget('T2');
    expect(view.releaseAll()).toBe(true);
    expect(view.batch(40_002).unhold).toEqual(['T0']);
  });

  it('carries a failed call’s writes with the next one', () => {
    const holds = new ReplicaHolds(timings);
    const view = holds.view(shard(0));
    holds.set('T0', true);
    holds.set('T2', true);
    view.batch(0);
    holds.set('T2', false);
    holds.set('T4', true);
    const failed = view.batch(1);
    expect(failed).toMatchObject({ hold: ['T4'], unhold: ['T2'] });
    view.failed(failed);
    expect(view.batch(2)).toMatchObject({ hold: ['T4'], unhold: ['T2'] });
  });

  it('gives a view made later the tenants already held that it covers', () => {
    const holds = new ReplicaHolds(timings);
    holds.set('T0', true);
    holds.set('T1', true);
    expect(holds.view(shard(0)).batch(0).hold).toEqual(['T0']);
  });

  it('writes "alive" only in the calls that say so (no write per call)', () => {
    const batch = { replica: 'r', alive: false, hold: ['T0'], unhold: [], ...timings };
    expect(affinityArgs(batch)).toEqual(['r', '0', '2000', '1', 'T0', '0']);
    expect(affinityArgs({ ...batch, alive: true })).toEqual(['r', '30000', '2000', '1', 'T0', '0']);
    expect(affinityArgs(undefined)).toEqual(['', '0', '0', '0', '0']);
  });
});
