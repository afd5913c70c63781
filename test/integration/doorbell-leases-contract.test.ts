import { describe, expect, it } from 'vitest';
import type { DoorbellLeases } from '../../src/jobs/doorbell/ports.js';
import { MemoryDoorbellLeases } from '../../src/state/memory/memory-doorbell-leases.js';
import { RedisDoorbellLeases } from '../../src/state/redis/redis-doorbell-leases.js';
import { redisForReplicas } from '../support/redis-replicas.js';

/** The doorbell's leases, memory and Redis (two clients = two replicas on one Redis): one reader, fenced. */
const redis = redisForReplicas();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const state = (newestNumber: number) => ({ etag: `"e${newestNumber}"`, newestNumber, notBefore: 0 });

async function redisLeases(): Promise<[DoorbellLeases, DoorbellLeases]> {
  const [a, b] = [await redis.replica(), await redis.replica()];
  const prefix = `t${Math.random().toString(36).slice(2, 8)}:`;
  return [new RedisDoorbellLeases(a, prefix), new RedisDoorbellLeases(b, prefix)];
}

const memory = async (): Promise<[DoorbellLeases, DoorbellLeases]> => {
  const leases = new MemoryDoorbellLeases();
  return [leases, leases];
};

describe.each([
  ['memory', memory],
  ['redis', redisLeases],
] as const)('DoorbellLeases (%s)', (_mode, make) => {
  it('one holder at a time; renewing keeps the token; the holder saves, nobody else does', async () => {
    const [a, b] = await make();
    const token = await a.acquire('acme/docs', 'r1', 5_000);
    expect(token).toBeGreaterThan(0);
    expect(await b.acquire('acme/docs', 'r2', 5_000)).toBeNull();
    expect(await a.acquire('acme/docs', 'r1', 5_000)).toBe(token);
    expect(await b.acquire('acme/site', 'r2', 5_000)).toBeGreaterThan(0); // another repository
    expect(await a.save('acme/docs', token!, state(7))).toBe(true);
    expect(await b.state('acme/docs')).toEqual(state(7));
    expect(await b.save('acme/docs', token! + 1, state(8))).toBe(false);
    expect(await b.state('acme/docs')).toEqual(state(7));
    // A PR's turn is in the state: the next holder reads it as saved.
    const turn = { numbers: [8], queue: ['job_b'], current: 'job_a', stamp: 1_000, rungAt: 2_000 };
    expect(await a.save('acme/docs', token!, { ...state(8), turns: [turn] })).toBe(true);
    expect(await b.state('acme/docs')).toEqual({ ...state(8), turns: [turn] });
  });

  it('a lapsed lease goes to the next taker with a higher token; the old holder is fenced off', async () => {
    const [a, b] = await make();
    const old = (await a.acquire('acme/docs', 'r1', 50))!;
    await sleep(120);
    const fresh = (await b.acquire('acme/docs', 'r2', 5_000))!;
    expect(fresh).toBeGreaterThan(old);
    expect(await a.save('acme/docs', old, state(9))).toBe(false);
    expect(await a.acquire('acme/docs', 'r1', 5_000)).toBeNull();
    expect(await b.save('acme/docs', fresh, state(10))).toBe(true);
    // Releasing with a stale token does nothing; with the current one the lease is free at once.
    await a.release('acme/docs', old);
    expect(await a.acquire('acme/docs', 'r1', 5_000)).toBeNull();
    await b.release('acme/docs', fresh);
    expect(await a.acquire('acme/docs', 'r1', 5_000)).toBeGreaterThan(fresh);
  });
});
