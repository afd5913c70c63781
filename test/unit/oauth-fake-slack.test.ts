import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeSlack } from '../support/fake-slack.js';
import { BOT_TOKEN } from '../support/test-app.js';

/** The fake Slack's OAuth side refuses what Slack refuses, and answers auth.test per token. */

let slack: FakeSlack;
beforeEach(async () => {
  slack = await FakeSlack.start();
  slack.oauth.redirectUrls = ['https://bot.example/slack/oauth_redirect'];
});
afterEach(async () => slack.close());

async function call(method: string, form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${slack.apiUrl}${method}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  return (await response.json()) as Record<string, unknown>;
}

const authTest = (token: string) => call('auth.test', {}, { authorization: `Bearer ${token}` });

/** Opens the authorize page and answers the Allow link's code (or the page's status when it refuses). */
async function allow(
  query: Record<string, string> = {},
): Promise<{ status: number; code: string; page: string }> {
  const params = new URLSearchParams({
    client_id: slack.oauth.clientId,
    scope: 'commands,chat:write',
    state: 's1',
  });
  for (const [k, v] of Object.entries(query)) params.set(k, v);
  const response = await fetch(`${slack.url}/oauth/v2/authorize?${params}`);
  const page = await response.text();
  return { status: response.status, code: /code=([^&"]+)/.exec(page)?.[1] ?? '', page };
}

const credentials = () => ({ client_id: slack.oauth.clientId, client_secret: slack.oauth.clientSecret });

describe('fake Slack: "Add to Slack"', () => {
  it('before any install every token is the home workspace, as single-workspace tests expect', async () => {
    expect(await authTest(BOT_TOKEN)).toMatchObject({
      ok: true,
      team_id: 'T0TEAM',
      user_id: slack.botUserId,
    });
  });

  it('the authorize page: Allow carries a code and the state, Cancel access_denied; bad requests refused', async () => {
    const { status, page } = await allow();
    expect(status).toBe(200);
    expect(page).toContain('https://bot.example/slack/oauth_redirect?code=');
    expect(page).toContain('state=s1');
    expect(page).toContain('https://bot.example/slack/oauth_redirect?error=access_denied&amp;state=s1');
    expect((await allow({ client_id: 'nope' })).status).toBe(400);
    expect((await allow({ scope: '' })).status).toBe(400);
    expect((await allow({ redirect_uri: 'https://evil.example/cb' })).status).toBe(400);
  });

  it('oauth.v2.access: credentials as form fields or Basic auth, a code works once, unknown codes refused', async () => {
    slack.oauth.nextInstall({ teamId: 'T0ONE', teamName: 'One' });
    const { code } = await allow();
    expect(await call('oauth.v2.access', { ...credentials(), client_id: 'x', code })).toEqual({
      ok: false,
      error: 'invalid_client_id',
    });
    expect(await call('oauth.v2.access', { ...credentials(), client_secret: 'x', code })).toEqual({
      ok: false,
      error: 'bad_client_secret',
    });
    const basic = Buffer.from(`${slack.oauth.clientId}:${slack.oauth.clientSecret}`).toString('base64');
    const granted = await call('oauth.v2.access', { code }, { authorization: `Basic ${basic}` });
    expect(granted).toMatchObject({
      ok: true,
      token_type: 'bot',
      access_token: expect.stringMatching(/^xoxb-T0ONE-/),
      scope: 'commands,chat:write',
      team: { id: 'T0ONE', name: 'One' },
      enterprise: null,
      is_enterprise_install: false,
      authed_user: { id: slack.oauth.installerUserId },
      app_id: slack.oauth.appId,
    });
    expect(await call('oauth.v2.access', { ...credentials(), code })).toMatchObject({
      error: 'code_already_used',
    });
    expect(await call('oauth.v2.access', { ...credentials(), code: 'made-up' })).toMatchObject({
      error: 'invalid_code',
    });
  });

  it('a distinct token per tenant, auth.test per token; unknown and revoked tokens are invalid_auth', async () => {
    slack.oauth.nextInstall({
      teamId: 'T0ONE',
      teamName: 'One',
      enterpriseId: 'E0ORG',
      enterpriseName: 'Org',
    });
    const one = await call('oauth.v2.access', { ...credentials(), code: (await allow()).code });
    slack.oauth.nextInstall({ enterpriseId: 'E0ORG', enterpriseName: 'Org', isEnterpriseInstall: true });
    const org = await call('oauth.v2.access', { ...credentials(), code: (await allow()).code });
    expect(org).toMatchObject({ team: null, enterprise: { id: 'E0ORG' }, is_enterprise_install: true });
    expect(one.access_token).not.toBe(org.access_token);
    expect(await authTest(String(one.access_token))).toMatchObject({
      ok: true,
      team_id: 'T0ONE',
      enterprise_id: 'E0ORG',
      user_id: 'UT0ONEBOT',
      bot_id: 'BT0ONEBOT',
      is_enterprise_install: false,
    });
    expect(await authTest(String(org.access_token))).toMatchObject({
      ok: true,
      enterprise_id: 'E0ORG',
      user_id: 'WE0ORGBOT',
      is_enterprise_install: true,
    });
    expect(await authTest(BOT_TOKEN)).toEqual({ ok: false, error: 'invalid_auth' });
    slack.oauth.homeTokens.add(BOT_TOKEN);
    expect(await authTest(BOT_TOKEN)).toMatchObject({ ok: true, team_id: 'T0TEAM' });

    slack.oauth.revoke('T0ONE');
    expect(await authTest(String(one.access_token))).toEqual({ ok: false, error: 'invalid_auth' });
    const post = { channel: 'C1', text: 'hi' };
    const auth = (t: unknown) => ({ authorization: `Bearer ${String(t)}` });
    expect(await call('chat.postMessage', post, auth(one.access_token))).toEqual({
      ok: false,
      error: 'invalid_auth',
    });
    expect(await call('chat.postMessage', post, auth(org.access_token))).toMatchObject({ ok: true });
    expect(slack.oauth.tenantOf(`Bearer ${String(org.access_token)}`)).toBe('E0ORG');
  });

  it('token rotation: expiring tokens with a refresh token; a refresh replaces both and retires the old', async () => {
    slack.oauth.tokenExpiresIn = 43_200;
    slack.oauth.nextInstall({ teamId: 'T0ROT', teamName: 'Rot' });
    const first = await call('oauth.v2.access', { ...credentials(), code: (await allow()).code });
    expect(first).toMatchObject({
      expires_in: 43_200,
      refresh_token: expect.stringMatching(/^xoxe-1-T0ROT-/),
    });
    const refresh = {
      ...credentials(),
      grant_type: 'refresh_token',
      refresh_token: String(first.refresh_token),
    };
    const second = await call('oauth.v2.access', refresh);
    expect(second).toMatchObject({
      ok: true,
      access_token: expect.stringMatching(/^xoxb-T0ROT-/),
      expires_in: 43_200,
    });
    expect(second.access_token).not.toBe(first.access_token);
    expect(await authTest(String(first.access_token))).toEqual({ ok: false, error: 'invalid_auth' });
    expect(await authTest(String(second.access_token))).toMatchObject({ ok: true, team_id: 'T0ROT' });
    expect(await call('oauth.v2.access', refresh)).toEqual({ ok: false, error: 'invalid_refresh_token' });
    expect(slack.oauth.refreshes).toHaveLength(1);
  });
});
