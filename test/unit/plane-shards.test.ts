import { describe, expect, it } from 'vitest';
import { fnv1a, shardConcurrency, shardOf, shardPrefix } from '../../src/state/redis/plane-shards.js';

/** Issue 43: a tenant's shard is the same on every replica and start, and spread over the shards. */
describe('queue plane shards', () => {
  it('hashes a tenant to the same shard every time (FNV-1a, fixed values) and one shard is shard 0', () => {
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(shardOf('T0ACME', 8)).toBe(shardOf('T0ACME', 8));
    expect(shardOf('T0ACME', 1)).toBe(0);
    expect(shardPrefix('docs-agent', 'polls', 3)).toBe('docs-agent:{plane-polls-3}');
  });

  it('spreads a thousand tenants over eight shards, none holding more than twice its share', () => {
    const counts = new Array<number>(8).fill(0);
    for (let i = 0; i < 1000; i++) counts[shardOf(`T0${(i * 7919).toString(36).toUpperCase()}`, 8)]!++;
    expect(Math.min(...counts)).toBeGreaterThan(0);
    expect(Math.max(...counts)).toBeLessThan(250);
  });

  it('divides a kind’s concurrency among its shards, keeping a slot beyond one tenant’s cap', () => {
    expect(shardConcurrency(32, 8, 2)).toBe(4);
    expect(shardConcurrency(16, 8, 4)).toBe(5);
    expect(shardConcurrency(4, 8, 4)).toBe(4);
    expect(shardConcurrency(1, 8, 4)).toBe(1);
  });
});
