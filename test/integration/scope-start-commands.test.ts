import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { ALPHA, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect, startJob } from '../support/tenant-connect.js';

/**
 * Issue 43 §6: the conversions of older layouts are the deployment migration's, run once. A scope's start
 * (and a process's, once the migration is recorded) sends Redis no look for an old per-tenant queue
 * (`EXISTS <ns>:bull:<name>:…`, a retirement lease) and no Pub/Sub announce of directory writes.
 */
describe('OAuth mode on Redis: what a scope start sends to Redis', () => {
  let redis: RedisServer;
  let slack: FakeSlack;
  let docs: FakeDocs;
  let app: OAuthTestApp | undefined;
  const seen: string[] = [];

  beforeAll(async () => {
    redis = await startRedisServer();
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    registerTenants(slack, docs);
  });

  afterAll(async () => {
    await app?.stop();
    await slack?.close();
    await docs?.close();
    await redis?.stop();
  });

  it('no legacy EXISTS, retirement lease or PUBLISH from a process start, an install or a scope start', async () => {
    const watcher = createClient({ url: redis.url });
    await watcher.connect();
    await watcher.monitor((line) => seen.push(String(line)));
    try {
      app = await startOAuthApp({ env: { REDIS_URL: redis.url }, slack, docs });
      expect((await installAndConnect(app, slack, ALPHA)).status).toBe(200);
      // A restart: the tenant's scope is built anew by its first command (every view starts).
      await app.stop();
      app = await startOAuthApp({ env: { REDIS_URL: redis.url }, slack, docs });
      await startJob(app, docs, ALPHA, 'document the monitor');
      // Something the scope's start sent after its views started, so the look is complete.
      await waitFor(() => seen.some((line) => line.includes('poll-T0ALPHA-')), {
        what: 'the job’s poll queued',
        timeoutMs: 15_000,
      });
    } finally {
      watcher.destroy();
    }
    const legacy = seen.filter(
      (line) => /"EXISTS"[^\n]*:bull:/.test(line) || /"PUBLISH"/.test(line) || /:retiring"/.test(line),
    );
    expect(legacy).toEqual([]);
    // The look saw the scope's own commands (the watch is not vacuous).
    expect(seen.some((line) => line.includes('docs-agent:t:T0ALPHA:'))).toBe(true);
  }, 60_000);
});
