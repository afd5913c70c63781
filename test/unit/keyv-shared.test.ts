import { describe, expect, it, vi } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { createRedisClient } from '../../src/state/redis/redis-client.js';
import { createRedisState } from '../../src/state/redis/redis-job-store.js';
import { redisKeyv } from '../../src/state/redis/redis-keyv.js';

/**
 * Issue 43 §2: a tenant's stores on the process's shared connection are views of the connection's Keyvs
 * (one for Keyv's own format, one for plain JSON); a Keyv with its adapter, per store per tenant, cost about
 * 2 KB of each resident tenant. Constructions are counted by wrapping Keyv.
 */
const built = vi.hoisted(() => ({ keyv: 0 }));

vi.mock('keyv', async (importOriginal) => {
  const original = await importOriginal<typeof import('keyv')>();
  class CountedKeyv extends original.Keyv {
    constructor(...args: ConstructorParameters<typeof original.Keyv>) {
      super(...args);
      built.keyv += 1;
    }
  }
  return { ...original, default: CountedKeyv, Keyv: CountedKeyv };
});

const logger = createLogger({ level: 'silent', secrets: [] });

describe("stores on the process's shared Redis connection", () => {
  it('share its two Keyvs, however many scopes are built on it', () => {
    // Never connected: building stores sends nothing.
    const client = createRedisClient('redis://127.0.0.1:1', logger, { failFast: true });
    const shared = {
      client,
      queueClient: client,
      connect: async () => undefined,
      close: async () => undefined,
    };
    for (let scope = 0; scope < 50; scope++) {
      const namespace = `docs-agent:t:T${scope}`;
      createRedisState('redis://127.0.0.1:1', logger, { namespace, shared });
      redisKeyv(client, namespace, logger, 'a store');
      redisKeyv(client, namespace, logger, 'a JSON store', { plainJson: true });
    }
    expect(built.keyv).toBe(2);
  });

  it("keeps each namespace's keys where a Keyv namespaced on its own adapter kept them", () => {
    const client = createRedisClient('redis://127.0.0.1:1', logger, { failFast: true });
    expect(redisKeyv(client, 'docs-agent:t:T1', logger, 'a store').keyOf('job:1')).toBe(
      'docs-agent:t:T1::job:1',
    );
  });
});
