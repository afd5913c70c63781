import { createClient } from '@redis/client';
import { Queue } from 'bullmq';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import {
  SINGLE_NODE_QUEUE_SHARDS,
  shardOf,
  shardPrefix,
  unshardedPrefix,
} from '../../src/state/redis/plane-shards.js';
import { QueuePlane } from '../../src/state/redis/queue-plane.js';
import { bullConnectionOf, closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { ALPHA, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect, startJob } from '../support/tenant-connect.js';

const logger = createLogger({ level: 'silent', secrets: [] });

/**
 * Issue 43, a deployment upgraded from one queue per kind (`docs-agent:{plane-polls}`) to shards: a
 * tenant's poll left in the old queue runs after the upgrade, once, with nobody using the bot (nothing
 * else wakes the tenant), and the old queue is gone.
 */
describe('OAuth mode on Redis: upgrading to a sharded queue plane', () => {
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

  it('a poll waiting in the one queue of before runs after the upgrade, once, and that queue is removed', async () => {
    const docsJob = await startJob(app!, docs, ALPHA, 'document the shard setting');
    await app!.stop();
    app = undefined;

    // The deployment as the version before left it: the job's poll in `{plane-polls}`, no shard.
    const client = await connectRedis(redis.url, logger, { failFast: false });
    const connection = bullConnectionOf(client);
    const shard = new Queue('polls', {
      connection,
      prefix: shardPrefix('docs-agent', 'polls', shardOf(ALPHA.teamId, SINGLE_NODE_QUEUE_SHARDS)),
    });
    const old = new Queue('polls', { connection, prefix: unshardedPrefix('docs-agent', 'polls') });
    const [pending] = await shard.getJobs(['delayed', 'waiting']);
    if (!pending?.id) throw new Error('the job has no pending poll on the plane');
    await old.add(pending.name, pending.data, { ...pending.opts, jobId: pending.id, delay: 300 });
    await shard.obliterate({ force: true });
    await Promise.all([shard.close(), old.close()]);
    await closeRedis(client);
    const keys = createClient({ url: redis.url });
    await keys.connect();
    // Nothing else wakes the tenant: no owed work marked, no shard count of an earlier start.
    await keys.del(['docs-agent:{due}:tenants', 'docs-agent:{plane}:shards']);
    const oldKeys = () => keys.keys('docs-agent:{plane-polls}:*');
    expect((await oldKeys()).length).toBeGreaterThan(0);

    const pr = 'https://github.com/acme/docs/pull/4343';
    docs.complete(docsJob, pr);
    const replies = () =>
      slack.callsOf('chat.postMessage').filter((c) => JSON.stringify(c.args).includes(pr));
    // The new version starts; nobody sends it anything.
    app = await startOAuthApp({ env: env(), slack, docs });
    await waitFor(() => replies().length > 0, { what: 'the PR link reply', timeoutMs: 15_000 });
    await waitFor(async () => (await oldKeys()).length === 0, {
      what: 'the old queue removed',
      timeoutMs: 5_000,
    });
    // A second pass (every replica runs one a minute) finds nothing more to move.
    const again = await connectRedis(redis.url, logger, { failFast: false });
    const plane = new QueuePlane({ client: again, logger, wake: async () => 'gone' });
    expect(await plane.rehome()).toEqual({ jobs: 0, schedulers: 0, held: 0 });
    await plane.close();
    await closeRedis(again);
    expect(replies()).toHaveLength(1);
    await keys.close();
  });
});
