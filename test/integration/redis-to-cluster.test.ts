import { createClient, createCluster } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyToCluster } from '../../scripts/lib/redis-to-cluster.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { keysOf, type RedisCluster, startRedisCluster } from '../support/redis-cluster.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { ALPHA, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect, prLinkReplies } from '../support/tenant-connect.js';

const FAST_POLLS = { POLL_INTERVAL_MS: '300', POLL_MAX_INTERVAL_MS: '600' };

/**
 * npm run redis:to-cluster, for real: a deployment on one Redis node is stopped with a job under way, its
 * keys are copied to a Redis Cluster, and the bot started on the cluster finishes that job and still knows
 * the install (its token included).
 */
describe('moving a deployment from one Redis node to a Redis Cluster', () => {
  let single: RedisServer;
  let cluster: RedisCluster;
  let first: OAuthTestApp;
  let second: OAuthTestApp | undefined;
  let jobId: string;
  const lines: string[] = [];
  const log = (line: string) => lines.push(line);

  beforeAll(async () => {
    [single, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
    first = await startOAuthApp({ env: { REDIS_URL: single.url, ...FAST_POLLS } });
    registerTenants(first.slack, first.docs);
    expect((await installAndConnect(first, first.slack, ALPHA)).status).toBe(200);
    await first.command({
      text: 'document the move',
      user_id: ALPHA.user,
      team_id: ALPHA.teamId,
      channel_id: ALPHA.channel(1),
    });
    jobId = await waitFor(() => [...first.docs.jobs.keys()][0], { what: 'the job', timeoutMs: 15_000 });
  }, 60_000);

  afterAll(async () => {
    await second?.stop();
    await first?.agent.stop();
    await first?.slack.close();
    await first?.docs.close();
    await Promise.all([single?.stop(), cluster?.stop()]);
  });

  async function clusterKeys(): Promise<string[]> {
    const client = createCluster({ rootNodes: [{ url: cluster.seedUrl }] });
    client.on('error', () => undefined);
    await client.connect();
    try {
      return await keysOf(client);
    } finally {
      await client.close();
    }
  }

  it('refuses while a replica of the bot is still connected to the single node', async () => {
    await expect(copyToCluster({ from: single.url, to: cluster.seedUrl, log })).rejects.toThrow(
      /other clients? (is|are) connected to 127\.0\.0\.1:\d+: stop every replica of the bot first/,
    );
    expect(await clusterKeys()).toEqual([]);
  });

  it('copies every key of the stopped deployment under hash-tagged names', async () => {
    await first.agent.stop();
    // The server notices closed connections a moment after the clients dropped them.
    const result = await waitFor(
      () =>
        copyToCluster({ from: single.url, to: cluster.seedUrl, log }).catch((error: unknown) => {
          if (String(error).includes('connected to')) return undefined;
          throw error;
        }),
      { what: 'a copy once the bot is stopped', timeoutMs: 10_000 },
    );
    expect(result.copied).toBeGreaterThan(0);
    expect(result.skipped['install-counter']).toBeGreaterThan(0);
    const keys = await clusterKeys();
    expect(keys).toHaveLength(result.copied);
    expect(keys.some((key) => key.startsWith('docs-agent:t:{T0ALPHA}'))).toBe(true);
    expect(keys.some((key) => key.startsWith('docs-agent:{directory}:'))).toBe(true);
    // An install's record is under its tenant's tag (issue 43 §5), the directory's index under its own.
    expect(keys.some((key) => key.startsWith('docs-agent:directory:tenant:{T0ALPHA}:'))).toBe(true);
    const tagged = ['docs-agent:{', 'docs-agent:t:{', 'docs-agent:directory:tenant:{'];
    expect(keys.filter((key) => !tagged.some((start) => key.startsWith(start)))).toEqual([]);
    expect(lines.at(-1)).toContain(`the cluster holds exactly those ${result.copied} docs-agent keys`);
  });

  it('the bot started on the cluster finishes the job and answers the workspace', async () => {
    second = await startOAuthApp({
      slack: first.slack,
      docs: first.docs,
      env: { REDIS_URL: cluster.seedUrl, REDIS_CLUSTER: 'true', ...FAST_POLLS },
    });
    const help = await second.command({ text: 'help', user_id: ALPHA.user, team_id: ALPHA.teamId });
    expect(help.status).toBe(200);
    expect(help.body).toContain('/docs-agent');
    const pr = 'https://github.com/acme/docs/pull/8080';
    second.docs.complete(jobId, pr);
    const replies = () => prLinkReplies(second!.slack, pr);
    await waitFor(() => replies().length > 0, { what: 'the PR link reply', timeoutMs: 15_000 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(replies()).toHaveLength(1);
  }, 30_000);

  it('refuses to copy into a cluster that already holds docs-agent keys', async () => {
    await expect(copyToCluster({ from: single.url, to: cluster.seedUrl, log })).rejects.toThrow(
      /already holds docs-agent keys .*: copy into an empty cluster, or pass --force/,
    );
  });

  it('refuses while an old per-tenant queue is still on the single node (its jobs would be lost)', async () => {
    const client = createClient({ url: single.url });
    await client.connect();
    try {
      await client.hSet(`docs-agent:t:${ALPHA.teamId}:bull:polls:meta`, { opts: '{}' });
      await expect(
        copyToCluster({ from: single.url, to: cluster.seedUrl, log, force: true }),
      ).rejects.toThrow(
        /holds 1 key\(s\) of old per-tenant queues .*run `npm run migrate` against the single Redis first/,
      );
    } finally {
      await client.del(`docs-agent:t:${ALPHA.teamId}:bull:polls:meta`);
      await client.close();
    }
  });
});
