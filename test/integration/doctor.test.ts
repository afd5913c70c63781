import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Check, runDoctor } from '../../scripts/lib/doctor-checks.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { oauthEnv, startOAuthApp } from '../support/oauth-app.js';
import { startRedisCluster } from '../support/redis-cluster.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { BOT_TOKEN, startTestApp, type TestApp, testEnv } from '../support/test-app.js';

/** `npm run doctor` against the fakes, a real redis-server and the real bot serving its health routes. */

const lines = (checks: Check[]) => checks.map((c) => `${c.outcome} ${c.name}: ${c.detail}`);

describe('npm run doctor', () => {
  let slack: FakeSlack;
  let docs: FakeDocs;
  let redis: RedisServer;
  let bot: TestApp;
  beforeAll(async () => {
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    redis = await startRedisServer();
    bot = await startTestApp({ slack, docs });
  });
  afterAll(async () => {
    await bot?.stop();
    await redis?.stop();
    await slack?.close();
    await docs?.close();
  });

  it('passes every check of a working set-up, one line each', async () => {
    const env = testEnv(slack, docs, { REDIS_URL: redis.url, PUBLIC_URL: bot.url });
    const checks = await runDoctor({ env });
    expect(checks.map((c) => [c.name, c.outcome])).toEqual([
      ['settings', 'pass'],
      ['Slack', 'pass'],
      ['docs platform', 'pass'],
      ['Redis', 'pass'],
      ['manifest', 'pass'],
      ['public URL', 'pass'],
    ]);
    expect(lines(checks).join('\n')).toMatch(/SLACK_BOT_TOKEN is the bot @docs-agent in Acme/);
    expect(lines(checks).join('\n')).toContain(`${bot.url}/healthz answers 200`);
    // The checks were made: Slack's auth.test with the bot token, one page-views read.
    expect(
      slack.calls.some((c) => c.method === 'auth.test' && c.authorization === `Bearer ${BOT_TOKEN}`),
    ).toBe(true);
    expect(docs.requests.filter((r) => r.path.includes('/analytics/')).length).toBe(1);
  });

  it('says what is wrong and what to do, without stopping at the first failure', async () => {
    slack.inject('auth.test', { kind: 'error', error: 'invalid_auth' });
    const env = testEnv(slack, docs, {
      DOCS_API_KEY: 'svc_not_the_right_key_0123456789',
      REDIS_URL: 'redis://:hunter2-password@127.0.0.1:1',
      PUBLIC_URL: `${bot.url}/nowhere/`,
    });
    const checks = lines(await runDoctor({ env, timeoutMs: 2_000 }));
    expect(checks).toEqual([
      'pass settings: HTTP mode; every variable valid',
      'fail Slack: Slack refused SLACK_BOT_TOKEN (invalid_auth): install the app again (Install App) and copy the Bot User OAuth Token',
      'fail docs platform: DOCS_API_KEY is not accepted: create an admin key (svc_…) on the dashboard’s API keys page',
      'fail Redis: Redis at 127.0.0.1:1 does not answer (ECONNREFUSED): check REDIS_URL (host, port, password)',
      'pass manifest: manifest.yml declares what the code handles',
      `fail public URL: ${bot.url}/nowhere/healthz answers 404: route it to the bot's PORT (0)`,
    ]);
    expect(checks.join('\n')).not.toContain('hunter2');
  });

  it('stops at settings the bot would refuse, listing each', async () => {
    const checks = await runDoctor({ env: { SLACK_BOT_TOKEN: 'xoxb-your-bot-token' } });
    expect(checks.every((c) => c.outcome === 'fail' && c.name === 'settings')).toBe(true);
    expect(lines(checks).join('\n')).toMatch(/SLACK_BOT_TOKEN still holds the placeholder/);
    expect(lines(checks).join('\n')).toMatch(/DOCS_API_KEY is required/);
  });

  it('never prints a key, even one typed where an id goes (issue 44)', async () => {
    const key = 'svc_live_0123456789abcdefghijkl';
    const env = testEnv(slack, docs, { DOCS_CHANNEL_PROJECTS: `C0123ABC=proj_a=${key},C0456DEF=${key}` });
    const printed = lines(await runDoctor({ env })).join('\n');
    expect(printed).toContain('DOCS_CHANNEL_PROJECTS entry 1');
    expect(printed).not.toContain(key.slice(4));
  });

  it('Socket Mode: checks the app-level token too', async () => {
    const env = testEnv(slack, docs, { SLACK_APP_TOKEN: 'xapp-1-A0-1-abcdef' });
    const refused = lines(await runDoctor({ env })).filter((l) => l.includes('Socket Mode:'));
    expect(refused).toEqual([
      'fail Socket Mode: Slack refused SLACK_APP_TOKEN (invalid_auth): generate an app-level token with connections:write (Basic Information → App-Level Tokens), and turn Socket Mode on in the app',
    ]);
    slack.socketUrl = 'ws://127.0.0.1:1/never-opened';
    try {
      const checks = lines(await runDoctor({ env }));
      expect(checks.slice(0, 3)).toEqual([
        'pass settings: Socket Mode; every variable valid',
        'pass Slack: SLACK_BOT_TOKEN is the bot @docs-agent in Acme',
        'pass Socket Mode: SLACK_APP_TOKEN opens Socket Mode connections',
      ]);
      expect(checks.at(-1)).toBe('skip public URL: Socket Mode needs none');
    } finally {
      slack.socketUrl = '';
    }
  });

  it('OAuth mode: checks the app credentials and the install page, skips the per-workspace docs key', async () => {
    const app = await startOAuthApp({ slack, docs });
    try {
      const checks = lines(await runDoctor({ env: oauthEnv(slack, docs, { PUBLIC_URL: app.url }) }));
      expect(checks).toEqual([
        'pass settings: OAuth mode (Add to Slack); every variable valid',
        'pass Slack: SLACK_CLIENT_ID and SLACK_CLIENT_SECRET accepted',
        'skip docs platform: OAuth mode: each workspace connects its own docs project from Slack',
        'skip Redis: no REDIS_URL: state is kept in memory (one process, lost on restart)',
        'pass manifest: manifest.yml declares what the code handles',
        `pass public URL: ${app.url}/healthz answers 200`,
        `pass public URL: ${app.url}/slack/install answers 200`,
      ]);
      const wrong = lines(
        await runDoctor({ env: oauthEnv(slack, docs, { SLACK_CLIENT_SECRET: 'not-it-0123456789' }) }),
      );
      expect(wrong[1]).toMatch(/^fail Slack: Slack refused the app credentials \(bad_client_secret\)/);
    } finally {
      await app.stop();
    }
  });

  it('REDIS_CLUSTER: says a cluster node without it, or it without a cluster node', async () => {
    const cluster = await startRedisCluster();
    const redisLine = async (env: Record<string, string>) =>
      lines(await runDoctor({ env: oauthEnv(slack, docs, env) })).find((l) => l.includes(' Redis: '));
    const node = new URL(cluster.seedUrl).host;
    try {
      expect(await redisLine({ REDIS_URL: cluster.seedUrl, REDIS_CLUSTER: 'true' })).toMatch(
        new RegExp(`^pass Redis: a Redis Cluster node \\d+\\.\\d+ answers at ${node}$`),
      );
      expect(await redisLine({ REDIS_URL: cluster.seedUrl })).toBe(
        `fail Redis: ${node} is a node of a Redis Cluster: set REDIS_CLUSTER=true (OAuth mode; docs/operating.md, "Redis Cluster")`,
      );
      expect(await redisLine({ REDIS_URL: redis.url, REDIS_CLUSTER: 'true' })).toBe(
        `fail Redis: REDIS_CLUSTER=true, but ${new URL(redis.url).host} is not a cluster node: point REDIS_URL at a node of the cluster, or remove REDIS_CLUSTER`,
      );
    } finally {
      await cluster.stop();
    }
  }, 60_000);
});
