import { existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { HTTPReceiver } from '@slack/bolt';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createLogger } from '../../src/common/logger.js';
import { boltLogger } from '../../src/slack/bolt-logger.js';
import { slackInstaller } from '../../src/slack/oauth/installer.js';
import type { TenantDirectory } from '../../src/tenants/ports.js';
import type { TenantInstallation } from '../../src/tenants/tenant.js';
import { NO_SETTINGS } from '../../src/tenants/tenant.js';
import { FakeSlack } from '../support/fake-slack.js';

/*
 * "Add to Slack" in a real browser: the distribution's headless Chromium (.ci/run installs it, sets CHROMIUM_PATH)
 * driven by playwright-core, JavaScript off (the pages need none), against a real Bolt HTTPReceiver built with our
 * installer options and the fake Slack. In CI a missing Chromium fails the suite; locally it skips, saying so.
 */

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const HAS_CHROMIUM = existsSync(CHROMIUM);
const IN_CI = process.env.CI === 'true' || process.env.CI === '1';
const manifest = parse(readFileSync(join(import.meta.dirname, '..', '..', 'manifest.yml'), 'utf8'));
const MANIFEST_SCOPES: string[] = manifest.oauth_config.scopes.bot;
const STATE_SECRET = 'test-state-secret-0123456789abcdef';

if (!HAS_CHROMIUM && !IN_CI)
  console.warn(
    `install-pages browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium, or set CHROMIUM_PATH)`,
  );

describe.runIf(IN_CI)('the browser test in CI', () => {
  it('has Chromium to run with (.ci/run installs the distribution package)', () => {
    expect(HAS_CHROMIUM, `no Chromium at ${CHROMIUM}: .ci/run must install it`).toBe(true);
  });
});

/** The TenantDirectory port as a Map: enough for the install flow (the real ones are tested on their own). */
class MapDirectory implements TenantDirectory {
  readonly installs = new Map<string, TenantInstallation>();
  async saveInstallation(installation: TenantInstallation) {
    this.installs.set(installation.tenant, structuredClone(installation));
    return true;
  }
  async installation(tenant: string) {
    return this.installs.get(tenant);
  }
  async settings() {
    return NO_SETTINGS;
  }
  async saveSettings() {
    return false;
  }
  async stamps() {
    return new Map([...this.installs.keys()].map((k) => [k, '1'] as const));
  }
  async removeTenant(tenant: string) {
    this.installs.delete(tenant);
  }
  async duePurges() {
    return [];
  }
  async lease() {
    return true;
  }
  async purged() {}
  async close() {}
}

