import { connect } from 'node:net';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/common/config.js';
import { createLogger } from '../../src/common/logger.js';
import { createDocsAgent } from '../../src/composition/app.js';
import { freePort } from '../support/bot-process.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { testEnv } from '../support/test-app.js';

/**
 * A stop that arrives while the bot is still starting (SIGTERM during start-up, or a tenant uninstalled while
 * its runtime starts) leaves nothing behind: no queue worker or timer started after the stop.
 */
describe('stopping during start-up', () => {
  let redis: RedisServer;
  let slack: FakeSlack;
  let docs: FakeDocs;
  let admin: ReturnType<typeof createClient>;
  beforeAll(async () => {
    redis = await startRedisServer();
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    admin = createClient({ url: redis.url });
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.close();
    await slack?.close();
    await docs?.close();
    await redis?.stop();
  });

  /** Connections of the bot still open on Redis (every one but ours). */
  const botConnections = async () =>
    String(await admin.sendCommand(['CLIENT', 'LIST']))
      .split('\n')
      .filter((line) => line.trim() && !line.includes('cmd=client|list')).length;

  it('at any moment of start-up: once stopped, no connection of the bot stays open on Redis', async () => {
    const config = loadConfig(testEnv(slack, docs, { REDIS_URL: redis.url, PORT: '0' }));
    const leaked: number[] = [];
    for (let i = 0; i < 12; i++) {
      const agent = createDocsAgent(config, { logger: createLogger({ level: 'silent', secrets: [] }) });
      const started = agent.start().catch(() => undefined);
      // Stop at a different moment of start-up each time: before Redis answers, mid-way, or just after.
      await new Promise((r) => setTimeout(r, i * 15));
      await agent.stop();
      await started;
      await new Promise((r) => setTimeout(r, 300));
      const open = await botConnections();
      if (open > 0) leaked.push(i);
      await admin.sendCommand(['CLIENT', 'KILL', 'TYPE', 'normal', 'SKIPME', 'yes']);
    }
    expect(leaked).toEqual([]);
  });

  /** Whether something accepts connections on the port (the bot's HTTP or metrics server still open). */
  const listening = (port: number) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });

  it('at any moment of start-up: once stopped, neither its HTTP port nor its metrics port stays open', async () => {
    const leaked: string[] = [];
    for (let i = 0; i < 10; i++) {
      const [port, metricsPort] = [await freePort(), await freePort()];
      const env = { PORT: String(port), METRICS_PORT: String(metricsPort) };
      const config = loadConfig(testEnv(slack, docs, env));
      // The token check takes a while: stops land before it, during it, while the ports open, or after.
      slack.inject('auth.test', { kind: 'delay', ms: 60, thenSucceed: true });
      const agent = createDocsAgent(config, { logger: createLogger({ level: 'silent', secrets: [] }) });
      const started = agent.start().catch(() => undefined);
      await new Promise((r) => setTimeout(r, i * 12));
      await agent.stop();
      await started;
      if (await listening(port)) leaked.push(`${i}: HTTP`);
      if (await listening(metricsPort)) leaked.push(`${i}: metrics`);
    }
    expect(leaked).toEqual([]);
  });
});
