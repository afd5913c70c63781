import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisDeliveryStore } from '../../src/state/redis/redis-delivery-store.js';
import { RedisDueIndex } from '../../src/state/redis/redis-due-index.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { trackTimers } from '../support/live-timers.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/**
 * Issue 34: a replica holds nothing per tenant. Nothing is built at boot; a request builds its tenant's
 * scope; a Worker, a timer or a Redis connection per resident tenant fails here; an owed message of a
 * tenant no replica holds is found through the due index and sent by the scope it wakes.
 */
describe('OAuth mode on Redis: tenant scopes built on demand', () => {
  const TENANTS = Array.from({ length: 12 }, (_, i) => `T0SCOPE${String(i).padStart(2, '0')}`);
  let redis: RedisServer;
  let slack: FakeSlack;
  let docs: FakeDocs;
  let app: OAuthTestApp | undefined;
  let client: ReturnType<typeof createClient>;
  const timers = trackTimers();

  const start = () =>
    startOAuthApp({ env: { REDIS_URL: redis.url, LOG_LEVEL: 'debug' }, slack, docs, scopeIdleMs: 60_000 });
  const built = (tenant: string) =>
    (app?.logs ?? []).filter((l) => l.includes(tenant) && l.includes('tenant runtime started')).length;
  const connections = async () =>
    String(await client.sendCommand(['CLIENT', 'LIST']))
      .split('\n')
      .filter((line) => line.trim() !== '').length - 1;
  /** Counts once nothing opened or closed for a second (BullMQ opens its connections lazily). */
  const settled = async (count: () => Promise<number> | number) => {
    let last = await count();
    for (let same = 0, deadline = Date.now() + 15_000; same < 4 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const now = await count();
      same = now === last ? same + 1 : 0;
      last = now;
    }
    return last;
  };
  const help = (team: string) => app!.command({ text: 'help', team_id: team });

  beforeAll(async () => {
    redis = await startRedisServer();
    client = createClient({ url: redis.url });
    await client.connect();
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    app = await start();
    for (const teamId of TENANTS) await app.install({ teamId, teamName: `Team ${teamId}` });
    await app.stop();
    app = await start(); // a new replica: the directory holds 12 installs
  });

  afterAll(async () => {
    timers.restore();
    await app?.stop();
    await client?.close();
    await slack?.close();
    await docs?.close();
    await redis?.stop();
  });

  it('builds no tenant at boot, and one per tenant that sends a request', async () => {
    expect(TENANTS.map(built)).toEqual(TENANTS.map(() => 0));
    expect((await help(TENANTS[0]!)).body).toContain('/docs-agent');
    expect(TENANTS.map(built)).toEqual(TENANTS.map((_, i) => (i === 0 ? 1 : 0)));
  });

  it('opens no Redis connection and keeps no timer per resident tenant', async () => {
    await help(TENANTS[1]!);
    const two = { connections: await settled(connections), timers: await settled(timers.live) };
    for (const teamId of TENANTS.slice(2)) expect((await help(teamId)).body).toContain('/docs-agent');
    expect(TENANTS.map(built)).toEqual(TENANTS.map(() => 1));
    const twelve = { connections: await settled(connections), timers: await settled(timers.live) };
    // Ten more resident tenants: not one more connection, and fewer than one timer each (a call's own
    // time-outs may be alive at the moment of counting).
    expect(twelve.connections).toBe(two.connections);
    expect(twelve.timers - two.timers).toBeLessThan(3);
  });

  it('an owed message of a tenant nobody holds is found by the due index and sent by the scope it wakes', async () => {
    await app!.stop();
    const beforeRestart = slack.calls.length;
    // Tenants with owed work of their own (welcome DMs still in their duplicate sweep) may wake too.
    const dueBefore = await client.zRange('docs-agent:{due}:tenants', 0, -1);
    app = await start();
    const tenant = TENANTS[5]!;
    // What a replica that stopped mid-way leaves: a recorded post, and its tenant marked due.
    const outbox = new RedisDeliveryStore(client as never, `docs-agent:t:${tenant}:`, undefined, {
      mark: (at) => new RedisDueIndex(client as never).mark(tenant, at),
    });
    await outbox.record(
      {
        key: 'test:owed-post',
        target: { kind: 'post', channel: 'C0OWED', threadTs: null },
        payload: { text: 'owed while nobody held the tenant' },
        priority: 'reply',
      },
      Date.now(),
    );
    await waitFor(
      () =>
        slack.calls
          .slice(beforeRestart)
          .some(
            (c) => c.method === 'chat.postMessage' && JSON.stringify(c.args).includes('owed while nobody'),
          ),
      { what: 'the owed post', timeoutMs: 10_000 },
    );
    expect(built(tenant)).toBe(1);
    // Nobody else was built but tenants that had owed work of their own.
    const others = TENANTS.filter((t) => t !== tenant && built(t) > 0);
    expect(others.filter((t) => !dueBefore.includes(t))).toEqual([]);
  });
});

describe('OAuth mode on Redis: an idle scope is evicted and built again when used', () => {
  let redis: RedisServer;
  let app: OAuthTestApp | undefined;

  beforeAll(async () => {
    redis = await startRedisServer();
    app = await startOAuthApp({
      env: { REDIS_URL: redis.url, LOG_LEVEL: 'debug' },
      scopeIdleMs: 300,
      syncIntervalMs: 100,
    });
    await app.install({ teamId: 'T0IDLE', teamName: 'Idle' });
  });

  afterAll(async () => {
    await app?.stop();
    await redis?.stop();
  });

  const count = (what: string) => app!.logs.filter((l) => l.includes('T0IDLE') && l.includes(what)).length;

  it('frees the scope after its idle time, and the next request is served by a new one', async () => {
    await waitFor(() => count('tenant runtime stopping') >= 1 && count('idle; evicted') >= 1, {
      what: 'the idle scope evicted',
      timeoutMs: 10_000,
    });
    const started = count('tenant runtime started');
    expect((await app!.command({ text: 'help', team_id: 'T0IDLE' })).body).toContain('/docs-agent');
    expect(count('tenant runtime started')).toBe(started + 1);
    // Issue 43 §4: contexts built and stopped, counted on the metrics endpoint (their churn per minute).
    const metrics = await (await fetch(`http://127.0.0.1:${app!.agent.metricsPort()}/metrics`)).text();
    const loadedFor = (cause: string) =>
      Number(
        new RegExp(`^docs_agent_tenant_contexts_loaded_total\\{cause="${cause}"\\} (\\d+)$`, 'm').exec(
          metrics,
        )?.[1] ?? 0,
      );
    const loaded = loadedFor('request') + loadedFor('work');
    // The command's build is counted as a request's; the install's (its welcome) as work's.
    expect(loadedFor('request')).toBeGreaterThanOrEqual(1);
    expect(loadedFor('work')).toBeGreaterThanOrEqual(1);
    const evicted = /^docs_agent_tenant_contexts_dropped_total\{reason="evicted"\} (\d+)$/m.exec(metrics);
    expect(loaded).toBeGreaterThanOrEqual(2);
    expect(loaded).toBeLessThanOrEqual(count('tenant runtime started'));
    expect(Number(evicted?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(evicted?.[1])).toBeLessThanOrEqual(count('idle; evicted'));
  });
});
