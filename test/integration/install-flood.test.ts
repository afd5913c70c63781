import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';

/**
 * Issue 44, part 5: nobody can block "Add to Slack". Junk callbacks (`?code=x` with a fresh, valid state)
 * used to count against INSTALLS_PER_MINUTE before their code was proven, and the address was whatever
 * X-Forwarded-For said. Now only successful exchanges count, failures count apart per address, and the
 * address is the connection's unless TRUST_PROXY names the proxy. Real app over HTTP, fake Slack OAuth.
 */

const apps: OAuthTestApp[] = [];
afterEach(async () => {
  for (const app of apps.splice(0)) await app.stop();
});

// The minute is the app's clock, held still inside one minute so every count lands in the same window.
const minute = Math.floor(Date.now() / 60_000) * 60_000 + 5_000;

async function start(env: Record<string, string> = {}): Promise<OAuthTestApp> {
  const app = await startOAuthApp({ env, clock: { now: () => minute } });
  apps.push(app);
  return app;
}

const hrefOf = (html: string, marker: RegExp) => {
  const match = marker.exec(html);
  if (!match?.[1]) throw new Error(`no link matching ${marker} in ${html.slice(0, 300)}`);
  return match[1].replaceAll('&amp;', '&');
};

/** Loads the install page as a browser does: its state cookie and the authorize link carrying the state. */
async function installPage(app: OAuthTestApp) {
  const page = await fetch(`${app.url}/slack/install`);
  const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
  const authorize = hrefOf(await page.text(), /class="slack-button" href="([^"]+)"/);
  return { cookie, authorize, state: new URL(authorize).searchParams.get('state') ?? '' };
}

/** A GET to the bot from `localAddress` (another loopback address is another client), redirects not followed. */
function getFrom(
  url: string,
  headers: Record<string, string>,
  localAddress = '127.0.0.1',
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, localAddress }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A junk callback: a fresh, valid state and cookie, and a code Slack never issued. */
async function junkCallback(app: OAuthTestApp, headers: Record<string, string> = {}, from?: string) {
  const { cookie, state } = await installPage(app);
  const url = `${app.url}/slack/oauth_redirect?code=x&state=${encodeURIComponent(state)}`;
  return (await getFrom(url, { cookie, ...headers }, from)).status;
}

/** A real install through the fake Slack, its callback sent from `from`: the page finally shown. */
async function installFrom(app: OAuthTestApp, teamId: string, from: string) {
  app.slack.oauth.nextInstall({ teamId, teamName: teamId });
  const { cookie, authorize } = await installPage(app);
  const allow = hrefOf(await (await fetch(authorize)).text(), /id="allow" href="([^"]+)"/);
  const done = await getFrom(allow, { cookie }, from);
  return done.status === 303
    ? (await fetch(new URL(String(done.headers.location), app.url))).status
    : done.status;
}

const exchanges = (app: OAuthTestApp) => app.slack.calls.filter((c) => c.method === 'oauth.v2.access').length;

describe('"Add to Slack" cannot be blocked by junk callbacks', () => {
  it('80 install pages each followed by a junk callback from one address: a real install from another address and from the same one still succeeds', async () => {
    const app = await start(); // INSTALLS_PER_MINUTE: the default 60 (30 per address)
    const statuses: number[] = [];
    for (let i = 0; i < 80; i++) statuses.push(await junkCallback(app));
    // Every junk code reached Slack and was refused there: none was counted as an install.
    expect(statuses.filter((s) => s === 502)).toHaveLength(80);
    expect(exchanges(app)).toBe(80);

    expect(await installFrom(app, 'T0OTHERADDR', '127.0.0.2')).toBe(200);
    expect(await installFrom(app, 'T0SAMEADDR', '127.0.0.1')).toBe(200);
    expect(app.logs.filter((l) => l.includes('asked to wait'))).toHaveLength(0);
  });

  it('without TRUST_PROXY, a client’s own X-Forwarded-For neither spreads its failures nor switches counting off', async () => {
    const app = await start();
    const statuses: number[] = [];
    // 120 failed callbacks an address may send a minute (the default's bound), each claiming another address.
    for (let i = 0; i < 120; i++)
      statuses.push(await junkCallback(app, { 'x-forwarded-for': i % 2 ? `198.51.100.${i}` : `junk-${i}` }));
    expect(statuses.filter((s) => s !== 502)).toEqual([]);
    const { cookie, state } = await installPage(app);
    const busy = await getFrom(`${app.url}/slack/oauth_redirect?code=x&state=${encodeURIComponent(state)}`, {
      cookie,
      'x-forwarded-for': '203.0.113.10',
    });
    expect(busy.status).toBe(429);
    expect(Number(busy.headers['retry-after'])).toBe(55);
    expect(busy.body).toContain('Try again after <strong>');
    expect(exchanges(app)).toBe(120);
    // Another client (another connection address) is not held back by it.
    expect(await installFrom(app, 'T0NEIGHBOUR', '127.0.0.2')).toBe(200);
  });

  it('behind a trusted proxy (TRUST_PROXY), the client is the right-most forwarded address that is not the proxy', async () => {
    const app = await start({ TRUST_PROXY: '127.0.0.1' });
    for (let i = 0; i < 120; i++)
      expect(await junkCallback(app, { 'x-forwarded-for': `10.9.9.9, 203.0.113.7` })).toBe(502);
    expect(await junkCallback(app, { 'x-forwarded-for': 'spoofed, 203.0.113.7' })).toBe(429);
    // Another client through the same proxy is served.
    expect(await junkCallback(app, { 'x-forwarded-for': '203.0.113.7, 198.51.100.20' })).toBe(502);
  });

  it('a link’s state is used once: the same state and cookie sent again is refused without a second exchange', async () => {
    const app = await start();
    const { cookie, state } = await installPage(app);
    const url = `${app.url}/slack/oauth_redirect?code=x&state=${encodeURIComponent(state)}`;
    expect((await getFrom(url, { cookie })).status).toBe(502);
    const again = await getFrom(url, { cookie });
    expect(again.status).toBe(400);
    expect(again.body).toContain('This install link has expired');
    expect(exchanges(app)).toBe(1);
  });
});
