import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SINGLE_NODE_QUEUE_SHARDS } from '../../src/common/config-oauth.js';
import { PLANE_KINDS } from '../../src/state/redis/plane-kinds.js';
import { shardOf, shardPrefix } from '../../src/state/redis/plane-shards.js';
import { DUE_INDEX_KEY } from '../../src/state/redis/redis-due-index.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { redisForReplicas } from '../support/redis-replicas.js';
import { ALPHA, BETA, registerTenants, type TestTenant } from '../support/tenant-bots.js';
import { installAndConnect } from '../support/tenant-connect.js';

/**
 * Issue 43 "no thrash", its wiring in the OAuth app: a scope evicted idle keeps its hold in Redis (its work
 * comes back to this replica first, and nothing is written for it), one evicted for room lets it go (any
 * replica takes its work). The tenants here have no job in flight, so nothing builds their scope again and
 * writes the hold anew before the check looks.
 */

/** The queue plane's key prefix (QueuePlane's default, which the OAuth app keeps). */
const PLANE_PREFIX = 'docs-agent';
const WAIT = { timeoutMs: 15_000 };

/** The `held` hashes whose scripts hand out the tenant's work: its shard of each plane kind, the due index. */
const heldKeys = (t: TestTenant) => [
  ...PLANE_KINDS.map(
    (kind) => `${shardPrefix(PLANE_PREFIX, kind, shardOf(t.key, SINGLE_NODE_QUEUE_SHARDS))}:fair:held`,
  ),
  `${DUE_INDEX_KEY}:held`,
];

/** Every HSET and HDEL on a `held` hash, in order (Redis keyspace notifications: no MONITOR). */
async function watchHeldWrites(url: string) {
  const client = createClient({ url });
  await client.connect();
  await client.configSet('notify-keyspace-events', 'Kh');
  const subscriber = client.duplicate();
  await subscriber.connect();
  const writes: Array<{ key: string; op: string }> = [];
  const channel = '__keyspace@0__:';
  await subscriber.pSubscribe(`${channel}*:held`, (op, key) => {
    writes.push({ key: key.slice(channel.length), op });
  });
  return {
    writes,
    /** Writes after the first `from`, by op, counted per key. */
    since(from: number, op: string) {
      const counts = new Map<string, number>();
      for (const w of writes.slice(from)) if (w.op === op) counts.set(w.key, (counts.get(w.key) ?? 0) + 1);
      return counts;
    },
    client,
    async close() {
      await subscriber.close();
      await client.close();
    },
  };
}

function harness(options: Parameters<typeof startOAuthApp>[0]) {
  const redis = redisForReplicas();
  const ctx = {} as { app: OAuthTestApp; held: Awaited<ReturnType<typeof watchHeldWrites>> };

  beforeAll(async () => {
    ctx.held = await watchHeldWrites(redis.url());
    ctx.app = await startOAuthApp({
      ...options,
      env: { REDIS_URL: redis.url(), LOG_LEVEL: 'debug', INSTALLS_PER_MINUTE: '1000' },
      syncIntervalMs: 100,
    });
    registerTenants(ctx.app.slack, ctx.app.docs);
  });

  afterAll(async () => {
    await ctx.app?.stop();
    await ctx.held?.close();
  });

  const logged = (t: TestTenant, what: string, from = 0) =>
    ctx.app.logs.slice(from).filter((l) => l.includes(`"tenant":"${t.key}"`) && l.includes(what)).length;
  return {
    ctx,
    logged,
    builds: (t: TestTenant) => logged(t, 'tenant runtime started'),
    /** Who holds the tenant in each of its `held` hashes (null: nobody). */
    holders: (t: TestTenant) => Promise.all(heldKeys(t).map((key) => ctx.held.client.hGet(key, t.key))),
    /** Installs the tenant's workspace (its installer: its own person); its scope is built for its welcome. */
    async install(t: TestTenant) {
      ctx.app.slack.oauth.installerUserId = t.user;
      expect((await ctx.app.install(t.install)).status).toBe(200);
    },
    /**
     * Nothing of the tenant's owed any more: its welcome DM posted (its only owed work) and the due index
     * no longer naming it (else its next look would build the scope again and write its hold anew).
     */
    async quiet(t: TestTenant) {
      const name = t.install.isEnterpriseInstall ? t.install.enterpriseName : t.install.teamName;
      const welcome = `installed in ${name}`;
      const posts = () => ctx.app.slack.callsOf('chat.postMessage');
      await waitFor(() => posts().some((c) => JSON.stringify(c.args).includes(welcome)), {
        ...WAIT,
        what: `${t.marker}'s welcome`,
      });
      await waitFor(async () => (await ctx.held.client.zScore(DUE_INDEX_KEY, t.key)) === null, {
        ...WAIT,
        what: `${t.marker} out of the due index`,
      });
    },
    /** A command with no work behind it: the scope serves it, and nothing of it stays in flight. */
    async help(t: TestTenant) {
      const ack = await ctx.app.command({
        ...{ text: 'help', user_id: t.user, team_id: t.teamId, channel_id: t.channel(1) },
      });
      expect(ack.status).toBe(200);
    },
  };
}

