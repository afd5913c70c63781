import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { type AffinityBatch, ReplicaHolds } from '../../src/state/redis/plane-affinity.js';
import { fairTake } from '../../src/state/redis/plane-fair-scripts.js';
import { type DeferralReason, planeJobId, QueuePlane } from '../../src/state/redis/queue-plane.js';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisDueIndex } from '../../src/state/redis/redis-due-index.js';
import { waitFor } from '../support/http.js';
import { redisForReplicas } from '../support/redis-replicas.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 43 "no thrash": a tenant's polls go to the replica that holds its scope (its context is built once),
 * a tenant held by nobody to any replica, and a holder that is slow, dead or gone delays them no longer than
 * the bound. Only a preference: no job is taken and put back.
 */
describe('replica affinity of the fair take', () => {
  const redis = redisForReplicas();
  const planes: QueuePlane[] = [];
  let run = 0;

  afterEach(async () => {
    await Promise.all(planes.splice(0).map((plane) => plane.close()));
  });

  const replica = async (prefix: string, stealAfterMs: number, deferrals: DeferralReason[] = []) => {
    const client = await redis.replica({ failFast: false });
    const made = new QueuePlane({
      ...{ client, logger, prefix, perTenantCap: 2, shards: 1 },
      concurrency: { polls: 4 },
      affinity: { holdMs: 30_000, stealAfterMs },
      wake: async () => 'served',
      deferred: (_kind, reason) => void deferrals.push(reason),
    });
    planes.push(made);
    return made;
  };
  /** One `add` each (BullMQ's addBulk does not say 'waiting': the adding replica's take would not wake). */
  const add = async (plane: QueuePlane, tenant: string, ids: string[]) => {
    for (const id of ids)
      await plane
        .queue('polls', tenant)
        .add(
          'poll',
          { tenant, jobId: id },
          { jobId: planeJobId('poll', tenant, id), removeOnComplete: true },
        );
  };
  const heldKey = (prefix: string) => `${prefix}:{plane-polls-0}:fair:held`;
  /** What a replica leaves in the shard's slot: it holds `tenant`, and is alive until `aliveUntil`. */
  const hold = async (
    client: RedisClient,
    prefix: string,
    tenant: string,
    replica: string,
    aliveUntil: number,
  ) => {
    await client.hSet(heldKey(prefix), tenant, replica);
    await client.hSet(`${prefix}:{plane-polls-0}:fair:replicas`, replica, String(aliveUntil));
  };
  /** A take's batch from a replica named `me`, saying it is alive. */
  const asMe = (o: Partial<AffinityBatch>): AffinityBatch => ({
    ...{ replica: 'me', alive: true, holdMs: 30_000, stealAfterMs: 2_000, hold: [], unhold: [] },
    ...o,
  });
  const fresh = () => `plane-affinity-${++run}-${Date.now()}`;

  it('runs a held tenant’s polls on its holder only, and a tenant held by nobody’s on either, deferring none', async () => {
    const prefix = fresh();
    const deferrals: DeferralReason[] = [];
    const [a, b] = [await replica(prefix, 20_000, deferrals), await replica(prefix, 20_000, deferrals)];
    const ran: Array<{ tenant: string; on: string }> = [];
    for (const [name, plane] of [
      ['A', a],
      ['B', b],
    ] as const)
      for (const tenant of ['T0HELD', 'T0FREE'])
        plane.register('polls', tenant, async () => {
          ran.push({ tenant, on: name });
          await sleep(5); // a poll's work: its slot is held a moment
        });
    a.queues.holds.set('T0HELD', true);
    const client = await redis.replica();
    const holder = await waitFor(() => client.hGet(heldKey(prefix), 'T0HELD'), { what: 'A’s hold written' });
    expect(holder).toBe(a.queues.holds.replica);
    // Added through B: B's take is woken at once (A only finds them at its next look), and leaves them.
    await add(
      b,
      'T0HELD',
      Array.from({ length: 12 }, (_, i) => `h${i}`),
    );
    await add(
      b,
      'T0FREE',
      Array.from({ length: 12 }, (_, i) => `f${i}`),
    );
    await waitFor(() => ran.length === 24, { what: 'every poll run', timeoutMs: 15_000 });
    expect(ran.filter((r) => r.tenant === 'T0HELD').map((r) => r.on)).toEqual(Array(12).fill('A'));
    // Held by nobody: the woken replica took them without waiting for any bound.
    expect(ran.some((r) => r.tenant === 'T0FREE' && r.on === 'B')).toBe(true);
    expect(deferrals).toEqual([]);
  }, 30_000);

  it('takes a tenant whose holder does not (slow or dead) once its poll waited the bound', async () => {
    const prefix = fresh();
    const b = await replica(prefix, 1_000);
    const client = await redis.replica();
    // What a replica that died holding it leaves: a hold far from its expiry.
    await hold(client, prefix, 'T0DEAD', 'dead-replica', Date.now() + 600_000);
    const ranAt: number[] = [];
    b.register('polls', 'T0DEAD', async () => void ranAt.push(Date.now()));
    const addedAt = Date.now();
    await add(b, 'T0DEAD', ['once']);
    await waitFor(() => ranAt.length > 0, { what: 'the poll taken past the bound', timeoutMs: 10_000 });
    expect(ranAt[0]! - addedAt).toBeGreaterThanOrEqual(900); // it was left to its holder first
  }, 20_000);

  it('takes a tenant at once when its hold expired, or its holder stopped', async () => {
    const prefix = fresh();
    const [a, b] = [await replica(prefix, 60_000), await replica(prefix, 60_000)];
    const client = await redis.replica();
    await hold(client, prefix, 'T0LAPSED', 'dead-replica', Date.now() - 1);
    a.queues.holds.set('T0GONE', true);
    a.register('polls', 'T0GONE', async () => undefined);
    await waitFor(() => client.hGet(heldKey(prefix), 'T0GONE'), { what: 'A’s hold written' });
    await a.close();
    expect(await client.hGet(heldKey(prefix), 'T0GONE')).toBeNull();
    const ran: string[] = [];
    for (const tenant of ['T0LAPSED', 'T0GONE'])
      b.register('polls', tenant, async () => void ran.push(tenant));
    await add(b, 'T0LAPSED', ['one']);
    await add(b, 'T0GONE', ['one']);
    // Well within the bound (60 s): neither is left to a replica that no longer holds it.
    await waitFor(() => ran.length === 2, { what: 'both taken by B', timeoutMs: 10_000 });
  }, 30_000);

  it('never moves a live replica’s hold to another that built the scope too, and claims a lapsed one', async () => {
    const prefix = fresh();
    const queues = await replica(prefix, 2_000);
    const client = await redis.replica();
    await hold(client, prefix, 'T0LIVE', 'live-replica', Date.now() + 600_000);
    await hold(client, prefix, 'T0LAPSED', 'dead-replica', Date.now() - 1);
    await fairTake(client, queues.queues.keysOf('polls', 'T0LIVE'), {
      ...{ wanted: 0, cap: 2, tokenBase: 'me-take', lockMs: 30_000, slotMs: 60_000, released: [] },
      affinity: asMe({ hold: ['T0LIVE', 'T0LAPSED'] }),
    });
    expect(await client.hGet(heldKey(prefix), 'T0LIVE')).toBe('live-replica');
    expect(await client.hGet(heldKey(prefix), 'T0LAPSED')).toBe('me');
    // Letting go removes only its own.
    await fairTake(client, queues.queues.keysOf('polls', 'T0LIVE'), {
      ...{ wanted: 0, cap: 2, tokenBase: 'me-take', lockMs: 30_000, slotMs: 60_000, released: [] },
      affinity: asMe({ unhold: ['T0LIVE', 'T0LAPSED'] }),
    });
    expect(await client.hGet(heldKey(prefix), 'T0LIVE')).toBe('live-replica');
    expect(await client.hGet(heldKey(prefix), 'T0LAPSED')).toBeNull();
  }, 20_000);

  it('answers a take that found only other replicas’ tenants with when the first may be taken, not now', async () => {
    const prefix = fresh();
    const queues = await replica(prefix, 5_000); // no kind registered: no Worker takes here
    const client = await redis.replica();
    await hold(client, prefix, 'T0OTHER', 'live-replica', Date.now() + 600_000);
    await add(queues, 'T0OTHER', ['one', 'two']);
    const take = () =>
      fairTake(client, queues.queues.keysOf('polls', 'T0OTHER'), {
        ...{ wanted: 4, cap: 2, tokenBase: 'me-take', lockMs: 30_000, slotMs: 60_000, released: [] },
        affinity: asMe({ stealAfterMs: 5_000 }),
      });
    for (let i = 0; i < 3; i++) {
      const { taken, nextInMs } = await take();
      expect(taken).toEqual([]);
      // Not "look again now" (that would spin): when its oldest job will have waited the bound.
      expect(nextInMs).toBeGreaterThan(0);
      expect(nextInMs).toBeLessThanOrEqual(5_000);
    }
    expect(await queues.queue('polls', 'T0OTHER').getJobCounts('prioritized', 'delayed', 'active')).toEqual({
      prioritized: 2,
      delayed: 0,
      active: 0,
    });
  }, 20_000);

  it('leaves a due tenant held by another live replica to it until it has been due the bound', async () => {
    const client = await redis.replica();
    const index = new RedisDueIndex(client, `${fresh()}:{due}:tenants`);
    const replicaHolds = () => {
      const holds = new ReplicaHolds({ holdMs: 30_000, stealAfterMs: 60_000 });
      return { holds, view: holds.view(() => true) };
    };
    const [a, b] = [replicaHolds(), replicaHolds()];
    a.holds.set('T0A', true);
    await index.claim(0, 30_000, a.view); // A says it is alive and holds T0A
    for (const tenant of ['T0A', 'T0FREE']) await index.mark(tenant, Date.now() - 1);
    expect((await index.claim(10, 30_000, b.view)).map((c) => c.tenant)).toEqual(['T0FREE']);
    expect((await index.claim(10, 30_000, a.view)).map((c) => c.tenant)).toEqual(['T0A']);
    // Due for longer than the bound (A slow or dead): B claims it.
    await index.mark('T0A', Date.now() - 60_001);
    expect((await index.claim(10, 30_000, b.view)).map((c) => c.tenant)).toEqual(['T0A']);
  });
});
