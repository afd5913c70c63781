import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisDueIndex } from '../../src/state/redis/redis-due-index.js';
import { redisForReplicas } from '../support/redis-replicas.js';

/**
 * The deployment's due index (issue 34) on a real redis-server: a mark never moves a tenant later, a claim
 * is one replica's at a time and lapses if that replica dies, and settling a claim never undoes a mark made
 * while it was held (the claim's score is its fencing token).
 */
describe('the due index', () => {
  const redis = redisForReplicas();
  let client: RedisClient;
  let run = 0;
  let index: RedisDueIndex;

  beforeAll(async () => {
    client = await redis.replica();
  });
  beforeEach(() => {
    index = new RedisDueIndex(client, `test-due-${++run}`);
  });

  it('keeps the earliest mark, and claims only what is due', async () => {
    const now = Date.now();
    await index.mark('T0LATER', now + 60_000);
    await index.mark('T0DUE', now + 60_000);
    await index.mark('T0DUE', now - 1);
    await index.mark('T0DUE', now + 120_000);
    const claims = await index.claim(10, 30_000);
    expect(claims.map((c) => c.tenant)).toEqual(['T0DUE']);
  });

  it('gives each due tenant to one of two replicas claiming at once', async () => {
    const tenants = Array.from({ length: 40 }, (_, i) => `T0C${i}`);
    for (const tenant of tenants) await index.mark(tenant, Date.now() - 1);
    const [a, b] = await Promise.all([index.claim(25, 30_000), index.claim(25, 30_000)]);
    const claimed = [...a, ...b].map((c) => c.tenant);
    expect(new Set(claimed).size).toBe(claimed.length);
    expect(claimed.sort()).toEqual([...tenants].sort());
  });

  it('a claim whose replica died lapses and is claimed again', async () => {
    await index.mark('T0DEAD', Date.now() - 1);
    expect(await index.claim(10, 200)).toHaveLength(1);
    expect(await index.claim(10, 200)).toHaveLength(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await index.claim(10, 200)).map((c) => c.tenant)).toEqual(['T0DEAD']);
  });

  it('settling writes the next due time, or leaves the index; never over a mark made during the claim', async () => {
    await index.mark('T0DONE', Date.now() - 1);
    await index.mark('T0AGAIN', Date.now() - 1);
    const claims = await index.claim(10, 30_000);
    const done = claims.find((c) => c.tenant === 'T0DONE')!;
    const again = claims.find((c) => c.tenant === 'T0AGAIN')!;
    expect(await index.settle(done, undefined)).toBe(true);
    // Owed work recorded for T0AGAIN while its claim was held: its mark stands.
    await index.mark('T0AGAIN', Date.now() - 1);
    expect(await index.settle(again, undefined)).toBe(false);
    expect((await index.claim(10, 30_000)).map((c) => c.tenant)).toEqual(['T0AGAIN']);
    expect(await index.size()).toBe(1);
  });
});