/** The one replica holding the tenant in all its `held` hashes, once each is written. */
async function heldEverywhere(holders: () => Promise<Array<string | null>>, what: string) {
  const seen = await waitFor(
    async () => {
      const all = await holders();
      return all.every((h) => h !== null) && new Set(all).size === 1 ? all : undefined;
    },
    { ...WAIT, what },
  );
  return seen[0]!;
}

describe('OAuth mode on Redis: a scope evicted idle keeps its hold', () => {
  const { ctx, logged, builds, holders, help, install, quiet } = harness({ scopeIdleMs: 2_000 });

  it('leaves the tenant held by this replica in every hash, written neither again nor away', async () => {
    const { app, held } = ctx;
    expect((await installAndConnect(app, app.slack, ALPHA)).status).toBe(200);
    await quiet(ALPHA);
    const from = app.logs.length;
    await help(ALPHA); // built again here if it was evicted meanwhile
    const replica = await heldEverywhere(() => holders(ALPHA), 'ALPHA held in each hash');
    // Its writes are all in the record before the eviction's point in it is taken.
    await waitFor(() => held.since(0, 'hset').size === heldKeys(ALPHA).length, {
      ...WAIT,
      what: "ALPHA's writes in the record",
    });

    await waitFor(() => logged(ALPHA, 'idle; evicted', from) > 0, { ...WAIT, what: 'ALPHA evicted idle' });
    const evictedAt = held.writes.length;
    const alphaBuilds = builds(ALPHA);
    // BETA's scope built now: in each slot its hold is written by a call that would also carry ALPHA's
    // letting go, had the eviction let it go. Seen written everywhere, that call has run in every slot.
    await install(BETA);
    expect(await heldEverywhere(() => holders(BETA), 'BETA held in each hash')).toBe(replica);

    expect(await holders(ALPHA)).toEqual(heldKeys(ALPHA).map(() => replica));
    expect(builds(ALPHA)).toBe(alphaBuilds); // not built again: nothing gave it a hold anew
    await waitFor(() => held.since(evictedAt, 'hset').size === heldKeys(BETA).length, {
      ...WAIT,
      what: "BETA's writes in the record",
    });
    // Since the eviction: no HDEL at all, and in each hash only BETA's HSET (once per build of its scope).
    expect(held.since(evictedAt, 'hdel')).toEqual(new Map());
    const once = new Map(heldKeys(BETA).map((key) => [key, builds(BETA)]));
    expect(held.since(evictedAt, 'hset')).toEqual(once);
  }, 60_000);
});

describe('OAuth mode on Redis: a scope evicted for room lets its hold go', () => {
  const room = { scopeIdleMs: 600_000, maxResidentScopes: 1 };
  const { ctx, logged, builds, holders, help, install, quiet } = harness(room);

  it('removes the tenant from every hash at the next script call, and the newcomer is held', async () => {
    const { app } = ctx;
    expect((await installAndConnect(app, app.slack, ALPHA)).status).toBe(200);
    await quiet(ALPHA);
    await help(ALPHA);
    const replica = await heldEverywhere(() => holders(ALPHA), 'ALPHA held in each hash');
    const from = app.logs.length;
    const alphaBuilds = builds(ALPHA);

    // BETA's scope is one beyond the cap: ALPHA, the least recent, is evicted for room.
    await install(BETA);
    await waitFor(() => logged(ALPHA, 'beyond the cap; evicted', from) > 0, {
      ...WAIT,
      what: 'ALPHA evicted for room',
    });
    await expect
      .poll(() => holders(ALPHA), { timeout: WAIT.timeoutMs })
      .toEqual(heldKeys(ALPHA).map(() => null));
    expect(await heldEverywhere(() => holders(BETA), 'BETA held in each hash')).toBe(replica);
    expect(builds(ALPHA)).toBe(alphaBuilds);
  }, 60_000);
});
