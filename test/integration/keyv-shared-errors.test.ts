import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { redisKeyv } from '../../src/state/redis/redis-keyv.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/**
 * A tenant's store is a view of the connection's shared Keyv (issue 43 §2): a failed command is still told
 * to that store's own listener (its tenant's logger, its `<what> error` line), and still rejects, so the
 * store reports `state_unavailable` rather than "not found".
 */
describe("a store's view of the shared Keyv, when Redis refuses a command", () => {
  let redis: RedisServer;
  let client: RedisClient;

  beforeAll(async () => {
    redis = await startRedisServer();
    client = await connectRedis(redis.url, createLogger({ level: 'silent', secrets: [] }), {
      failFast: true,
    });
  });

  afterAll(async () => {
    await closeRedis(client);
    await redis?.stop();
  });

  it('logs it under the store and tenant, and rejects', async () => {
    const lines: string[] = [];
    const log = createLogger({ level: 'info', secrets: [], destination: { write: (l) => lines.push(l) } });
    const store = redisKeyv(client, 'docs-agent:t:T1', log.child({ tenant: 'T1' }), 'a store');
    const other = redisKeyv(client, 'docs-agent:t:T2', log.child({ tenant: 'T2' }), 'a store');
    await client.hSet(store.keyOf('job:1'), 'not', 'a string'); // GET on a hash: WRONGTYPE
    await expect(store.get('job:1')).rejects.toThrow(/WRONGTYPE/);
    await other.set('job:1', { fine: true });
    expect(await other.get('job:1')).toEqual({ fine: true });
    const told = lines.map((l) => JSON.parse(l) as { msg: string; tenant?: string });
    expect(told).toEqual([expect.objectContaining({ msg: 'a store error', tenant: 'T1' })]);
  });
});
