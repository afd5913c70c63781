import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type FakeTenant,
  type IssuedToken,
  type NextInstall,
  type PendingCode,
  tenantKeyOf,
} from './fake-slack-tenants.js';

export { type FakeTenant, type NextInstall, tenantKeyOf } from './fake-slack-tenants.js';

/**
 * The fake Slack's OAuth side ("Add to Slack"): the authorize page with Allow and Cancel, `oauth.v2.access`
 * (codes, client credentials, token rotation) and `auth.test` per token. Refuses what Slack refuses: a wrong
 * client id or secret, an unknown or reused code, a redirect URL the app does not list, a used refresh token.
 * Until it has issued a token, every token is the home workspace's (T0TEAM), as in single-workspace tests;
 * from then on a token it did not issue (or that was revoked or rotated away) is `invalid_auth`.
 */

const CODE_TTL_MS = 10 * 60_000;
/** Methods that take no bot token: the code exchange itself, and Socket Mode's app-level token. */
const NO_BOT_TOKEN = new Set(['oauth.v2.access', 'apps.connections.open']);

const escapeText = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[ch] ?? '&#39;',
  );

export class FakeSlackOAuth {
  clientId = '1111111111.2222222222';
  clientSecret = 'fake-client-secret-0123456789abcdef';
  appId = 'A0DOCSAGENT';
  /** The app's redirect URLs (oauth_config.redirect_urls): the first is used when the authorize URL names none. */
  redirectUrls: string[] = [];
  /** Token rotation: bot tokens expire after this many seconds and come with a refresh token. Off if unset. */
  tokenExpiresIn: number | undefined;
  /**
   * Tokens without Slack's `xox…-` shape (random characters only): what a scrubber that only knew shapes
   * would miss, so secret scans prove known values are scrubbed too.
   */
  opaqueTokens = false;
  /** The user who presses Allow. */
  installerUserId = 'U0INSTALLER';
  /** Tokens still answered as the home workspace once OAuth tokens are in use (an upgraded single workspace). */
  readonly homeTokens = new Set<string>();
  /** Token prefixes taken as the home workspace's too (benchmarks seed thousands of installs' tokens). */
  readonly homeTokenPrefixes = new Set<string>();
  readonly tenants = new Map<string, FakeTenant>();
  /** Every authorize page served, with its query (client_id, scope, state, redirect_uri). */
  readonly authorizeRequests: Array<Record<string, string>> = [];
  /** Every refresh that issued a token (one replica at a time refreshes). */
  readonly refreshes: Array<{ tenant: string; at: number }> = [];
  /**
   * A Slack auth incident (or a proxy dropping the token): while a tenant is listed, every call with any of
   * its tokens, auth.test too, is answered with this error.
   */
  readonly refusing = new Map<string, string>();
  private next: NextInstall = { teamId: 'T0TEAM', teamName: 'Acme' };
  private readonly codes = new Map<string, PendingCode>();
  private readonly tokens = new Map<string, IssuedToken>();
  private readonly refreshTokens = new Map<string, IssuedToken>();
  private counter = 0;

  constructor(private readonly home: { botUserId: string; botId: string }) {}

  /** The next "Allow" installs the app here. */
  nextInstall(install: NextInstall): void {
    this.next = install;
  }

  /** The tenant's current bot token (undefined once revoked). */
  liveToken(tenant: string): string | undefined {
    return [...this.tokens].find(([, t]) => t.tenant === tenant && t.live)?.[0];
  }

  /** Uninstall or revocation: every token and refresh token of the tenant stops working. */
  revoke(tenant: string): void {
    for (const t of [...this.tokens.values(), ...this.refreshTokens.values()])
      if (t.tenant === tenant) t.live = false;
  }

  /** The tenant a call's token was issued to (live or not); undefined for a token this side never issued. */
  tenantOf(authorization: string | undefined, args: Record<string, unknown> = {}): string | undefined {
    const token = tokenOf(authorization, args);
    return token ? this.tokens.get(token)?.tenant : undefined;
  }

