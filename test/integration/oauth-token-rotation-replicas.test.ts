import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { eventEnvelope } from '../support/slack-events.js';

const HOUR_MS = 60 * 60 * 1000;

/**
 * Token rotation across replicas: replica a refreshes a tenant's token and Slack revokes the old one at once
 * (the fake is stricter than Slack), while replica b has a call on its way with the old token. That refusal
 * is made good with the stored token, never taken for an uninstall, and the person never notices.
 */
describe('OAuth mode: a token rotated on one replica while another has a call on its way with the old one', () => {
  let redis: RedisServer;
  let slack: FakeSlack;
  let docs: FakeDocs;
  let a: OAuthTestApp;
  let b: OAuthTestApp;
  let keys: ReturnType<typeof createClient>;
  /** How far a's clock runs ahead: four hours makes a five-hour token due for refresh there, not on b. */
  let aheadMs = 0;

  beforeAll(async () => {
    redis = await startRedisServer();
    keys = createClient({ url: redis.url });
    await keys.connect();
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    const env = { REDIS_URL: redis.url };
    // b reads the directory once a minute and hears no announcement: its view of the token holds still, as
    // for a replica the change has not reached yet.
    b = await startOAuthApp({
      env,
      slack,
      docs,
      syncIntervalMs: 60_000,
      upkeepIntervalMs: 60 * 60_000,
      watchDirectory: false,
    });
    a = await startOAuthApp({
      env,
      slack,
      docs,
      upkeepIntervalMs: 100,
      clock: { now: () => Date.now() + aheadMs },
    });
    // Installs go through b.
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
    return app.event(
      eventEnvelope({ type: 'app_home_opened', user, channel: 'D0ROTB', tab: 'home' }, undefined, 'T0ROTB'),
    );
  };
  const publishedWith = (token: string | undefined, since: number) =>
    slack.calls
      .slice(since)
      .some((c) => c.method === 'views.publish' && c.authorization === `Bearer ${token}`);

  it('the call refused for the old token is made again with the new one: Home published, nothing uninstalled', async () => {
    slack.oauth.tokenExpiresIn = 5 * 3_600;
    await b.install({ teamId: 'T0ROTB', teamName: 'Rotb' });
    const old = slack.oauth.liveToken('T0ROTB');
    let since = slack.calls.length;
    await homeOpened(b, 'U0ROTB1');
    await waitFor(() => publishedWith(old, since), { what: 'Home on b with the first token' });

    // b's next look-up of who is asking reaches Slack now and is answered in 600 ms, after a has refreshed.
    slack.held.add('users.info', (args) => args.user === 'U0ROTB2', {
      kind: 'late',
      ms: 650,
      storeAfterMs: 600,
    });
    since = slack.calls.length;
    const logsBefore = b.logs.length;
    await homeOpened(b, 'U0ROTB2');
    aheadMs = 4 * HOUR_MS;
    await waitFor(() => slack.oauth.refreshes.some((r) => r.tenant === 'T0ROTB'), { timeoutMs: 5_000 });
    const fresh = slack.oauth.liveToken('T0ROTB');
    expect(fresh).not.toBe(old);

    await waitFor(() => publishedWith(fresh, since), {
      timeoutMs: 10_000,
      what: 'Home on b with the new token',
    });
    const lookUps = slack.calls.slice(since).filter((c) => c.method === 'users.info');
    // The held one with the old token, then the same one again with the new token (and none with the old).
    expect(lookUps[0]?.authorization).toBe(`Bearer ${old}`);
    expect(lookUps[1]?.args.user).toBe('U0ROTB2');
    expect(lookUps.slice(1).map((c) => c.authorization)).not.toContain(`Bearer ${old}`);
    // The person was not taken for an outsider, and the tenant is still installed on both replicas.
    expect(b.logs.slice(logsBefore).filter((l) => l.includes('another organisation'))).toEqual([]);
    expect(await keys.keys('docs-agent:directory:tenant:T0ROTB:*')).not.toEqual([]);
    expect([...a.logs, ...b.logs].filter((l) => l.includes('its calls, polls, schedules'))).toEqual([]);
    since = slack.calls.length;
    await homeOpened(a, 'U0ROTB3');
    await waitFor(() => publishedWith(fresh, since), { what: 'Home on a with the new token' });
    slack.oauth.tokenExpiresIn = undefined;
  });

  it('a refusal Slack does not repeat (invalid_auth once, for the current token) uninstalls nothing', async () => {
    const token = slack.oauth.liveToken('T0ROTB');
    const logsBefore = a.logs.length;
    slack.inject('users.info', { kind: 'error', error: 'invalid_auth' });
    await homeOpened(a, 'U0ROTB90');
    // a asks Slack about the token it holds (auth.test), which Slack accepts: the tenant stays installed.
    await waitFor(
      () => slack.calls.some((c) => c.method === 'auth.test' && c.authorization === `Bearer ${token}`),
      {
        what: 'the token checked with auth.test',
      },
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await keys.keys('docs-agent:directory:tenant:T0ROTB:*')).not.toEqual([]);
    expect(a.logs.slice(logsBefore).filter((l) => l.includes('its calls, polls, schedules'))).toEqual([]);
    const since = slack.calls.length;
    await homeOpened(a, 'U0ROTB91');
    await waitFor(() => publishedWith(token, since), { what: 'Home on a afterwards' });
  });
});
