import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';

/** PRIVACY_URL and SUPPORT_URL at the foot of every install page (a Marketplace review asks for them). */
describe('install pages: privacy and support links', () => {
  let app: OAuthTestApp;
  beforeAll(async () => {
    app = await startOAuthApp({
      env: { PRIVACY_URL: 'https://example.com/privacy?a=1&b=2', SUPPORT_URL: 'https://example.com/help' },
    });
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('are on the install page and the success page, escaped', async () => {
    const install = await (await fetch(`${app.url}/slack/install`)).text();
    const success = (await app.install({ teamId: 'T0LINKS', teamName: 'Links' })).html;
    for (const page of [install, success]) {
      expect(page).toContain('<a href="https://example.com/privacy?a=1&amp;b=2">Privacy policy</a>');
      expect(page).toContain('<a href="https://example.com/help">Support</a>');
    }
  });
});
