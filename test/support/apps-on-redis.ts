import { afterAll, afterEach, beforeAll } from 'vitest';
import { type RedisServer, startRedisServer } from './redis-server.js';
import { startTestApp, type TestApp } from './test-app.js';

/**
 * The lifecycle of a test file that runs its cases in memory and in Redis mode: one redis-server for the
 * file, and each app a test starts, stopped after it. Call at the top level of the file.
 */
export function appsOnRedis() {
  let redis: RedisServer | undefined;
  let database = 0;
  const started: TestApp[] = [];
  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterEach(async () => {
    for (const app of started.splice(0)) await app.stop();
  });
  afterAll(async () => {
    await redis?.stop();
  });
  return {
    /** The file's redis-server (started before the first test). */
    redisUrl(): string {
      if (!redis) throw new Error('redis-server not started yet: use redisUrl() inside a test');
      return redis.url;
    },
    /**
     * A database of its own on the file's redis-server (Redis has 16; database 0 is `redisUrl()`'s), for a
     * test whose fakes number their ids from 1 again.
     */
    freshRedisUrl(): string {
      database += 1;
      if (database > 15) throw new Error('more than 15 fresh Redis databases in one file');
      return `${this.redisUrl()}/${database}`;
    },
    /** The test's app, stopped after the test. */
    async start(options?: Parameters<typeof startTestApp>[0]): Promise<TestApp> {
      const app = await startTestApp(options);
      started.push(app);
      return app;
    },
  };
}
