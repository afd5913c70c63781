import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let redis: RedisServer;
const running: TestApp[] = [];
const fakes: Array<{ close(): Promise<void> }> = [];

beforeAll(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  for (const app of running.splice(0)) await app.stop();
  for (const fake of fakes.splice(0)) await fake.close();
});
afterAll(async () => {
  await redis?.stop();
});

async function start(options: Parameters<typeof startTestApp>[0] = {}): Promise<TestApp> {
  const app = await startTestApp(options);
  running.push(app);
  return app;
}

function cardOf(app: TestApp) {
  const card = app.slack.messages.find((m) => !m.thread_ts);
  if (!card) throw new Error('no card posted');
  return card;
}

describe('production mode on Redis (REDIS_URL)', () => {
  it('takes /docs-agent to its terminal reply with state, polls and quota in Redis', async () => {
    await redisFlush();
    const app = await start({ env: { REDIS_URL: redis.url } });
    expect(app.logs.join('\n')).toMatch(/"state":"redis"/);

    const ack = await app.command({ text: 'Document the new 429 response' });
    expect(ack.status).toBe(200);
    const job = await waitFor(() => (app.docs.jobs.size === 1 ? app.docs.onlyJob : undefined), {
      what: 'job created',
    });
    await waitFor(() => app.slack.callsOf('chat.update').length > 0, { what: 'card update' });
    app.docs.complete(job.id, 'https://github.com/acme/docs/pull/7');

    const card = cardOf(app);
    const reply = await waitFor(() => app.slack.threadReplies(card.channel, card.ts)[0], {
      what: 'terminal reply',
    });
    expect(reply.text).toContain('https://github.com/acme/docs/pull/7');
    await sleep(300);
    expect(app.slack.threadReplies(card.channel, card.ts)).toHaveLength(1);

    const keys = await redisKeys();
    expect(keys.some((key) => key.startsWith('docs-agent::job:'))).toBe(true);
    expect(keys.some((key) => key.startsWith('docs-agent:quota:agent-jobs:'))).toBe(true);
    expect(keys.every((key) => key.startsWith('docs-agent:'))).toBe(true);
  });

  it('after a restart mid-job, a new instance on the same Redis posts the terminal reply exactly once', async () => {
    await redisFlush();
    const slack = await FakeSlack.start();
    const docs = await FakeDocs.start();
    fakes.push(slack, docs);
    const env = { REDIS_URL: redis.url };

    const first = await startTestApp({ env, slack, docs });
    await first.command({ text: 'Rewrite the quickstart' });
    const job = await waitFor(() => (docs.jobs.size === 1 ? docs.onlyJob : undefined), { what: 'job' });
    await waitFor(() => docs.requestsTo('GET', /\/job\//).length > 0, { what: 'first poll' });
    await first.stop();

    docs.complete(job.id, 'https://github.com/acme/docs/pull/8');
    const card = slack.messages.find((m) => !m.thread_ts);
    if (!card) throw new Error('no card posted');
    expect(slack.threadReplies(card.channel, card.ts)).toHaveLength(0);

    const second = await start({ env, slack, docs });
    expect(second.logs.join('\n')).toMatch(/"resumedJobs":1/);
    const reply = await waitFor(() => slack.threadReplies(card.channel, card.ts)[0], {
      what: 'terminal reply after restart',
    });
    expect(reply.text).toContain('https://github.com/acme/docs/pull/8');
    await sleep(400);
    expect(slack.threadReplies(card.channel, card.ts)).toHaveLength(1);
    expect(docs.jobs.size).toBe(1);
  });
});

async function withClient<T>(run: (client: RedisClient) => Promise<T>): Promise<T> {
  const client = await connectRedis(redis.url, createLogger({ level: 'silent', secrets: [] }), {
    failFast: true,
  });
  try {
    return await run(client);
  } finally {
    await closeRedis(client);
  }
}

function redisKeys(): Promise<string[]> {
  return withClient((client) => client.keys('*'));
}

async function redisFlush(): Promise<void> {
  await withClient((client) => client.flushDb());
}