describe.skipIf(!HAS_CHROMIUM)('Add to Slack in headless Chromium', () => {
  let slack: FakeSlack;
  let receiver: HTTPReceiver;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let clock = Date.now();
  const directory = new MapDirectory();
  const installed: TenantInstallation[] = [];
  const logs: string[] = [];

  beforeAll(async () => {
    slack = await FakeSlack.start();
    // No secrets given to the logger's scrubbing: the check at the end sees anything that was written.
    const logger = createLogger({ level: 'debug', secrets: [], destination: { write: (l) => logs.push(l) } });
    receiver = new HTTPReceiver({
      signingSecret: 'test-signing-secret',
      logger: boltLogger(logger),
      ...slackInstaller({
        clientId: slack.oauth.clientId,
        clientSecret: slack.oauth.clientSecret,
        stateSecret: STATE_SECRET,
        slackApiUrl: slack.apiUrl,
        directory,
        now: () => clock,
        logger,
        onInstalled: (installation) => installed.push(installation),
      }),
    });
    const server = await receiver.start({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    slack.oauth.redirectUrls = [`${base}/slack/oauth_redirect`];
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
  });

  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await slack?.close();
  });

  beforeEach(async () => {
    clock = Date.now();
    await context?.close();
    // A phone-sized window, and no JavaScript: every page must work without it.
    context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 320, height: 640 } });
    page = await context.newPage();
  });

  /** The page is no wider than the 320 px window: nothing scrolls sideways. */
  async function fitsNarrowScreen(): Promise<void> {
    // Expressions run in the page (the project's TypeScript has no DOM types).
    const widths = await page.evaluate<number[]>('[document.documentElement.scrollWidth, window.innerWidth]');
    expect(widths[0]).toBeLessThanOrEqual(320);
    expect(widths[1]).toBe(320);
  }

  /** Opens the install page and follows "Add to Slack" to the fake Slack's authorize page. */
  async function toSlack(): Promise<URL> {
    await page.goto(`${base}/slack/install`);
    const href = await page.getByRole('link', { name: 'Add to Slack' }).getAttribute('href');
    await page.getByRole('link', { name: 'Add to Slack' }).click();
    await page.waitForURL(/\/oauth\/v2\/authorize/);
    return new URL(href ?? '');
  }

  /** Follows a link (Allow, Cancel) and answers the callback's HTTP status. */
  async function follow(selector: string): Promise<number> {
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.url().includes('/slack/oauth_redirect')),
      page.click(selector),
    ]);
    await page.waitForLoadState();
    return response.status();
  }

  it('the install page: language, title, what it does, every scope and why, one Add to Slack link', async () => {
    const response = await page.goto(`${base}/slack/install`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(await page.getAttribute('html', 'lang')).toBe('en');
    expect(await page.title()).toBe('Add docs-agent to Slack');
    expect(await page.locator('body').textContent()).toContain('opens a pull request');
    const listed = await page.locator('ul.card li code').allTextContents();
    expect(listed).toEqual(MANIFEST_SCOPES);
    expect(await page.locator('ul.card li').first().textContent()).toMatch(/commands: \S+/);
    expect(await page.getByRole('link', { name: 'Add to Slack' }).count()).toBe(1);
    await fitsNarrowScreen();
  });

  it('reaches Add to Slack with the keyboard, and shows where the focus is', async () => {
    await page.goto(`${base}/slack/install`);
    const style = (property: string) =>
      page.evaluate<string>(`getComputedStyle(document.querySelector('a.button')).${property}`);
    const outline = () => style('outlineStyle');
    expect(await outline()).toBe('none');
    await page.keyboard.press('Tab');
    expect(await page.evaluate<string>('document.activeElement.textContent')).toBe('Add to Slack');
    expect(await outline()).toBe('solid');
    expect(await style('outlineWidth')).toBe('3px');
    expect(await page.evaluate<string>('document.activeElement.className')).toBe('button');
    // Enter on the focused link goes to Slack, as a click does.
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/oauth\/v2\/authorize/);
  });

  it("Add to Slack goes to Slack's authorize URL with the client id, the manifest's scopes and a state", async () => {
    const authorize = await toSlack();
    expect(authorize.origin).toBe(slack.url);
    expect(authorize.pathname).toBe('/oauth/v2/authorize');
    expect(authorize.searchParams.get('client_id')).toBe(slack.oauth.clientId);
    expect(authorize.searchParams.get('scope')?.split(',')).toEqual(MANIFEST_SCOPES);
    expect(authorize.searchParams.get('state')?.length).toBeGreaterThan(20);
    expect(slack.oauth.authorizeRequests.at(-1)?.state).toBe(authorize.searchParams.get('state'));
  });

  it('Allow installs the workspace: saved, announced, and a success page that names it and says what next', async () => {
    slack.oauth.nextInstall({ teamId: 'T0ACME', teamName: 'Acme <Docs> & Co' });
    await toSlack();
    expect(await follow('#allow')).toBe(200);
    expect(await page.title()).toBe('docs-agent is installed in Acme <Docs> & Co');
    expect(await page.locator('h1').textContent()).toBe('docs-agent is installed in Acme <Docs> & Co');
    const home = await page.getByRole('link', { name: /Open docs-agent's Home/ }).getAttribute('href');
    expect(home).toBe(`slack://app?team=T0ACME&id=${slack.oauth.appId}&tab=home`);
    expect(await page.locator('body').textContent()).toContain('/docs-agent connect');
    await fitsNarrowScreen();

    const saved = directory.installs.get('T0ACME');
    expect(saved).toMatchObject({
      tenant: 'T0ACME',
      teamId: 'T0ACME',
      isEnterpriseInstall: false,
      name: 'Acme <Docs> & Co',
      botToken: slack.oauth.liveToken('T0ACME'),
      botUserId: 'UT0ACMEBOT',
      botId: 'BT0ACMEBOT',
      installerUserId: slack.oauth.installerUserId,
      appId: slack.oauth.appId,
      scopes: MANIFEST_SCOPES,
    });
    expect(installed.at(-1)?.tenant).toBe('T0ACME');
  });

  it('an org-wide Enterprise Grid install names the org', async () => {
    slack.oauth.nextInstall({
      enterpriseId: 'E0GLOBEX',
      enterpriseName: 'Globex',
      isEnterpriseInstall: true,
    });
    await toSlack();
    expect(await page.locator('h1').textContent()).toContain('Globex');
    expect(await follow('#allow')).toBe(200);
    expect(await page.locator('h1').textContent()).toBe(
      'docs-agent is installed for the Globex organization',
    );
    const add = await page
      .getByRole('link', { name: /Add docs-agent to the workspaces/ })
      .getAttribute('href');
    expect(add).toBe(
      `https://app.slack.com/manage/E0GLOBEX/integrations/profile/${slack.oauth.appId}/workspaces/add`,
    );
    expect(directory.installs.get('E0GLOBEX')).toMatchObject({
      tenant: 'E0GLOBEX',
      teamId: undefined,
      enterpriseId: 'E0GLOBEX',
      isEnterpriseInstall: true,
      name: 'Globex',
      botToken: slack.oauth.liveToken('E0GLOBEX'),
    });
  });

  it('Cancel: a failure page that says it was cancelled, and Try again starts over', async () => {
    await toSlack();
    expect(await follow('#cancel')).toBe(403);
    expect(await page.locator('h1').textContent()).toBe('Installation cancelled');
    expect(await page.locator('body').textContent()).toContain('You pressed Cancel');
    await fitsNarrowScreen();
    await page.getByRole('link', { name: 'Try again' }).click();
    await page.waitForURL(`${base}/slack/install`);
    expect(await page.title()).toBe('Add docs-agent to Slack');
  });

  it('a forged state, a link opened in another browser, or one older than 10 minutes: "expired", try again', async () => {
    await toSlack();
    const allow = new URL((await page.locator('#allow').getAttribute('href')) ?? '');
    const forged = new URL(allow);
    forged.searchParams.set('state', `${allow.searchParams.get('state')?.slice(0, -4)}AAAA`);
    const answers: number[] = [];
    for (const target of [forged, allow]) {
      // The forged state in this browser; the real one in a fresh browser (no state cookie).
      const where = target === forged ? page : await context.browser()!.newPage({ javaScriptEnabled: false });
      answers.push((await where.goto(target.toString()))?.status() ?? 0);
      expect(await where.locator('h1').textContent()).toBe('This install link has expired');
      expect(await where.getByRole('link', { name: 'Try again' }).getAttribute('href')).toBe(
        '/slack/install',
      );
      if (where !== page) await where.close();
    }
    await toSlack();
    clock += 11 * 60_000;
    answers.push(await follow('#allow'));
    expect(await page.locator('h1').textContent()).toBe('This install link has expired');
    expect(answers).toEqual([400, 400, 400]);
    expect(slack.callsOf('oauth.v2.access')).toHaveLength(directory.installs.size);
  });

  it('a code Slack refuses: a failure page that says Slack did not accept it', async () => {
    await toSlack();
    const allow = new URL((await page.locator('#allow').getAttribute('href')) ?? '');
    allow.searchParams.set('code', 'not-a-code-slack-issued');
    const response = await page.goto(allow.toString());
    expect(response?.status()).toBe(502);
    expect(await page.locator('h1').textContent()).toBe('Slack did not accept this installation');
    expect(await page.locator('main code').textContent()).toBe('invalid_code');
    expect(await page.getByRole('link', { name: 'Try again' }).count()).toBe(1);
    await fitsNarrowScreen();
  });

  it('logged no secret: not the client secret, a bot token or a code', () => {
    const everything = logs.join('\n');
    expect(everything).toContain('installed through');
    const codes = slack.callsOf('oauth.v2.access').map((c) => String(c.args.code));
    const tokens = [...directory.installs.values()].map((i) => i.botToken);
    for (const secret of [slack.oauth.clientSecret, STATE_SECRET, ...tokens, ...codes])
      expect(everything).not.toContain(secret);
  });
});
