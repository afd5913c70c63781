import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { blockActionsPayload } from '../support/slack-interactions.js';
import { ALPHA, asTenant, registerTenants } from '../support/tenant-bots.js';
import { installAndConnect } from '../support/tenant-connect.js';

/**
 * Advice that fits the mode: in OAuth mode the docs key came from `/docs-agent connect`, so a refused key
 * sends people to a manager's Reconnect, never to an environment variable.
 */
describe('OAuth mode: a refused docs key', () => {
  let app: OAuthTestApp;
  beforeAll(async () => {
    app = await startOAuthApp();
    registerTenants(app.slack, app.docs);
    expect((await installAndConnect(app, app.slack, ALPHA)).status).toBe(200);
  });
  afterAll(async () => {
    await app?.stop();
  });

  it('tells the channel to ask a manager to reconnect, and names no environment variable', async () => {
    // The key was revoked on the platform after it was connected.
    app.docs.projectKeys.set(ALPHA.project, 'svc_alpha_rotated_key_0000000000000000');
    await app.command({
      text: 'document the ALPHA rate limits',
      user_id: ALPHA.user,
      team_id: ALPHA.teamId,
      channel_id: ALPHA.channel(2),
    });
    const said = () =>
      [...app.slack.callsOf('chat.update'), ...app.slack.callsOf('chat.postMessage')]
        .map((c) => JSON.stringify(c.args))
        .concat(app.slack.responses.map((r) => JSON.stringify(r.body)))
        .join('\n');
    await waitFor(() => said().includes('refused the admin key'), { timeoutMs: 10_000, what: 'the refusal' });
    expect(said()).toContain('/docs-agent connect');
    expect(said()).not.toContain('DOCS_API_KEY');
    // The card carries a Reconnect button: the connect form for a manager, a refusal for anyone else.
    expect(said()).toContain('Reconnect (managers)');
    const click = (user: string) =>
      app.interaction(
        asTenant(
          blockActionsPayload({
            userId: user,
            triggerId: app.slack.surfaces.mintTriggerId(user),
            action: { action_id: 'home_connect_project', text: 'Reconnect (managers)' },
            container: {
              type: 'message',
              channelId: ALPHA.channel(2),
              messageTs: '1.000001',
              responseUrl: app.slack.responseUrl('reconnect'),
            },
          }),
          ALPHA,
        ),
      );
    const opened = app.slack.callsOf('views.open').length;
    app.slack.members.roles.set('U0ALPHAMEMBER', {});
    app.slack.userTeams.set('U0ALPHAMEMBER', ALPHA.teamId);
    await click('U0ALPHAMEMBER');
    await app.slack.waitForCall('chat.postMessage', (c) => c.args.channel === 'U0ALPHAMEMBER');
    expect(app.slack.callsOf('views.open').length).toBe(opened);
    await click(ALPHA.user);
    await waitFor(() => app.slack.callsOf('views.open').length > opened, { what: 'the connect form' });
  });
});