  /** GET /oauth/v2/authorize: Slack's consent page. False for any other request. */
  page(req: IncomingMessage, res: ServerResponse): boolean {
    const url = new URL(req.url ?? '/', 'http://fake-slack');
    if (req.method !== 'GET' || url.pathname !== '/oauth/v2/authorize') return false;
    const query = Object.fromEntries(url.searchParams);
    this.authorizeRequests.push(query);
    const refused = (status: number, why: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><html lang="en"><title>Slack</title><h1>Something went wrong</h1><p>${escapeText(why)}</p>`,
      );
      return true;
    };
    if (query.client_id !== this.clientId) return refused(400, 'Invalid client_id parameter');
    const scopes = (query.scope ?? '').split(',').filter(Boolean);
    if (scopes.length === 0) return refused(400, 'Invalid permissions requested: no scope');
    const redirect = query.redirect_uri ?? this.redirectUrls[0];
    if (!redirect) return refused(400, 'No redirect URL is configured for this app');
    if (query.redirect_uri && !this.redirectUrls.some((u) => query.redirect_uri?.startsWith(u)))
      return refused(400, 'redirect_uri did not match any configured URIs');
    const code = `${++this.counter}.${randomBytes(8).toString('hex')}`;
    this.codes.set(code, {
      install: this.next,
      scopes,
      redirectUri: query.redirect_uri,
      issuedAt: Date.now(),
      used: false,
    });
    const back = (params: Record<string, string>) => {
      const target = new URL(redirect);
      for (const [k, v] of Object.entries({ ...params, ...(query.state ? { state: query.state } : {}) }))
        target.searchParams.set(k, v);
      return escapeText(target.toString());
    };
    const where = this.next.isEnterpriseInstall
      ? `the ${this.next.enterpriseName} organization`
      : this.next.teamName;
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(`<!doctype html><html lang="en"><head><title>Slack: allow docs-agent</title></head><body>
<h1>docs-agent is requesting permission to access ${escapeText(where)}</h1>
<ul>${scopes.map((s) => `<li>${escapeText(s)}</li>`).join('')}</ul>
<p><a id="allow" href="${back({ code })}">Allow</a> <a id="cancel" href="${back({ error: 'access_denied' })}">Cancel</a></p>
</body></html>`);
    return true;
  }

  /**
   * oauth.v2.access, auth.test, and the refusal of any call with a token Slack would not take. Undefined: the
   * call is none of this side's business (the fake answers it as before).
   */
  answer(
    method: string,
    args: Record<string, unknown>,
    authorization: string | undefined,
  ): Record<string, unknown> | undefined {
    if (method === 'oauth.v2.access') return this.access(args, authorization);
    if (NO_BOT_TOKEN.has(method)) return undefined;
    const token = tokenOf(authorization, args);
    const issued = token ? this.tokens.get(token) : undefined;
    const tenant = issued ? this.tenants.get(issued.tenant) : undefined;
    if (!issued || !tenant) {
      // One a test named, or before any install the single-workspace tests' token (`xoxb-test…`); no other.
      const home =
        token !== undefined &&
        (this.homeTokens.has(token) ||
          [...this.homeTokenPrefixes].some((prefix) => token.startsWith(prefix)) ||
          (this.tokens.size === 0 && token.startsWith('xoxb-test')));
      if (!home) return { ok: false, error: 'invalid_auth' };
      return method === 'auth.test' ? this.homeAuthTest() : undefined;
    }
    if (!issued.live) return { ok: false, error: 'invalid_auth' };
    const refusal = this.refusing.get(issued.tenant);
    if (refusal) return { ok: false, error: refusal };
    if (issued.expiresAt !== undefined && Date.now() >= issued.expiresAt)
      return { ok: false, error: 'token_expired' };
    return method === 'auth.test' ? this.authTest(tenant) : undefined;
  }

  private homeAuthTest(): Record<string, unknown> {
    return {
      ok: true,
      url: 'https://acme.slack.com/',
      team: 'Acme',
      team_id: 'T0TEAM',
      user: 'docs-agent',
      user_id: this.home.botUserId,
      bot_id: this.home.botId,
    };
  }

  private authTest({ key, install, botUserId, botId }: FakeTenant): Record<string, unknown> {
    const org = install.isEnterpriseInstall;
    const name = org ? install.enterpriseName : install.teamName;
    const slug = name.toLowerCase().replace(/[^a-z0-9]+/g, '-') || key.toLowerCase();
    return {
      ok: true,
      url: org ? `https://${slug}.enterprise.slack.com/` : `https://${slug}.slack.com/`,
      team: name,
      team_id: org ? install.enterpriseId : install.teamId,
      user: 'docs-agent',
      user_id: botUserId,
      bot_id: botId,
      ...(install.enterpriseId ? { enterprise_id: install.enterpriseId } : {}),
      is_enterprise_install: org === true,
    };
  }

