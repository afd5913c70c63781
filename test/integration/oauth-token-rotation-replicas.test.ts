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

  it('a mention on the replica with the old token is served as if nothing happened', async () => {
    slack.oauth.tokenExpiresIn = 5 * 3_600;
    await b.install({ teamId: 'T0ROTC', teamName: 'Rotc' });
    const old = slack.oauth.liveToken('T0ROTC');
    await waitFor(() => slack.oauth.refreshes.some((r) => r.tenant === 'T0ROTC'), { timeoutMs: 10_000 });
    const fresh = slack.oauth.liveToken('T0ROTC');
    slack.userTeams.set('U0ROTC', 'T0ROTC');
    const since = slack.calls.length;
    const logsBefore = b.logs.length;
    // b still holds the old token: its first call for the mention (who is asking) is refused.
    await b.event({
      type: 'event_callback',
      team_id: 'T0ROTC',
      api_app_id: 'A0DOCSAGENT',
      event_id: 'EvROTC1',
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: 'T0ROTC', enterprise_id: null, is_enterprise_install: false }],
      event: {
        type: 'app_mention',
        user: 'U0ROTC',
        text: '<@U0BOT> fix the quickstart',
        ts: '1700000000.000200',
        channel: 'C0ROTC',
        event_ts: '1700000000.000200',
      },
    });
    const calls = () => slack.calls.slice(since);
    // The card, posted with the new token, then says what to do (no project connected here).
    await waitFor(
      () =>
        calls().some(
          (c) =>
            c.method === 'chat.update' &&
            c.authorization === `Bearer ${fresh}` &&
            JSON.stringify(c.args).includes('/docs-agent connect'),
        ),
      { timeoutMs: 10_000, what: 'the card updated with the new token' },
    );
    expect(calls().some((c) => c.authorization === `Bearer ${old}`)).toBe(true);
    const cards = calls().filter((c) => c.method === 'chat.postMessage' && c.args.channel === 'C0ROTC');
    expect(cards.map((c) => c.authorization)).toEqual([`Bearer ${fresh}`]);
    // The person was not taken for an outsider because Slack refused the old token.
    expect(b.logs.slice(logsBefore).filter((l) => l.includes('another organisation'))).toEqual([]);
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
