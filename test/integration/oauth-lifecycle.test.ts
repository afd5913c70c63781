import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { eventEnvelope } from '../support/slack-events.js';

/**
 * OAuth mode's tenant lifecycle on Redis: uninstall stops a tenant's calls at once and deletes its secrets,
 * its data is purged later while the others' stays, a re-install serves it again, and a rotating token is
 * refreshed before it expires.
 */
describe('OAuth mode: uninstall, purge, re-install and token rotation', () => {
  let redis: RedisServer;
  let app: OAuthTestApp;
  const client = () => createClient({ url: redis.url });
  let keys: ReturnType<typeof client>;

  beforeAll(async () => {
    redis = await startRedisServer();
    keys = client();
    await keys.connect();
    app = await startOAuthApp({ env: { REDIS_URL: redis.url }, upkeepIntervalMs: 200, purgeDelayMs: 500 });
    await app.install({ teamId: 'T0ACME', teamName: 'Acme' });
    await app.install({ teamId: 'T0BETA', teamName: 'Beta' });
  });
  afterAll(async () => {
    await app?.stop();
    await keys?.close();
    await redis?.stop();
  });

  const answersHelp = async (team: string) => (await app.command({ text: 'help', team_id: team })).body;
  const uninstalled = (team: string) => eventEnvelope({ type: 'app_uninstalled' }, undefined, team);

  it('an uninstalled workspace: no call with its token from then on, secrets gone at once, data purged, others unaffected', async () => {
    expect(await answersHelp('T0BETA')).toContain('/docs-agent');
    // Its scope's start (the welcome DM among it) is over: a call already on its way when the uninstall
    // arrives cannot be called back, and is not what this checks.
    await waitFor(() => app.logs.some((l) => l.includes('tenant T0BETA is ready')), { timeoutMs: 5_000 });
    const betaToken = app.slack.oauth.liveToken('T0BETA');
    // The welcome DM is owed at start and posted a moment after it (through the outbox): wait for it too.
    await waitFor(
      () =>
        app.slack.calls.some(
          (c) => c.method === 'chat.postMessage' && c.authorization === `Bearer ${betaToken}`,
        ),
      { what: 'the welcome DM', timeoutMs: 5_000 },
    );
    // Something of Beta's own in its key space (the replay guard's claims, at least).
    await waitFor(async () => (await keys.keys('docs-agent:t:T0BETA:*')).length > 0, { timeoutMs: 5_000 });
    // Its record's sealed values (its state beside them holds no secret: ids, generation, purge due).
    const sealedOf = async () =>
      (await keys.keys('docs-agent:directory:tenant:T0BETA:*')).filter((key) => !key.endsWith(':state'));
    expect((await sealedOf()).length).toBeGreaterThan(0);

    await app.event(uninstalled('T0BETA'));
    const uninstalledAt = app.slack.calls.length;
    // Installation and secrets: deleted at once.
    await waitFor(async () => (await sealedOf()).length === 0, {
      timeoutMs: 5_000,
    });
    // Its command reaches no runtime any more.
    expect(await answersHelp('T0BETA')).toBe('');
    // Its other data: purged once due (here after half a second), Acme's kept.
    await waitFor(async () => (await keys.keys('docs-agent:t:T0BETA:*')).length === 0, { timeoutMs: 10_000 });
    expect((await keys.keys('docs-agent:t:T0ACME:*')).length).toBeGreaterThan(0);
    expect(await answersHelp('T0ACME')).toContain('/docs-agent');
    const later = app.slack.calls
      .slice(uninstalledAt)
      .filter((c) => c.authorization === `Bearer ${betaToken}`);
    expect(later.map((c) => c.method)).toEqual([]);
    // Said once the purge is recorded, a moment after its last key is deleted.
    const purgedLines = () =>
      app.logs.filter((l) => l.includes('T0BETA') && l.includes('purged an uninstalled'));
    await waitFor(() => purgedLines().length > 0, { what: 'the purge said', timeoutMs: 5_000 });
    expect(purgedLines()).toHaveLength(1);
  });

  it('a workspace that installs again is served again', async () => {
    await app.install({ teamId: 'T0BETA', teamName: 'Beta' });
    const help = await waitFor(
      async () => {
        const text = await answersHelp('T0BETA');
        return text.includes('/docs-agent') && text;
      },
      { timeoutMs: 5_000, what: "Beta's /docs-agent help" },
    );
    expect(help).toContain('/docs-agent');
  });

  it('a rotating token is refreshed before it expires, by one replica, and used from then on', async () => {
    // An hour left: inside the two hours before expiry in which the bot refreshes.
    app.slack.oauth.tokenExpiresIn = 3_600;
    await app.install({ teamId: 'T0ROTA', teamName: 'Rota' });
    await waitFor(() => app.slack.oauth.refreshes.some((r) => r.tenant === 'T0ROTA'), { timeoutMs: 10_000 });
    const fresh = app.slack.oauth.liveToken('T0ROTA');
    // Home is published with the token the runtime holds now: the refreshed one (the old one is revoked).
    // Each look is a new person's first Home, so it is always published.
    let person = 0;
    await waitFor(
      async () => {
        const user = `U0ROTA${++person}`;
        app.slack.userTeams.set(user, 'T0ROTA');
        const before = app.slack.calls.length;
        await app.event(
          eventEnvelope(
            { type: 'app_home_opened', user, channel: 'D0ROTA', tab: 'home' },
            undefined,
            'T0ROTA',
          ),
        );
        await new Promise((r) => setTimeout(r, 500));
        return app.slack.calls
          .slice(before)
          .some((c) => c.method === 'views.publish' && c.authorization === `Bearer ${fresh}`);
      },
      { timeoutMs: 10_000, what: 'Home published with the refreshed token' },
    );
    expect(app.slack.oauth.refreshes.filter((r) => r.tenant === 'T0ROTA')).toHaveLength(1);
    app.slack.oauth.tokenExpiresIn = undefined;
  });

  it('Redis going away and coming back after an uninstall leaves the process up and the others served', async () => {
    // Beta was uninstalled above: its queues are closed while the process's shared connections live on.
    await keys.close();
    const port = Number(new URL(redis.url).port);
    await redis.stop();
    await new Promise((r) => setTimeout(r, 1_000));
    redis = await startRedisServer({ port });
    keys = client();
    await keys.connect();
    const help = await waitFor(
      async () => {
        const text = await answersHelp('T0ACME');
        return text.includes('/docs-agent') && text;
      },
      // Reconnecting waits out the client's backoff; on a loaded CI machine that took past 15 s once.
      { timeoutMs: 30_000, what: "Acme's /docs-agent help once Redis is back" },
    );
    expect(help).toContain('/docs-agent');
  }, 45_000);
});
