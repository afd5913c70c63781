import { createClient } from '@redis/client';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { migrationKeys } from '../../src/state/redis/migrations/runner.js';
import { SINGLE_NODE_QUEUE_SHARDS, shardOf, shardPrefix } from '../../src/state/redis/plane-shards.js';
import { bullConnectionOf, closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { OldQueueLayout } from '../support/old-queue-layout.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { ALPHA, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect, startJob } from '../support/tenant-connect.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/**
 * Issue 34, an existing deployment upgraded: a tenant's pending poll in the old per-tenant layout
 * (`docs-agent:t:<tenant>:bull:polls`, its own queue and worker per tenant) runs after the upgrade, once,
 * with nobody using the bot, and the old queue is gone.
 */
describe('OAuth mode on Redis: moving per-tenant queues onto the shared plane', () => {
  let redis: RedisServer;
  let slack: FakeSlack;
  let docs: FakeDocs;
  let app: OAuthTestApp | undefined;
  const env = () => ({ REDIS_URL: redis.url, POLL_INTERVAL_MS: '100', POLL_MAX_INTERVAL_MS: '200' });

  beforeAll(async () => {
    redis = await startRedisServer();
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    registerTenants(slack, docs);
    app = await startOAuthApp({ env: env(), slack, docs });
    expect((await installAndConnect(app, slack, ALPHA)).status).toBe(200);
  });

  afterAll(async () => {
    await app?.stop();
    await slack?.close();
    await docs?.close();
    await redis?.stop();
  });

  it('a pending poll of the old layout runs after the upgrade, once, and its old queue is removed', async () => {
    const docsJob = await startJob(app!, docs, ALPHA, 'document the upgrade flags');
    await app!.stop();
    app = undefined;

    // The deployment as the old version left it: the job's poll in the tenant's own queue, no plane.
    const client = await connectRedis(redis.url, logger, { failFast: false });
    const plane = new Queue('polls', {
      connection: bullConnectionOf(client),
      prefix: shardPrefix('docs-agent', 'polls', shardOf(ALPHA.teamId, SINGLE_NODE_QUEUE_SHARDS)),
    });
    const [pending] = await plane.getJobs(['delayed', 'waiting']);
    if (!pending) throw new Error('the job has no pending poll on the plane');
    const jobId = (pending.data as { jobId: string }).jobId;
    await plane.obliterate({ force: true });
    await plane.close();
    const old = new OldQueueLayout(client, `docs-agent:t:${ALPHA.teamId}`);
    await old.poll(jobId, Date.now());
    await old.close();
    const keys = createClient({ url: redis.url });
    await keys.connect();
    // The old version had no due index either (nothing else wakes the tenant), nor the migrations' record.
    await keys.del(['docs-agent:{due}:tenants', migrationKeys().done]);
    const oldKeys = () => keys.keys(`docs-agent:t:${ALPHA.teamId}:bull:polls:*`);
    expect((await oldKeys()).length).toBeGreaterThan(0);
    await closeRedis(client);

    const pr = 'https://github.com/acme/docs/pull/4242';
    docs.complete(docsJob, pr);
    const replies = () =>
      slack.callsOf('chat.postMessage').filter((c) => JSON.stringify(c.args).includes(pr));
    // The new version starts (its first replica migrates the stored data); nobody sends it anything.
    app = await startOAuthApp({ env: env(), slack, docs });
    await waitFor(() => replies().length > 0, { what: 'the PR link reply', timeoutMs: 15_000 });
    await waitFor(async () => (await oldKeys()).length === 0, {
      what: 'the old queue removed',
      timeoutMs: 5_000,
    });
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(replies()).toHaveLength(1);
    await keys.close();
  });
});
