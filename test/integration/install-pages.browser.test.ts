import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type OAuthTestApp, STATE_SECRET, startOAuthApp } from '../support/oauth-app.js';
import { helpAnswer, reachesNoRuntime } from '../support/oauth-tenant-checks.js';

/*
 * "Add to Slack" in a real browser against the real OAuth-mode bot (in this process, memory mode, over the fake
 * Slack): the distribution's headless Chromium (.ci/run installs it, sets CHROMIUM_PATH) driven by
 * playwright-core, JavaScript off (the pages need none). After a success page the new tenant answers a signed
 * command; a team whose install failed reaches no runtime. In CI a missing Chromium fails; locally it skips.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const manifest = parse(readFileSync(join(import.meta.dirname, '..', '..', 'manifest.yml'), 'utf8'));
const MANIFEST_SCOPES: string[] = manifest.oauth_config.scopes.bot;
/** The path of the manifest's redirect URL (its host is the operator's): the bot's callback must be there. */
const MANIFEST_REDIRECT_PATH = new URL(manifest.oauth_config.redirect_urls[0]).pathname;

if (!HAS_CHROMIUM && !IN_CI)
  console.warn(
    `install-pages browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );

describe.runIf(IN_CI)('the browser test in CI', () => {
  it('has Chromium to run with (.ci/run installs the distribution package)', () => {
    expect(HAS_CHROMIUM, `no Chromium at ${CHROMIUM}: .ci/run must install it`).toBe(true);
  });
});

describe.skipIf(!HAS_CHROMIUM)(
  'Add to Slack in headless Chromium, against the OAuth-mode bot',
  { timeout: 60_000 },
  () => {
    let app: OAuthTestApp;
    let browser: Browser;
    let context: BrowserContext;
    let page: Page;
    /** Added to the bot's clock: an install link older than its 10 minutes. */
    let skew = 0;

    beforeAll(async () => {
      app = await startOAuthApp({ clock: { now: () => Date.now() + skew } });
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
    });

    afterAll(async () => {
      await browser?.close();
      await app?.stop();
    });

    beforeEach(async () => {
      skew = 0;
      await context?.close();
      // A phone-sized window, and no JavaScript: every page must work without it.
      context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 320, height: 640 } });
      page = await context.newPage();
    });

    /** The page is no wider than the 320 px window: nothing scrolls sideways. */
    async function fitsNarrowScreen(): Promise<void> {
      // Expressions run in the page (the project's TypeScript has no DOM types).
      const widths = await page.evaluate<number[]>(
        '[document.documentElement.scrollWidth, window.innerWidth]',
      );
      expect(widths[0]).toBeLessThanOrEqual(320);
      expect(widths[1]).toBe(320);
    }

    /** Opens the install page and follows "Add to Slack" to the fake Slack's authorize page. */
    async function toSlack(): Promise<URL> {
      await page.goto(`${app.url}/slack/install`);
      const href = await page.getByRole('link', { name: 'Add to Slack' }).getAttribute('href');
      await page.getByRole('link', { name: 'Add to Slack' }).click();
      await page.waitForURL(/\/oauth\/v2\/authorize/);
      return new URL(href ?? '');
    }

    /** Follows a link (Allow, Cancel) and answers the callback's HTTP status (303 on to the success page). */
    async function follow(selector: string): Promise<number> {
      const [response] = await Promise.all([
        page.waitForResponse((r) => new URL(r.url()).pathname === MANIFEST_REDIRECT_PATH),
        page.click(selector),
      ]);
      await page.waitForLoadState();
      return response.status();
    }

    it('the install page: language, title, what it does, every scope and why, one Add to Slack link', async () => {
      const response = await page.goto(`${app.url}/slack/install`);
      expect(response?.status()).toBe(200);
      expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
      expect(await page.getAttribute('html', 'lang')).toBe('en');
      expect(await page.title()).toBe('Add docs-agent to Slack');
      expect(await page.locator('body').textContent()).toContain('opens a pull request');
      const listed = await page.locator('ul.card li code').allTextContents();
      expect(listed).toEqual(MANIFEST_SCOPES);
      expect(await page.locator('ul.card li').first().textContent()).toMatch(/commands: \S+/);
      expect(await page.getByRole('link', { name: 'Add to Slack' }).count()).toBe(1);
      // Slack's own button: white, with Slack's mark drawn inline (nothing fetched from elsewhere).
      const button = page.locator('a.slack-button');
      expect(await button.locator('svg path').count()).toBe(4);
      const css = (expression: string) =>
        page.evaluate<string | number>(
          `(() => { const a = document.querySelector('a.slack-button'); return ${expression}; })()`,
        );
      expect(await css('getComputedStyle(a).backgroundColor')).toBe('rgb(255, 255, 255)');
      expect(await css('a.getBoundingClientRect().height')).toBe(48);
      await fitsNarrowScreen();
    });

    it('the deployment’s own address leads to the install page', async () => {
      const response = await page.goto(`${app.url}/`);
      expect(response?.status()).toBe(200);
      expect(new URL(page.url()).pathname).toBe('/slack/install');
      expect(await page.title()).toBe('Add docs-agent to Slack');
    });

    it('reaches Add to Slack with the keyboard, and shows where the focus is', async () => {
      await page.goto(`${app.url}/slack/install`);
      const style = (property: string) =>
        page.evaluate<string>(`getComputedStyle(document.querySelector('a.slack-button')).${property}`);
      expect(await style('outlineStyle')).toBe('none');
      await page.keyboard.press('Tab');
      expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Add to Slack');
      expect(await style('outlineStyle')).toBe('solid');
      expect(await style('outlineWidth')).toBe('3px');
      expect(await page.evaluate<string>('document.activeElement.className')).toBe('slack-button');
      // Enter on the focused link goes to Slack, as a click does.
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/oauth\/v2\/authorize/);
    });

    it("Add to Slack goes to Slack's authorize URL with the client id, the manifest's scopes and a state", async () => {
      const authorize = await toSlack();
      expect(authorize.origin).toBe(app.slack.url);
      expect(authorize.pathname).toBe('/oauth/v2/authorize');
      expect(authorize.searchParams.get('client_id')).toBe(app.slack.oauth.clientId);
      expect(authorize.searchParams.get('scope')?.split(',')).toEqual(MANIFEST_SCOPES);
      expect(authorize.searchParams.get('state')?.length).toBeGreaterThan(20);
      expect(app.slack.oauth.authorizeRequests.at(-1)?.state).toBe(authorize.searchParams.get('state'));
    });

    it('Allow installs the workspace: a success page that names it and says what next, and the tenant answers', async () => {
      app.slack.oauth.nextInstall({ teamId: 'T0ACME', teamName: 'Acme <Docs> & Co' });
      await toSlack();
      // The callback (the manifest's redirect URL) sends the browser on to the success page.
      expect(await follow('#allow')).toBe(303);
      expect(new URL(page.url()).pathname).toBe('/slack/installed');
      expect(await page.title()).toBe('docs-agent is installed in Acme <Docs> & Co');
      expect(await page.locator('h1').textContent()).toBe('docs-agent is installed in Acme <Docs> & Co');
      const open = page.getByRole('link', { name: 'Open Slack', exact: true });
      expect(await open.getAttribute('href')).toBe('slack://open?team=T0ACME');
      expect(await open.getAttribute('class')).toBe('button');
      expect(await page.getByRole('link', { name: 'Open in the browser instead' }).getAttribute('href')).toBe(
        'https://app.slack.com/client/T0ACME',
      );
      // A reload (or the page opened again from the history) shows the same page, logs nothing at error.
      const logged = app.logs.length;
      expect((await page.reload())?.status()).toBe(200);
      expect(await page.locator('h1').textContent()).toBe('docs-agent is installed in Acme <Docs> & Co');
      const after = app.logs.slice(logged).map((line) => JSON.parse(line) as { level: number; msg: string });
      expect(after.filter((l) => l.level >= 50)).toEqual([]);
      expect(after.map((l) => l.msg)).not.toContain(
        'an installation through "Add to Slack" did not complete',
      );
      // A page link not signed by this bot names nobody.
      const forged = new URL(page.url());
      forged.searchParams.set('i', Buffer.from('{"n":"Evil Corp","t":"T0EVIL"}').toString('base64url'));
      expect((await page.goto(forged.toString()))?.status()).toBe(404);
      expect(await page.locator('body').textContent()).not.toContain('Evil Corp');
      await page.goBack();
      const home = await page.getByRole('link', { name: /Open docs-agent's Home/ }).getAttribute('href');
      expect(home).toBe(`slack://app?team=T0ACME&id=${app.slack.oauth.appId}&tab=home`);
      expect(await page.locator('body').textContent()).toContain('/docs-agent connect');
      await fitsNarrowScreen();

      // The tenant really works: its runtime answers a signed command, and spoke to Slack with its own token.
      const answer = await helpAnswer(app, { team_id: 'T0ACME' });
      expect(answer.response_type).toBe('ephemeral');
      expect(answer.text).toContain('/docs-agent');
      const token = app.slack.oauth.liveToken('T0ACME');
      expect(token).toMatch(/^xoxb-T0ACME-/);
      expect(app.slack.calls.some((c) => c.authorization === `Bearer ${token}`)).toBe(true);
      // A workspace that never installed reaches no runtime.
      await reachesNoRuntime(app, 'T0NEVER');
    });

    it('an org-wide Enterprise Grid install names the org, and serves a workspace of the org', async () => {
      app.slack.oauth.nextInstall({
        enterpriseId: 'E0GLOBEX',
        enterpriseName: 'Globex',
        isEnterpriseInstall: true,
      });
      await toSlack();
      expect(await page.locator('h1').textContent()).toContain('Globex');
      expect(await follow('#allow')).toBe(303);
      expect(await page.locator('h1').textContent()).toBe(
        'docs-agent is installed for the Globex organization',
      );
      const add = await page
        .getByRole('link', { name: /Add docs-agent to the workspaces/ })
        .getAttribute('href');
      expect(add).toBe(
        `https://app.slack.com/manage/E0GLOBEX/integrations/profile/${app.slack.oauth.appId}/workspaces/add`,
      );
      await fitsNarrowScreen();
      const answer = await helpAnswer(app, {
        team_id: 'T0GLOBEXHR',
        enterprise_id: 'E0GLOBEX',
        is_enterprise_install: 'true',
      });
      expect(answer.text).toContain('/docs-agent');
      expect(app.slack.oauth.liveToken('E0GLOBEX')).toMatch(/^xoxb-E0GLOBEX-/);
    });

    it('Cancel: a failure page that says it was cancelled, Try again starts over, and nothing is installed', async () => {
      app.slack.oauth.nextInstall({ teamId: 'T0CANCEL', teamName: 'Cancelled' });
      await toSlack();
      expect(await follow('#cancel')).toBe(403);
      expect(await page.locator('h1').textContent()).toBe('Installation cancelled');
      expect(await page.locator('body').textContent()).toContain('You pressed Cancel');
      await fitsNarrowScreen();
      await page.getByRole('link', { name: 'Try again' }).click();
      await page.waitForURL(`${app.url}/slack/install`);
      expect(await page.title()).toBe('Add docs-agent to Slack');
      await reachesNoRuntime(app, 'T0CANCEL');
    });

    it('a forged state, a link opened in another browser, or one older than 10 minutes: "expired", try again', async () => {
      const exchanges = app.slack.callsOf('oauth.v2.access').length;
      app.slack.oauth.nextInstall({ teamId: 'T0FORGED', teamName: 'Forged' });
      await toSlack();
      const allow = new URL((await page.locator('#allow').getAttribute('href')) ?? '');
      const forged = new URL(allow);
      forged.searchParams.set('state', `${allow.searchParams.get('state')?.slice(0, -4)}AAAA`);
      const answers: number[] = [];
      for (const target of [forged, allow]) {
        // The forged state in this browser; the real one in a fresh browser (no state cookie).
        const where = target === forged ? page : await browser.newPage({ javaScriptEnabled: false });
        answers.push((await where.goto(target.toString()))?.status() ?? 0);
        expect(await where.locator('h1').textContent()).toBe('This install link has expired');
        expect(await where.getByRole('link', { name: 'Try again' }).getAttribute('href')).toBe(
          '/slack/install',
        );
        if (where !== page) await where.close();
      }
      await toSlack();
      skew = 11 * 60_000;
      answers.push(await follow('#allow'));
      expect(await page.locator('h1').textContent()).toBe('This install link has expired');
      await fitsNarrowScreen();
      expect(answers).toEqual([400, 400, 400]);
      // No code was exchanged, so no token issued, and the team has no runtime.
      expect(app.slack.callsOf('oauth.v2.access')).toHaveLength(exchanges);
      skew = 0;
      await reachesNoRuntime(app, 'T0FORGED');
    });

    it('a code Slack refuses: a failure page that says Slack did not accept it', async () => {
      app.slack.oauth.nextInstall({ teamId: 'T0REFUSED', teamName: 'Refused' });
      await toSlack();
      const allow = new URL((await page.locator('#allow').getAttribute('href')) ?? '');
      allow.searchParams.set('code', 'not-a-code-slack-issued');
      const response = await page.goto(allow.toString());
      expect(response?.status()).toBe(502);
      expect(await page.locator('h1').textContent()).toBe('Slack did not accept this installation');
      expect(await page.locator('main code').textContent()).toBe('invalid_code');
      expect(await page.getByRole('link', { name: 'Try again' }).count()).toBe(1);
      await fitsNarrowScreen();
      await reachesNoRuntime(app, 'T0REFUSED');
    });

    it('logged no secret: not the client secret, the state secret, a bot token or a code', () => {
      const everything = app.logs.join('\n');
      expect(everything).toContain('installed through');
      const codes = app.slack.callsOf('oauth.v2.access').map((c) => String(c.args.code));
      const tokens = ['T0ACME', 'E0GLOBEX'].map((t) => app.slack.oauth.liveToken(t) ?? 'missing token');
      expect(codes.length).toBeGreaterThanOrEqual(2);
      for (const secret of [app.slack.oauth.clientSecret, STATE_SECRET, ...tokens, ...codes])
        expect(everything).not.toContain(secret);
    });
  },
);