  private access(args: Record<string, unknown>, authorization: string | undefined): Record<string, unknown> {
    // Slack takes the client's credentials as HTTP Basic auth or as form fields.
    const basic = /^Basic\s+(.+)$/i.exec(authorization ?? '')?.[1];
    const [basicId, basicSecret] = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':') : [];
    const clientId = basicId ?? String(args.client_id ?? '');
    const clientSecret = basicSecret ?? String(args.client_secret ?? '');
    if (clientId !== this.clientId) return { ok: false, error: 'invalid_client_id' };
    if (clientSecret !== this.clientSecret) return { ok: false, error: 'bad_client_secret' };
    const grant = String(args.grant_type ?? 'authorization_code');
    if (grant === 'refresh_token') return this.refresh(String(args.refresh_token ?? ''));
    if (grant !== 'authorization_code') return { ok: false, error: 'invalid_grant_type' };
    const pending = this.codes.get(String(args.code ?? ''));
    if (!pending || Date.now() - pending.issuedAt > CODE_TTL_MS) return { ok: false, error: 'invalid_code' };
    if (pending.used) return { ok: false, error: 'code_already_used' };
    // A redirect_uri named on the authorize URL must be named again, the same.
    if (pending.redirectUri !== undefined && args.redirect_uri !== pending.redirectUri)
      return { ok: false, error: 'bad_redirect_uri' };
    pending.used = true;
    const tenant = this.installTenant(pending);
    if (this.tokenExpiresIn === undefined) {
      // Without rotation a re-install keeps the bot token, as Slack does.
      const token = this.liveToken(tenant.key) ?? this.issue(tenant.key);
      return this.grantAnswer(tenant, token);
    }
    return this.rotate(tenant);
  }

  private refresh(refreshToken: string): Record<string, unknown> {
    const issued = this.refreshTokens.get(refreshToken);
    const tenant = issued ? this.tenants.get(issued.tenant) : undefined;
    if (!issued?.live || !tenant) return { ok: false, error: 'invalid_refresh_token' };
    this.refreshes.push({ tenant: tenant.key, at: Date.now() });
    return this.rotate(tenant);
  }

  /** Token rotation: a new bot token and refresh token; every earlier one of the tenant stops working. */
  private rotate(tenant: FakeTenant): Record<string, unknown> {
    this.revoke(tenant.key);
    const expiresIn = this.tokenExpiresIn ?? 43_200;
    const token = this.issue(tenant.key, Date.now() + expiresIn * 1000);
    const refreshToken = this.opaqueTokens
      ? `${randomBytes(18).toString('base64url')}${++this.counter}`
      : `xoxe-1-${tenant.key}-${++this.counter}-${randomBytes(8).toString('hex')}`;
    this.refreshTokens.set(refreshToken, { tenant: tenant.key, live: true, expiresAt: undefined });
    return { ...this.grantAnswer(tenant, token), refresh_token: refreshToken, expires_in: expiresIn };
  }

  private issue(tenant: string, expiresAt?: number): string {
    const token = this.opaqueTokens
      ? `${randomBytes(18).toString('base64url')}${++this.counter}`
      : `xoxb-${tenant}-${++this.counter}-${randomBytes(8).toString('hex')}`;
    this.tokens.set(token, { tenant, live: true, expiresAt });
    return token;
  }

  private installTenant(pending: PendingCode): FakeTenant {
    const key = tenantKeyOf(pending.install);
    const home = key === 'T0TEAM';
    const prefix = pending.install.isEnterpriseInstall ? 'W' : 'U';
    const tenant: FakeTenant = {
      key,
      install: pending.install,
      botUserId: home ? this.home.botUserId : `${prefix}${key}BOT`,
      botId: home ? this.home.botId : `B${key}BOT`,
      scopes: pending.scopes,
      installerUserId: this.installerUserId,
    };
    this.tenants.set(key, tenant);
    return tenant;
  }

  private grantAnswer(tenant: FakeTenant, token: string): Record<string, unknown> {
    const { install } = tenant;
    const org = install.isEnterpriseInstall === true;
    return {
      ok: true,
      app_id: this.appId,
      authed_user: { id: tenant.installerUserId },
      scope: tenant.scopes.join(','),
      token_type: 'bot',
      access_token: token,
      bot_user_id: tenant.botUserId,
      team: org ? null : { id: install.teamId, name: install.teamName },
      enterprise: install.enterpriseId
        ? { id: install.enterpriseId, name: install.enterpriseName ?? '' }
        : null,
      is_enterprise_install: org,
    };
  }
}

function tokenOf(authorization: string | undefined, args: Record<string, unknown>): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(authorization ?? '')?.[1];
  return bearer ?? (typeof args.token === 'string' ? args.token : undefined);
}
