import { writeFileSync } from 'node:fs';
import { createClient } from '@redis/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { secretBoxFromSettings } from '../../src/common/secret-box.js';
import { connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { RedisTenantDirectory } from '../../src/state/redis/redis-tenant-directory.js';
import { DIRECTORY_PREFIX } from '../../src/state/tenant-directories.js';
import { project } from '../contract/tenant-directory.contract.js';
import { waitFor } from '../support/http.js';
import { ENCRYPTION_KEY, type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { eventEnvelope } from '../support/slack-events.js';

/**
 * Issue 36, finding 1: with token rotation, a refresh Slack performed but whose answer the bot lost (a 503
 * after Slack rotated, a settings save at the same moment) never uninstalls the tenant. Its new tokens are
 * kept apart from its settings; a refresh that cannot be made good marks it "needs re-install": no calls,
 * data kept, people told how to fix it, and a re-install serves it again.
 */
describe('OAuth mode: a token refresh that fails loses nothing', () => {
  let redis: RedisServer;
  let app: OAuthTestApp;
  let keys: ReturnType<typeof createClient>;
  let client: RedisClient;
  let directory: RedisTenantDirectory;

  beforeAll(async () => {
    redis = await startRedisServer();
    keys = createClient({ url: redis.url });
    await keys.connect();
    client = await connectRedis(redis.url, createLogger({ level: 'silent', secrets: [] }), {
      failFast: true,
    });
    directory = new RedisTenantDirectory(
      client,
      DIRECTORY_PREFIX,
      secretBoxFromSettings(ENCRYPTION_KEY, undefined),
    );
    // Slack calls time out after 1 s: a refresh without an answer is tried again after 3 s.
    app = await startOAuthApp({
      env: { REDIS_URL: redis.url, SLACK_API_TIMEOUT_MS: '1000' },
      upkeepIntervalMs: 200,
    });
  });
  afterAll(async () => {
    const dir = process.env.TENANT_LOGS_DIR;
    if (dir && app) writeFileSync(`${dir}/oauth-token-refresh-lost.log`, app.logs.join(''));
    await app?.stop();
    await client?.close();
    await keys?.close();
    await redis?.stop();
  });

  const help = async (team: string) => (await app.command({ text: 'help', team_id: team })).body;
  const uninstalled = (team: string) =>
    app.logs.filter((l) => l.includes(team) && l.includes('its calls, polls, schedules'));
  const refreshOf = (args: Record<string, unknown>) => args.grant_type === 'refresh_token';

  it('Slack rotated the token but the answer was lost: needs re-install, not uninstalled, data kept; a re-install serves it again', async () => {
    // Slack performs the refresh (the old refresh token is spent) and then answers 503. It performs it once
    // the welcome DM is out: the fake, stricter than Slack, refuses the old token from then on.
    app.slack.held.add('oauth.v2.access', refreshOf, {
      kind: 'late',
      ms: 450,
      storeAfterMs: 400,
      status: 503,
    });
    app.slack.oauth.tokenExpiresIn = 3_600;
    await app.install({ teamId: 'T0LOST', teamName: 'Lost' });
    app.slack.oauth.tokenExpiresIn = undefined;
    await waitFor(async () => (await keys.keys('docs-agent:t:T0LOST:*')).length > 0, { timeoutMs: 5_000 });
    await waitFor(
      () => app.logs.some((l) => l.includes('T0LOST') && l.includes('until someone installs the app again')),
      { timeoutMs: 10_000, what: 'T0LOST marked as needing a re-install' },
    );
    expect(app.slack.oauth.refreshes.filter((r) => r.tenant === 'T0LOST')).toHaveLength(1);
    // Told what happened and how to fix it, in the acknowledgement.
    await waitFor(async () => (await help('T0LOST')).includes('Add to Slack'), { what: 'the notice' });
    // No call with its token any more but, when someone opens Home, one Home saying how to fix it (its old
    // token may still work for a while at Slack; the fake, stricter, refuses it).
    const since = app.slack.calls.length;
    app.slack.userTeams.set('U0LOST1', 'T0LOST');
    await app.event(
      eventEnvelope(
        { type: 'app_home_opened', user: 'U0LOST1', channel: 'D0LOST', tab: 'home' },
        undefined,
        'T0LOST',
      ),
    );
    await new Promise((r) => setTimeout(r, 500));
    const calls = app.slack.calls
      .slice(since)
      .filter((c) => app.slack.oauth.tenantOf(c.authorization, c.args) === 'T0LOST');
    expect(calls.map((c) => [c.method, c.args.user_id])).toEqual([['views.publish', 'U0LOST1']]);
    expect(JSON.stringify(calls[0]?.args.view)).toContain('*Add to Slack* again');
    // Kept: its installation and its data.
    expect(uninstalled('T0LOST')).toEqual([]);
    expect(await keys.keys('docs-agent:directory:tenant:T0LOST:*')).not.toEqual([]);
    expect((await keys.keys('docs-agent:t:T0LOST:*')).length).toBeGreaterThan(0);

    await app.install({ teamId: 'T0LOST', teamName: 'Lost' });
    await waitFor(async () => (await help('T0LOST')).includes('/docs-agent'), { timeoutMs: 5_000 });
    expect((await directory.lifecycle('T0LOST'))?.hold).toBeUndefined();
  });

  it('a settings save at the moment of a refresh: the new token is kept and used, nothing uninstalled', async () => {
    // The refresh's answer comes 600 ms late; a settings save (`/docs-agent connect`) lands meanwhile.
    const hitsBefore = app.slack.held.hit.length;
    app.slack.held.add('oauth.v2.access', refreshOf, { kind: 'late', ms: 600, storeAfterMs: 400 });
    app.slack.oauth.tokenExpiresIn = 3_600;
    await app.install({ teamId: 'T0SAVE', teamName: 'Save' });
    app.slack.oauth.tokenExpiresIn = undefined;
    await waitFor(() => app.slack.held.hit.length > hitsBefore, {
      what: 'the refresh on its way',
    });
    expect(await directory.saveSettings('T0SAVE', { projects: [project('proj_save')] }, 0)).toBe(true);
    await waitFor(() => app.slack.oauth.refreshes.some((r) => r.tenant === 'T0SAVE'), { what: 'refreshed' });
    const fresh = app.slack.oauth.liveToken('T0SAVE');
    await waitFor(async () => (await directory.installation('T0SAVE'))?.botToken === fresh, {
      what: 'the refreshed token stored',
    });
    // A few more upkeep passes: nothing refreshed again with a spent token, nothing uninstalled.
    await new Promise((r) => setTimeout(r, 1_000));
    expect(app.slack.oauth.refreshes.filter((r) => r.tenant === 'T0SAVE')).toHaveLength(1);
    expect(uninstalled('T0SAVE')).toEqual([]);
    expect((await directory.settings('T0SAVE')).projects.map((p) => p.projectId)).toEqual(['proj_save']);
    expect((await directory.lifecycle('T0SAVE'))?.hold).toBeUndefined();
    expect(await help('T0SAVE')).toContain('/docs-agent');
  });

  it('Redis refusing the save of a refreshed token: kept in the process and saved at the next pass, one refresh', async () => {
    const hitsBefore = app.slack.held.hit.length;
    app.slack.held.add('oauth.v2.access', refreshOf, { kind: 'late', ms: 600, storeAfterMs: 400 });
    app.slack.oauth.tokenExpiresIn = 3_600;
    await app.install({ teamId: 'T0REDIS', teamName: 'Redis' });
    app.slack.oauth.tokenExpiresIn = undefined;
    await waitFor(() => app.slack.held.hit.length > hitsBefore, { what: 'the refresh on its way' });
    // Every write is refused (out of memory) while the answer arrives, for a second.
    await keys.configSet('maxmemory', '1');
    await waitFor(() => app.slack.oauth.refreshes.some((r) => r.tenant === 'T0REDIS'), { what: 'refreshed' });
    await waitFor(() => app.logs.some((l) => l.includes('T0REDIS') && l.includes('saving it again')), {
      what: 'the save refused',
    });
    await keys.configSet('maxmemory', '0');
    const fresh = app.slack.oauth.liveToken('T0REDIS');
    await waitFor(async () => (await directory.installation('T0REDIS'))?.botToken === fresh, {
      what: 'the refreshed token stored',
    });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(app.slack.oauth.refreshes.filter((r) => r.tenant === 'T0REDIS')).toHaveLength(1);
    expect(uninstalled('T0REDIS')).toEqual([]);
    expect((await directory.lifecycle('T0REDIS'))?.hold).toBeUndefined();
    await waitFor(async () => (await help('T0REDIS')).includes('/docs-agent'), { what: 'served' });
  });

  it('a tenant suspended between passes puts off nobody’s refresh: its later check never delays the next pass', async () => {
    // Slack rotates T0RACE's token and answers 503; its welcome DM reaches the fake after that, is refused,
    // and T0RACE is suspended with its first check 30 s away. T0NEXT, installed after, is refreshed at the
    // next pass all the same, and T0RACE's refresh is tried again (refused: it needs a re-install).
    app.slack.held.add('oauth.v2.access', refreshOf, { kind: 'late', ms: 50, status: 503 });
    app.slack.held.add('conversations.open', () => true, { kind: 'late', ms: 700, storeAfterMs: 700 });
    app.slack.oauth.tokenExpiresIn = 3_600;
    await app.install({ teamId: 'T0RACE', teamName: 'Race' });
    await waitFor(() => app.logs.some((l) => l.includes('T0RACE') && l.includes('suspended')), {
      what: 'T0RACE suspended',
    });
    await app.install({ teamId: 'T0NEXT', teamName: 'Next' });
    app.slack.oauth.tokenExpiresIn = undefined;
    await waitFor(() => app.slack.oauth.refreshes.some((r) => r.tenant === 'T0NEXT'), {
      what: 'T0NEXT refreshed',
    });
    const reinstall = await waitFor(
      () => app.logs.find((l) => l.includes('T0RACE') && l.includes('until someone installs the app again')),
      { what: 'T0RACE marked as needing a re-install' },
    );
    expect(reinstall).toContain('T0RACE');
  });
});
