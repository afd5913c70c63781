import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { createRedisClient } from '../../src/state/redis/redis-client.js';
import { createRedisState } from '../../src/state/redis/redis-job-store.js';
import { redisKeyv } from '../../src/state/redis/redis-keyv.js';

const logger = createLogger({ level: 'silent', secrets: [] });

describe("stores on the process's shared Redis connection", () => {
  it('leave no listener behind, however many scopes are built on it (issue 34: scopes come and go)', () => {
    // Never connected: building stores sends nothing, and listeners are all this looks at.
    const client = createRedisClient('redis://127.0.0.1:1', logger, { failFast: true });
    const shared = {
      client,
      queueClient: client,
      connect: async () => undefined,
      close: async () => undefined,
    };
    const counts = () =>
      ['error', 'connect', 'disconnect', 'reconnecting'].map((e) => client.listenerCount(e));
    const before = counts();
    for (let scope = 0; scope < 50; scope++) {
      createRedisState('redis://127.0.0.1:1', logger, { namespace: `docs-agent:t:T${scope}`, shared });
      redisKeyv(client, `docs-agent:t:T${scope}`, logger, 'a store');
    }
    expect(counts()).toEqual(before);
  });
});
