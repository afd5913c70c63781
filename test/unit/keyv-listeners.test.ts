import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { createRedisClient } from '../../src/state/redis/redis-client.js';
import { createRedisState } from '../../src/state/redis/redis-job-store.js';
import { type RedisKeyValues, redisKeyv } from '../../src/state/redis/redis-keyv.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/** A process's shared connection, never connected: building stores on it sends nothing. */
function unconnectedShared() {
  const client = createRedisClient('redis://127.0.0.1:1', logger, { failFast: true });
  return { client, queueClient: client, connect: async () => undefined, close: async () => undefined };
}

/**
 * Issue 43 §2: a tenant's stores on the process's shared connection are views of the connection's Keyvs
 * (one for Keyv's own format, one for plain JSON); a Keyv with its adapter, per store per tenant, cost about
 * 2 KB of each resident tenant. The Keyv behind each view is read from the view (the unit project shares
 * its module cache between files, so a module mock of Keyv could not count constructions here).
 */
const keyvOf = (view: RedisKeyValues): unknown => (view as unknown as { shared: unknown }).shared;

describe("stores on the process's shared Redis connection", () => {
  it('leave no listener behind, however many scopes are built on it (issue 34: scopes come and go)', () => {
    const shared = unconnectedShared();
    const { client } = shared;
    const counts = () =>
      ['error', 'connect', 'disconnect', 'reconnecting'].map((e) => client.listenerCount(e));
    const before = counts();
    for (let scope = 0; scope < 50; scope++) {
      createRedisState('redis://127.0.0.1:1', logger, { namespace: `docs-agent:t:T${scope}`, shared });
      redisKeyv(client, `docs-agent:t:T${scope}`, logger, 'a store');
    }
    expect(counts()).toEqual(before);
  });

  it('share its two Keyvs, however many scopes are built on it', () => {
    const shared = unconnectedShared();
    const { client } = shared;
    const keyvs = new Set<unknown>();
    for (let scope = 0; scope < 50; scope++) {
      const namespace = `docs-agent:t:T${scope}`;
      const { store } = createRedisState('redis://127.0.0.1:1', logger, { namespace, shared });
      keyvs.add(keyvOf((store as unknown as { keyv: RedisKeyValues }).keyv));
      keyvs.add(keyvOf(redisKeyv(client, namespace, logger, 'a store')));
      keyvs.add(keyvOf(redisKeyv(client, namespace, logger, 'a JSON store', { plainJson: true })));
    }
    expect(keyvs.size).toBe(2);
  });

  it("keeps each namespace's keys where a Keyv namespaced on its own adapter kept them", () => {
    const { client } = unconnectedShared();
    expect(redisKeyv(client, 'docs-agent:t:T1', logger, 'a store').keyOf('job:1')).toBe(
      'docs-agent:t:T1::job:1',
    );
  });
});
