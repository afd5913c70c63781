import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webApi } from '@slack/bolt';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { Deliveries } from '../../src/delivery/deliveries.js';
import type { NewDelivery } from '../../src/delivery/domain.js';
import { SlackDeliverySender } from '../../src/slack/delivery-sender.js';
import { SlackGateway } from '../../src/slack/slack-gateway.js';
import { connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisDeliveryStore } from '../../src/state/redis/redis-delivery-store.js';
import { FakeSlack } from '../support/fake-slack.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/*
 * Issue 35, D3: Redis losing data, with a real redis-server. A Redis restarted empty (or flushed) loses what
 * was owed there; a Redis restarted under `appendfsync everysec` may lose its last second of writes, among
 * them the mark that a post was attempted. Either way nothing the bot already posted is posted again blind:
 * the epoch tells the loss, and what may have been attempted is looked up in Slack first.
 */

const PREFIX = 'loss:';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

async function setUp(redisOptions: Parameters<typeof startRedisServer>[0] = {}) {
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', secrets: [], destination: { write: (l) => lines.push(l) } });
  const slack = await FakeSlack.start();
  let redis: RedisServer = await startRedisServer(redisOptions);
  const client: RedisClient = await connectRedis(redis.url, logger, { failFast: false });
  const web = new webApi.WebClient('xoxb-test', {
    slackApiUrl: slack.apiUrl,
    timeout: 2_000,
    retryConfig: { retries: 0 },
    rejectRateLimitedCalls: true,
  });
  const gateway = new SlackGateway(web, { logger, retryBaseMs: 10 });
  const store = new RedisDeliveryStore(client, PREFIX, logger);
  const deliveries = new Deliveries({
    store,
    sender: new SlackDeliverySender(gateway, 2_000),
    logger,
    settleMs: 50,
    graceMs: 0,
    retryBaseMs: 20,
    retryMaxMs: 100,
  });
  cleanups.push(
    () => slack.close(),
    async () => redis.stop(),
    async () => client.destroy(),
    () => gateway.close(),
  );
  return {
    slack,
    client,
    store,
    deliveries,
    logs: () => lines.map((l) => JSON.parse(l) as { level: number; msg: string }),
    /** kill -9 and start again on the same port (and data directory, when it has one). */
    async restart() {
      const port = redis.port;
      await redis.stop();
      redis = await startRedisServer({ ...redisOptions, port });
      await client.ping();
    },
  };
}

const reply = (key: string): NewDelivery => ({
  key,
  target: { kind: 'post', channel: 'C0LOSS', threadTs: null },
  payload: { text: `The pull request for ${key} is open` },
  priority: 'reply',
});
const copiesOf = (slack: FakeSlack, key: string) =>
  slack.messages.filter((m) => m.metadata?.event_payload?.key === key);
const lookups = (slack: FakeSlack) => slack.callsOf('conversations.history').length;

describe('Redis losing data (real redis-server)', () => {
  it('a fresh start looks nothing up: a first epoch is no loss', async () => {
    const { slack, deliveries } = await setUp();
    await deliveries.reconcile();
    expect(await deliveries.deliver(reply('terminal:J1:0'))).toMatchObject({ status: 'posted' });
    expect(copiesOf(slack, 'terminal:J1:0')).toHaveLength(1);
    expect(lookups(slack)).toBe(0);
  });

  it('everysec: a post whose attempt was among the last writes lost is looked up, not posted again', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'docs-agent-redis-everysec-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const { slack, client, deliveries, restart, logs } = await setUp({ dataDir, appendfsync: 'everysec' });
    await deliveries.reconcile();
    const owed = reply('terminal:J2:0');
    expect(await deliveries.deliver(owed)).toMatchObject({ status: 'posted' });
    expect(copiesOf(slack, owed.key)).toHaveLength(1);

    // The host crashed within a second of the post: the record comes back as it was before its attempt.
    const hash = `${PREFIX}delivery:${owed.key}`;
    await client.hSet(hash, { state: 'pending', attempts: '0', notBefore: '0', payload: '{"text":"x"}' });
    await client.hDel(hash, ['postedTs', 'uncertainSince', 'holder', 'leaseUntil', 'sweepUntil']);
    await client.zAdd(`${PREFIX}deliveries:due:reply`, { score: 0, value: owed.key });
    await restart();

    await deliveries.reconcile();
    await expect.poll(async () => (await deliveries.attempt(owed.key)).status).toBe('posted');
    expect(copiesOf(slack, owed.key)).toHaveLength(1);
    expect(lookups(slack)).toBeGreaterThan(0);
    expect(logs().some((l) => l.level === 40 && l.msg.startsWith('Redis restarted'))).toBe(true);
  });

  it('restarted empty (FLUSHALL): a message owed again is looked up first, and the loss is logged', async () => {
    const { slack, client, deliveries, logs } = await setUp();
    await deliveries.reconcile();
    const owed = reply('terminal:J3:0');
    expect(await deliveries.deliver(owed)).toMatchObject({ status: 'posted' });
    await client.flushAll();

    // The job's poll sees it finished again and owes the same reply: found in Slack, not posted twice.
    expect(await deliveries.deliver(owed)).toMatchObject({ status: 'posted' });
    expect(copiesOf(slack, owed.key)).toHaveLength(1);
    expect(lookups(slack)).toBeGreaterThan(0);
    // What was never posted is still posted once.
    expect(await deliveries.deliver(reply('terminal:J4:0'))).toMatchObject({ status: 'posted' });
    expect(copiesOf(slack, 'terminal:J4:0')).toHaveLength(1);
    await deliveries.reconcile();
    expect(logs().some((l) => l.level === 50 && l.msg.startsWith('Redis lost its data'))).toBe(true);
  });

  it('restarted empty: a delivery this replica was attempting is recorded again, to be looked up', async () => {
    const { store, client } = await setUp();
    await store.due(Date.now(), 10);
    const owed = reply('terminal:J5:0');
    await store.record(owed, Date.now());
    const lease = await store.acquire(owed.key, 'replica-a', 30_000, Date.now());
    expect(lease.ok).toBe(true);
    await client.flushAll();

    // Its attempt timed out: the retry finds the record gone and records it again, uncertain.
    const token = lease.ok ? lease.delivery.attempts : 0;
    const retry = { kind: 'retry', notBefore: Date.now(), uncertain: true } as const;
    expect(await store.settle(owed.key, 'replica-a', token, retry, Date.now())).toBe(false);
    const again = await store.get(owed.key);
    expect(again).toMatchObject({ state: 'pending', payload: owed.payload, target: owed.target });
    expect(again?.uncertainSince).toBeDefined();
    expect(await store.due(Date.now(), 10)).toContain(owed.key);
  });
});
