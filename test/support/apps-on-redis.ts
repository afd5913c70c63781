import { afterAll, afterEach, beforeAll } from 'vitest';
import { type RedisServer, startRedisServer } from './redis-server.js';
import { startTestApp, type TestApp } from './test-app.js';

/**
 * The lifecycle of a test file that runs its cases in memory and in Redis mode: one redis-server for the
 * file, and each app a test starts, stopped after it. Call at the top level of the file.
 */
export function appsOnRedis() {
  let redis: RedisServer | undefined;
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
    /** The test's app, stopped after the test. */
    async start(options?: Parameters<typeof startTestApp>[0]): Promise<TestApp> {
      const app = await startTestApp(options);
      started.push(app);
      return app;
    },
  };
}
