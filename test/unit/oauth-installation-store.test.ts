import { type Installation, InstallProvider } from '@slack/oauth';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  TenantInstallationStore,
  toSlackInstallation,
  toTenantInstallation,
} from '../../src/slack/oauth/installation-store.js';
import type { TenantDirectory } from '../../src/tenants/ports.js';
import type { TenantInstallation } from '../../src/tenants/tenant.js';
import { FakeSlack } from '../support/fake-slack.js';

/** The part of TenantDirectory the store uses, on a Map (with the removals it was asked for). */
function mapDirectory() {
  const installs = new Map<string, TenantInstallation>();
  const removed: Array<{ tenant: string; purgeAt: number }> = [];
  const directory = {
    saveInstallation: async (i: TenantInstallation) => void installs.set(i.tenant, structuredClone(i)),
    installation: async (tenant: string) => installs.get(tenant),
    removeTenant: async (tenant: string, purgeAt: number) => {
      installs.delete(tenant);
      removed.push({ tenant, purgeAt });
    },
  } as unknown as TenantDirectory;
  return { installs, removed, directory };
}

const workspaceInstall: Installation = {
  team: { id: 'T0ACME', name: 'Acme\u202e' },
  enterprise: { id: 'E0GRID', name: 'Grid' },
  user: { token: undefined, scopes: undefined, id: 'U0ADMIN' },
  bot: { token: 'xoxb-acme', scopes: ['commands', 'chat:write'], id: 'B0BOT', userId: 'U0BOT' },
  appId: 'A0APP',
  tokenType: 'bot',
  isEnterpriseInstall: false,
  authVersion: 'v2',
};

const orgInstall: Installation = {
  team: undefined,
  enterprise: { id: 'E0GRID', name: 'Grid' },
  user: { token: undefined, scopes: undefined, id: 'W0ADMIN' },
  bot: {
    token: 'xoxb-grid',
    refreshToken: 'xoxe-1-r',
    expiresAt: 1_900_000_000,
    scopes: ['commands'],
    id: 'B0ORG',
    userId: 'W0BOT',
  },
  appId: 'A0APP',
  isEnterpriseInstall: true,
  authVersion: 'v2',
};

describe("Slack's Installation as a TenantInstallation", () => {
  it('a workspace install (inside an org) is keyed by its workspace and names it, cleaned', () => {
    expect(toTenantInstallation(workspaceInstall, 42)).toEqual({
      tenant: 'T0ACME',
      teamId: 'T0ACME',
      enterpriseId: 'E0GRID',
      isEnterpriseInstall: false,
      name: 'Acme',
      botToken: 'xoxb-acme',
      botUserId: 'U0BOT',
      botId: 'B0BOT',
      refreshToken: undefined,
      expiresAt: undefined,
      installerUserId: 'U0ADMIN',
      scopes: ['commands', 'chat:write'],
      appId: 'A0APP',
      installedAt: 42,
    });
  });

  it('an org-wide install is keyed by the org; token rotation kept (seconds ↔ ms); and back again', () => {
    const tenant = toTenantInstallation(orgInstall, 1);
    expect(tenant).toMatchObject({
      tenant: 'E0GRID',
      teamId: undefined,
      name: 'Grid',
      isEnterpriseInstall: true,
    });
    expect(tenant).toMatchObject({ refreshToken: 'xoxe-1-r', expiresAt: 1_900_000_000_000 });
    expect(toSlackInstallation(tenant)).toMatchObject({
      team: undefined,
      enterprise: { id: 'E0GRID', name: 'Grid' },
      bot: {
        token: 'xoxb-grid',
        refreshToken: 'xoxe-1-r',
        expiresAt: 1_900_000_000,
        userId: 'W0BOT',
        id: 'B0ORG',
      },
      isEnterpriseInstall: true,
      authVersion: 'v2',
    });
  });

  it('refuses an installation without a bot token or a workspace (and names no token)', () => {
    expect(() => toTenantInstallation({ ...workspaceInstall, bot: undefined }, 1)).toThrow(
      /T0ACME carries no bot/,
    );
    expect(() => toTenantInstallation({ ...workspaceInstall, team: undefined } as Installation, 1)).toThrow(
      /no workspace or org/,
    );
  });
});

