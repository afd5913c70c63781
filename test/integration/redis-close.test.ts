import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const logger = createLogger({ level: 'silent', secrets: [] });
const within = <T>(work: Promise<T>, ms: number) =>
  Promise.race([
    work.then(() => 'done' as const),
    new Promise<'hung'>((r) => setTimeout(() => r('hung'), ms)),
  ]);

/** Shutdown closes Redis connections: answers already owed are waited for, a dead connection never hangs it. */
describe('closing a Redis connection', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(async () => {
    await redis?.stop();
  });

  it('waits for the answers to commands already sent', async () => {
    const client = await connectRedis(redis.url, logger, { failFast: false });
    const written = client.set('close-test', 'kept');
    await closeRedis(client);
    expect(await written).toBe('OK');
    const reader = createClient({ url: redis.url });
    await reader.connect();
    expect(await reader.get('close-test')).toBe('kept');
    await reader.close();
  });

  it('returns at once while Redis is down, refusing the commands it had queued', async () => {
    const client = await connectRedis(redis.url, logger, { failFast: false });
    const port = Number(new URL(redis.url).port);
    await redis.stop();
    await new Promise((r) => setTimeout(r, 200));
    // Queued (offline queue) while reconnecting: it can only ever be answered once Redis is back.
    const queued = client.get('close-test').then(
      () => 'answered',
      () => 'refused',
    );
    expect(await within(closeRedis(client), 4_000)).toBe('done');
    expect(await queued).toBe('refused');
    redis = await startRedisServer({ port });
  });
});
