import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import type { Evidence } from '../../src/insights/health/evidence.js';
import { encodeEvidenceRef } from '../../src/insights/health/evidence-ref.js';
import { HealthEvidence, isEvidenceId } from '../../src/insights/health/health-evidence.js';
import type { EvidenceStore } from '../../src/insights/health/ports.js';
import { createMemoryEvidenceStore, createRedisEvidenceStore } from '../../src/state/keyv-evidence-store.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const range = { from: '2026-03-03', toExclusive: '2026-03-10' };
/** Quote-heavy evidence: double-encoded into private_metadata it exceeded Slack's 3,000. */
const quoteHeavy: Evidence = {
  kind: 'page',
  path: `/a/${'"\\'.repeat(600)}`,
  thumbsDown: 3,
  thumbsUp: 0,
  comments: ['"'.repeat(2000), '\\'.repeat(2000), '"x"'.repeat(600)],
  removed: 4,
  range,
};

function contract(name: string, make: () => Promise<{ store: EvidenceStore; close(): Promise<void> }>) {
  describe(`evidence store (${name})`, () => {
    it('keeps evidence whole under a short id, for any replica, and forgets it after its TTL', async () => {
      const { store, close } = await make();
      try {
        const evidence = new HealthEvidence(store);
        const id = await evidence.save(quoteHeavy);
        expect(isEvidenceId(id)).toBe(true);
        expect(id.length).toBeLessThan(30);
        expect(await evidence.load(id)).toEqual(quoteHeavy);
        expect(await evidence.load('ev_AAAAAAAAAAAAAAAA')).toBeUndefined();
        // Buttons posted before ids carry the evidence itself: they still load.
        const old: Evidence = { kind: 'search', query: 'sso', hits: 2, ctr: 0, share: undefined, range };
        expect(await evidence.load(encodeEvidenceRef(old))).toMatchObject({ kind: 'search', query: 'sso' });

        const shortLived = new HealthEvidence(store, 50);
        const gone = await shortLived.save(quoteHeavy);
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(await shortLived.load(gone)).toBeUndefined();
      } finally {
        await close();
      }
    });
  });
}

contract('memory', async () => ({ store: createMemoryEvidenceStore(logger), close: async () => undefined }));

describe('redis', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  contract('redis', async () => {
    const namespace = `ns-${randomUUID()}`;
    const a = await connectRedis(redis.url, logger, { failFast: true });
    return { store: createRedisEvidenceStore(a, namespace, logger), close: () => closeRedis(a) };
  });

  it('lets a second replica load what the first saved', async () => {
    const namespace = `ns-${randomUUID()}`;
    const a = await connectRedis(redis.url, logger, { failFast: true });
    const b = await connectRedis(redis.url, logger, { failFast: true });
    try {
      const id = await new HealthEvidence(createRedisEvidenceStore(a, namespace, logger)).save(quoteHeavy);
      expect(await new HealthEvidence(createRedisEvidenceStore(b, namespace, logger)).load(id)).toEqual(
        quoteHeavy,
      );
      const ttl = await a.pTTL(`${namespace}::evidence:${id}`);
      expect(ttl).toBeGreaterThan(6 * 24 * 3600 * 1000);
    } finally {
      await closeRedis(a);
      await closeRedis(b);
    }
  });
});