describe('the InstallationStore over a TenantDirectory', () => {
  it('stores, keeps the first installedAt on a re-install, fetches org-wide installs first, deletes by tenant', async () => {
    const { installs, removed, directory } = mapDirectory();
    let now = 1000;
    const store = new TenantInstallationStore({ directory, now: () => now });
    await store.storeInstallation(workspaceInstall);
    await store.storeInstallation(orgInstall);
    now = 2000;
    await store.storeInstallation({
      ...workspaceInstall,
      bot: { ...workspaceInstall.bot!, token: 'xoxb-new' },
    });
    expect(installs.get('T0ACME')).toMatchObject({ botToken: 'xoxb-new', installedAt: 1000 });
    // The latest install is kept beside the first (a late uninstall signal is compared with it).
    expect(installs.get('T0ACME')?.lastInstalledAt).toBe(2000);
    expect(installs.get('E0GRID')).toMatchObject({ installedAt: 1000, lastInstalledAt: 1000 });

    const fromWorkspace = { teamId: 'T0ACME', enterpriseId: 'E0GRID', isEnterpriseInstall: false };
    expect((await store.fetchInstallation(fromWorkspace)).bot?.token).toBe('xoxb-new');
    const orgWide = { teamId: 'T0OTHER', enterpriseId: 'E0GRID', isEnterpriseInstall: true };
    expect((await store.fetchInstallation(orgWide)).bot?.token).toBe('xoxb-grid');
    // Another workspace of the org without its own install: served by the org-wide one.
    const other = { teamId: 'T0OTHER', enterpriseId: 'E0GRID', isEnterpriseInstall: false };
    expect((await store.fetchInstallation(other)).bot?.token).toBe('xoxb-grid');
    await expect(
      store.fetchInstallation({ teamId: 'T0NONE', enterpriseId: undefined, isEnterpriseInstall: false }),
    ).rejects.toThrow(/no installation for team T0NONE/);

    await store.deleteInstallation(fromWorkspace);
    expect(removed).toEqual([{ tenant: 'T0ACME', purgeAt: 2000 }]);
    expect(installs.has('E0GRID')).toBe(true);
  });
});

describe("Bolt's installer refreshes an expiring token through the store and the fake Slack", () => {
  let slack: FakeSlack;
  beforeEach(async () => {
    slack = await FakeSlack.start();
  });
  afterEach(async () => slack.close());

  it('authorize() swaps a token about to expire for a new one, saved; the old one stops working', async () => {
    const { installs, directory } = mapDirectory();
    const store = new TenantInstallationStore({ directory, now: Date.now });
    slack.oauth.tokenExpiresIn = 3600;
    slack.oauth.nextInstall({ teamId: 'T0ROT', teamName: 'Rotating' });
    slack.oauth.redirectUrls = ['https://docs-agent.example/slack/oauth_redirect'];
    const page = await fetch(
      `${slack.url}/oauth/v2/authorize?client_id=${slack.oauth.clientId}&scope=commands`,
    );
    const code = /code=([^&"]+)/.exec(await page.text())?.[1] ?? '';
    const installer = new InstallProvider({
      clientId: slack.oauth.clientId,
      clientSecret: slack.oauth.clientSecret,
      stateVerification: false,
      installationStore: store,
      clientOptions: { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 } },
    });
    const granted = await installer.handleCallback(
      { url: `/slack/oauth_redirect?code=${code}`, headers: {} } as never,
      { setHeader() {}, writeHead() {}, end() {} } as never,
      { success: () => undefined, failure: (error) => expect.unreachable(String(error)) },
    );
    expect(granted).toBeUndefined();
    const first = installs.get('T0ROT');
    expect(first).toMatchObject({
      botToken: slack.oauth.liveToken('T0ROT'),
      refreshToken: expect.any(String),
    });
    // Within Slack's two-hour window: authorize() refreshes (oauth.v2.access grant_type=refresh_token).
    const auth = await installer.authorize({
      teamId: 'T0ROT',
      enterpriseId: undefined,
      isEnterpriseInstall: false,
    });
    expect(auth.botToken).toBe(slack.oauth.liveToken('T0ROT'));
    expect(auth.botToken).not.toBe(first?.botToken);
    expect(installs.get('T0ROT')?.botToken).toBe(auth.botToken);
    expect(slack.oauth.refreshes.map((r) => r.tenant)).toEqual(['T0ROT']);
    const old = await fetch(`${slack.apiUrl}auth.test`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first?.botToken}` },
    });
    expect(await old.json()).toEqual({ ok: false, error: 'invalid_auth' });
  });
});
