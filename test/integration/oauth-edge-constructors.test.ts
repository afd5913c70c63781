import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { FakeDocs } from '../support/fake-docs.js';
import { FAKE_GITHUB_TOKEN, FakeGitHub } from '../support/fake-github.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

/** Constructions of each watched class, counted as the bot makes them (the classes wrapped below). */
const made = vi.hoisted(() => new Map<string, number>());
const counted = vi.hoisted(
  () =>
    // biome-ignore lint/suspicious/noExplicitAny: a mixin's constructor takes any[] (TS2545)
    <C extends new (...args: any[]) => object>(name: string, Base: C): C =>
      // A subclass counts each construction, its own or of a subclass (Octokit.plugin's).
      class extends Base {
        // biome-ignore lint/suspicious/noExplicitAny: as above
        constructor(...args: any[]) {
          super(...args);
          made.set(name, (made.get(name) ?? 0) + 1);
        }
      },
);
vi.mock('undici', async (real) => {
  const undici = await real<typeof import('undici')>();
  return { ...undici, Pool: counted('Pool', undici.Pool), Agent: counted('Agent', undici.Agent) };
});
vi.mock('prom-client', async (real) => {
  const prom = await real<typeof import('prom-client')>();
  return { ...prom, Registry: counted('Registry', prom.Registry) };
});
vi.mock('@octokit/rest', async (real) => {
  const rest = await real<typeof import('@octokit/rest')>();
  return { ...rest, Octokit: counted('Octokit', rest.Octokit) };
});
vi.mock('bullmq', async (real) => {
  const bullmq = await real<typeof import('bullmq')>();
  return { ...bullmq, Worker: counted('Worker', bullmq.Worker) };
});
vi.mock('@slack/bolt', async (real) => {
  const bolt = await real<typeof import('@slack/bolt')>();
  const webApi = { ...bolt.webApi, WebClient: counted('WebClient', bolt.webApi.WebClient) };
  return { ...bolt, App: counted('App', bolt.App), webApi };
});

const WATCHED = ['Pool', 'Agent', 'Registry', 'Octokit', 'Worker', 'App', 'WebClient'] as const;
/**
 * What is still built per tenant, by name: nothing (issue 43 step 5: one Bolt App per process, whose
 * listeners reach each request's tenant). Anything built per tenant fails this test.
 */
const STILL_PER_TENANT: Partial<Record<(typeof WATCHED)[number], number>> = {};

/** Every `setInterval` the process starts while the test runs, counted (a timer per tenant is a cost per tenant). */
const intervals = { started: 0 };

/**
 * Issue 43: the edge is built once per process. Fifty tenants install and each runs a command; what the
 * process constructed for the last forty is counted against what it needs per tenant.
 */
describe('OAuth mode on Redis: nothing of the edge built per tenant', () => {
  const TENANTS = Array.from({ length: 50 }, (_, i) => `T0EDGE${String(i).padStart(2, '0')}`);
  const WARM = 10;
  let redis: RedisServer;
  let slack: FakeSlack;
  let docs: FakeDocs;
  let github: FakeGitHub;
  let app: OAuthTestApp | undefined;
  let client: ReturnType<typeof createClient>;

  const connections = async () =>
    String(await client.sendCommand(['CLIENT', 'LIST']))
      .split('\n')
      .filter((line) => line.trim() !== '').length - 1;
  /** A tenant installs (its welcome DM is sent with its new token) and runs `/docs-agent help`. */
  const activate = async (teamId: string) => {
    const dms = slack.callsOf('chat.postMessage').length;
    await app!.install({ teamId, teamName: `Team ${teamId}` });
    await waitFor(() => slack.callsOf('chat.postMessage').length > dms, { what: `${teamId}'s welcome` });
    expect((await app!.command({ text: 'help', team_id: teamId })).body).toContain('/docs-agent');
  };
  const snapshot = () => new Map(WATCHED.map((name) => [name, made.get(name) ?? 0]));

  beforeAll(async () => {
    const setInterval = globalThis.setInterval;
    vi.spyOn(globalThis, 'setInterval').mockImplementation(((...args: Parameters<typeof setInterval>) => {
      intervals.started++;
      return setInterval(...args);
    }) as typeof setInterval);
    redis = await startRedisServer();
    client = createClient({ url: redis.url });
    await client.connect();
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    github = await FakeGitHub.start();
    app = await startOAuthApp({
      env: {
        REDIS_URL: redis.url,
        INSTALLS_PER_MINUTE: '1000',
        // Every tenant follows PRs with the operator's token: its GitHub parts are built, over one Octokit.
        GITHUB_TOKEN: FAKE_GITHUB_TOKEN,
        GITHUB_TOKEN_OWNERS: 'acme',
        GITHUB_API_URL: github.url,
      },
      slack,
      docs,
      scopeIdleMs: 600_000,
    });
  });

  afterAll(async () => {
    vi.restoreAllMocks();
    await app?.stop();
    await client?.close();
    await slack?.close();
    await docs?.close();
    await github?.close();
    await redis?.stop();
  });

  it('constructs no Bolt App, WebClient, pool, registry, Octokit, Worker, Redis connection or timer per tenant', async () => {
    for (const teamId of TENANTS.slice(0, WARM)) await activate(teamId);
    const before = { made: snapshot(), connections: await connections(), intervals: intervals.started };
    for (const teamId of TENANTS.slice(WARM)) await activate(teamId);
    const added = TENANTS.length - WARM;
    const after = snapshot();
    const perTenant = Object.fromEntries(
      WATCHED.map((name) => [name, ((after.get(name) ?? 0) - (before.made.get(name) ?? 0)) / added]),
    );
    // Each tenant's install has its own token: still no WebClient per token (one client, the token per call).
    expect(perTenant).toEqual(Object.fromEntries(WATCHED.map((name) => [name, STILL_PER_TENANT[name] ?? 0])));
    // Positive signs the watching works: the process built its edge once.
    expect(after.get('Pool')).toBeGreaterThan(0);
    expect(after.get('Octokit')).toBe(1);
    expect(after.get('App')).toBe(1);
    expect(after.get('WebClient')).toBeGreaterThan(0);
    expect(after.get('Worker')).toBeGreaterThan(0);
    expect(await connections()).toBeLessThanOrEqual(before.connections);
    // No timer per tenant either: the replica's ticker runs every scope's periodic work (started before).
    expect(intervals.started - before.intervals).toBe(0);
    expect(before.intervals).toBeGreaterThan(0);
    // Fifty installs and commands: under a loaded CI machine this outlives the default 20 s.
  }, 120_000);
});
