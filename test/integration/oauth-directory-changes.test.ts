import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { eventEnvelope } from '../support/slack-events.js';

/**
 * Every write to the directory of installs is announced to every replica (Redis Pub/Sub): a replica learns
 * of an install, or stops an uninstalled tenant, at once, not at its next read of the directory. Here
 * replica b reads the directory only once a minute, so what it learns within seconds came by the channel.
 */
describe('OAuth mode: replicas hear of installs and uninstalls at once', () => {
  let redis: RedisServer;
  let slack: FakeSlack;
  let docs: FakeDocs;
  let a: OAuthTestApp;
  let b: OAuthTestApp;

  beforeAll(async () => {
    redis = await startRedisServer();
    slack = await FakeSlack.start();
    docs = await FakeDocs.start();
    const env = { REDIS_URL: redis.url };
    b = await startOAuthApp({ env, slack, docs, syncIntervalMs: 60_000 });
    a = await startOAuthApp({ env, slack, docs });
    slack.oauth.redirectUrls = [`${a.url}/slack/oauth_redirect`];
    // Both replicas follow the directory's changes before anything is installed (each starts reading its
    // stream in the background at start: a blocked XREAD per replica).
    const admin = createClient({ url: redis.url });
    await admin.connect();
    await waitFor(async () => {
      const clients = String(await admin.sendCommand(['CLIENT', 'LIST']));
      return clients.split('\n').filter((line) => line.includes('cmd=xread')).length === 2;
    });
    await admin.close();
  });
  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    await slack?.close();
    await docs?.close();
    await redis?.stop();
  });

  const logged = (app: OAuthTestApp, tenant: string, what: string) =>
    app.logs.some((l) => l.includes(`"tenant":"${tenant}"`) && l.includes(what));

  it('an install through replica a is served on b at its first request, and an uninstall on a stops it on b', async () => {
    const installedAt = Date.now();
    await a.install({ teamId: 'T0HEAR', teamName: 'Hear' });
    // Nothing is built per tenant ahead of use (issue 34): b builds the scope for the first request.
    expect((await b.command({ text: 'help', team_id: 'T0HEAR' })).body).toContain('/docs-agent');
    expect(logged(b, 'T0HEAR', 'tenant runtime started')).toBe(true);
    const started = Date.now() - installedAt;

    const uninstalledAt = Date.now();
    await a.event(eventEnvelope({ type: 'app_uninstalled' }, undefined, 'T0HEAR'));
    await waitFor(() => logged(b, 'T0HEAR', 'tenant runtime stopping'), {
      timeoutMs: 5_000,
      what: 'the runtime stopped on b',
    });
    const stopped = Date.now() - uninstalledAt;
    console.info(
      `[figure] directory announcements: served on b ${started} ms after the install, stopped ${stopped} ms after the uninstall`,
    );
    expect(stopped).toBeLessThan(5_000);
  });

  it("a new tenant's first command on b, right after a look at the directory, waits for the announcement, not a second", async () => {
    // A command from a team b does not know: b looks at the directory now, and not again for a second.
    expect((await b.command({ text: 'help', team_id: 'T0NOBODY' })).body).toBe('');
    await a.install({ teamId: 'T0FIRST', teamName: 'First' });
    const sentAt = Date.now();
    const answer = await b.command({ text: 'help', team_id: 'T0FIRST' });
    const tookMs = Date.now() - sentAt;
    console.info(`[figure] first command of a new tenant on the other replica: answered in ${tookMs} ms`);
    expect(answer.body).toContain('/docs-agent');
    expect(tookMs).toBeLessThan(700);
  });
});
