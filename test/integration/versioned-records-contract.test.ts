import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { VersionedRecords } from '../../src/common/versioned-records.js';
import { createRedisEvidenceStore } from '../../src/state/keyv-evidence-store.js';
import { createMemoryVersionedRecords, RedisVersionedRecords } from '../../src/state/versioned-records.js';
import { redisForReplicas } from '../support/redis-replicas.js';

/*
 * Issue 46 §1: a shared message's state is changed by compare-and-set, so two changes at once (two people,
 * two replicas) never overwrite each other. The same contract in memory and in Redis.
 */

const logger = createLogger({ level: 'silent', secrets: [] });
const HOUR = 60 * 60 * 1000;

function contract(name: string, make: () => Promise<{ a: VersionedRecords; b: VersionedRecords }>) {
  describe(`versioned records (${name})`, () => {
    it('writes only over the version read: absent is 0, each write one higher, a stale write refused', async () => {
      const { a, b } = await make();
      const key = `shared-msg:C0DOCS:${randomUUID()}`;
      expect(await a.read(key)).toBeUndefined();
      expect(await a.write(key, '{"n":1}', 1, HOUR)).toBe(false);
      expect(await a.write(key, '{"n":1}', 0, HOUR)).toBe(true);
      expect(await b.read(key)).toEqual({ json: '{"n":1}', version: 1 });
      expect(await b.write(key, '{"n":2}', 0, HOUR)).toBe(false); // someone wrote since b read "absent"
      expect(await b.write(key, '{"n":2}', 1, HOUR)).toBe(true);
      expect(await a.write(key, '{"n":3}', 1, HOUR)).toBe(false);
      expect(await a.read(key)).toEqual({ json: '{"n":2}', version: 2 });
    });

    it('of two writes over one version at the same instant, exactly one lands', async () => {
      const { a, b } = await make();
      const key = `shared-msg:C0DOCS:${randomUUID()}`;
      await a.write(key, '{"n":0}', 0, HOUR);
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).write(key, `{"n":${i + 1}}`, 1, HOUR)),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
      const winner = results.indexOf(true) + 1;
      expect(await b.read(key)).toEqual({ json: `{"n":${winner}}`, version: 2 });
    });

    it('forgets a record after its time to live', async () => {
      const { a } = await make();
      const key = `shared-msg:C0DOCS:${randomUUID()}`;
      expect(await a.write(key, '{}', 0, 50)).toBe(true);
      await expect.poll(() => a.read(key), { timeout: 5000, interval: 50 }).toBeUndefined();
      expect(await a.write(key, '{}', 0, HOUR)).toBe(true);
    });
  });
}

contract('memory', async () => {
  const records = createMemoryVersionedRecords(logger);
  return { a: records, b: records };
});

describe('in Redis', () => {
  const redis = redisForReplicas();
  contract('redis, two replicas', async () => {
    const namespace = `ns-${randomUUID()}`;
    return {
      a: new RedisVersionedRecords(await redis.replica(), namespace),
      b: new RedisVersionedRecords(await redis.replica(), namespace),
    };
  });

  it('reads a state kept before versions (by the evidence store) as version 1 and goes on from it', async () => {
    const namespace = `ns-${randomUUID()}`;
    const client = await redis.replica();
    const evidence = createRedisEvidenceStore(client, namespace, logger);
    await evidence.put('shared-msg:C0DOCS:1700000000.000100', '{"old":true}', HOUR);
    const records = new RedisVersionedRecords(client, namespace);
    expect(await records.read('shared-msg:C0DOCS:1700000000.000100')).toEqual({
      json: '{"old":true}',
      version: 1,
    });
    expect(await records.write('shared-msg:C0DOCS:1700000000.000100', '{"new":true}', 0, HOUR)).toBe(false);
    expect(await records.write('shared-msg:C0DOCS:1700000000.000100', '{"new":true}', 1, HOUR)).toBe(true);
    // A replica not yet upgraded still reads it (Keyv's envelope, with its expiry).
    expect(await evidence.get('shared-msg:C0DOCS:1700000000.000100')).toBe('{"new":true}');
  });
});
