import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Token rotation across replicas: replica a refreshes a tenant's token (Slack revokes the old one at once),
 * while replica b still holds the old token until its next read of the directory. A call b makes meanwhile
 * is refused with `invalid_auth`: that refusal is looked up, never taken for an uninstall.
 */
describe('OAuth mode: a token rotated on one replica while another still holds the old one', () => {
  let redis: RedisServer;
  let slack: FakeSlack;
  let docs: FakeDocs;
  let a: OAuthTestApp;
  let b: OAuthTestApp;
  let keys: ReturnType<typeof createClient>;

  beforeAll(async () => {
    redis = await startRedisServer();
    keys = createClient({ url: redis.url });
    await keys.connect();
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    const env = { REDIS_URL: redis.url };
    // b looks at the directory only when told (a minute between reads): its view of the token holds still.
    b = await startOAuthApp({ env, slack, docs, syncIntervalMs: 60_000, upkeepIntervalMs: 60 * 60_000 });
    // a runs four hours ahead: a token with five hours left is due for refresh there, not on b.
    a = await startOAuthApp({
      env,
      slack,
      docs,
      upkeepIntervalMs: 100,
      clock: { now: () => Date.now() + 4 * HOUR_MS },
    });
    // Installs go through b (a's clock would find b's install link expired).
    slack.oauth.redirectUrls = [`${b.url}/slack/oauth_redirect`];
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await slack?.close();
    await docs?.close();
    await keys?.close();
    await redis?.stop();
  });

  const homeOpened = (app: OAuthTestApp, user: string) => {
    slack.userTeams.set(user, 'T0ROTB');
    return app.event({
      type: 'event_callback',
      team_id: 'T0ROTB',
      api_app_id: 'A0DOCSAGENT',
      event_id: `Ev${user}${Date.now()}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: 'T0ROTB', enterprise_id: null, is_enterprise_install: false }],
      event: { type: 'app_home_opened', user, channel: 'D0ROTB', tab: 'home' },
    });
  };
  const publishedWith = (token: string | undefined, since: number) =>
    slack.calls
      .slice(since)
      .some((c) => c.method === 'views.publish' && c.authorization === `Bearer ${token}`);

  it('the replica with the old token asks again instead of uninstalling, and goes on with the new one', async () => {
    slack.oauth.tokenExpiresIn = 5 * 3_600;
    await b.install({ teamId: 'T0ROTB', teamName: 'Rotb' });
    const old = slack.oauth.liveToken('T0ROTB');
    let since = slack.calls.length;
    await homeOpened(b, 'U0ROTB1');
    await waitFor(() => publishedWith(old, since), { what: 'Home on b with the first token' });

    // a serves the tenant (its own read of the directory) and refreshes its token: the old one stops working.
    await waitFor(() => slack.oauth.refreshes.some((r) => r.tenant === 'T0ROTB'), { timeoutMs: 10_000 });
    const fresh = slack.oauth.liveToken('T0ROTB');
    expect(fresh).not.toBe(old);

    // b still holds the old token: Slack refuses it (invalid_auth), b looks the tenant up and applies the new one.
    since = slack.calls.length;
    await homeOpened(b, 'U0ROTB2');
    await waitFor(() => slack.calls.slice(since).some((c) => c.authorization === `Bearer ${old}`), {
      what: 'a call of b with the old token (revoked: invalid_auth)',
    });
    let person = 2;
    await waitFor(
      async () => {
        const before = slack.calls.length;
        await homeOpened(b, `U0ROTB${++person}`);
        await new Promise((r) => setTimeout(r, 300));
        return publishedWith(fresh, before);
      },
      { timeoutMs: 10_000, what: 'Home on b with the refreshed token' },
    );
    // Still installed: its record is in the directory, no replica said it uninstalled, a serves it too.
    expect(await keys.keys('docs-agent:directory:tenant:T0ROTB:*')).not.toEqual([]);
    expect([...a.logs, ...b.logs].filter((l) => l.includes('its calls, polls, schedules'))).toEqual([]);
    since = slack.calls.length;
    await homeOpened(a, `U0ROTB${++person}`);
    await waitFor(() => publishedWith(fresh, since), { what: 'Home on a with the refreshed token' });
    slack.oauth.tokenExpiresIn = undefined;
  });
});
