import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOME_CONNECT_ACTION } from '../../src/slack/messages/project-settings.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';

/** Right after "Add to Slack": the installer gets the welcome DM through the outbox, and the page says so. */
describe('the welcome message after an install', () => {
  let app: OAuthTestApp;
  beforeAll(async () => {
    app = await startOAuthApp();
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('reaches the installer’s DM with Connect a docs project, posted once, with its outbox key', async () => {
    app.slack.oauth.installerUserId = 'U0WELCOMER';
    const page = await app.install({ teamId: 'T0WELCOME', teamName: 'Welcome & Co' });
    expect(page.status).toBe(200);
    expect(page.html).toContain('sent you a direct message');
    const opened = await app.slack.waitForCall('conversations.open', (c) => c.args.users === 'U0WELCOMER');
    expect(app.slack.oauth.tenantOf(opened.authorization)).toBe('T0WELCOME');
    const welcome = await waitFor(() =>
      app.slack.messages.find((m) => m.channel === 'D0WELCOMER' && m.text.includes('connect a docs project')),
    );
    expect(JSON.stringify(welcome.blocks)).toContain(HOME_CONNECT_ACTION);
    expect(JSON.stringify(welcome.blocks)).toContain('Welcome &amp; Co');
    // Sent through the delivery path: its key travels in the message's metadata, so a look-up finds it.
    expect(JSON.stringify(welcome.metadata)).toContain('welcome:T0WELCOME:');
    expect(app.slack.messages.filter((m) => m.channel === 'D0WELCOMER')).toHaveLength(1);
  });
});
