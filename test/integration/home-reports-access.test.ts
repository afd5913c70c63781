import { afterEach, describe, expect, it } from 'vitest';
import { analyticsRequests, type Json, json, press, seed, USER, updated } from '../support/home-dashboard.js';
import { waitFor } from '../support/http.js';
import { testTenant } from '../support/map-tenant-directory.js';
import {
  appHomeOpenedEnvelope,
  blockActionsPayload,
  viewSubmissionPayload,
} from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/* Home's Views and Health under the access rules (asked again on every click and submit) and in OAuth mode. */
let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

describe('Home as a dashboard: access and OAuth mode', () => {
  it('Post to channel from a Home report is refused in the form for a channel the person may not use', async () => {
    app = await startTestApp({ env: { ALLOWED_CHANNEL_IDS: 'C0DOCS' } });
    seed(app);
    const { id } = await press(app, 'home_health');
    await updated(app, id);
    const submit = (channel: string) =>
      app!.interaction(
        viewSubmissionPayload({
          userId: USER,
          view: app!.slack.surfaces.modals.get(id)!.view,
          values: {
            home_post_channel: { channel: { type: 'conversations_select', selected_conversation: channel } },
          },
        }),
      );
    const refused = JSON.parse((await submit('C0ELSEWHERE')).body) as { errors: Record<string, string> };
    expect(refused.errors.home_post_channel).toContain('docs-agent is not enabled in this conversation');
    expect((await submit('C0DOCS')).body).toBe('');
    const posted = await waitFor(
      () => app!.slack.callsOf('chat.postMessage').find((c) => c.args.channel === 'C0DOCS'),
      { what: 'the health report posted' },
    );
    expect(json(posted.args)).toContain('Docs health');
    expect(app.slack.callsOf('chat.postMessage').some((c) => c.args.channel === 'C0ELSEWHERE')).toBe(false);
  }, 30_000);

  it('refuses [Views] in the modal to someone ALLOWED_USER_IDS leaves out, with no analytics call', async () => {
    app = await startTestApp({ env: { ALLOWED_USER_IDS: 'U0BOB' } });
    seed(app);
    const { view } = await press(app, 'home_views');
    expect(json(view)).toContain("You're not on this bot's list of allowed users");
    expect(app.slack.callsOf('views.update')).toHaveLength(0);
    expect(analyticsRequests(app)).toHaveLength(0);
  }, 30_000);

  it("a manager's Home has [New job] [Views] [Health] [Settings]; before a project is connected [Views] says how", async () => {
    const tenant = testTenant();
    app = await startTestApp({ agentOptions: { tenant: tenant.scope } });
    app.slack.members.roles.set('U0ADMIN', { is_admin: true });
    const before = app.slack.callsOf('views.publish').length;
    await app.event(appHomeOpenedEnvelope({ userId: 'U0ADMIN' }));
    await waitFor(() => app!.slack.callsOf('views.publish').length > before || undefined, { what: 'Home' });
    const home = app.slack.surfaces.homeOf('U0ADMIN') as {
      blocks: Array<{ type: string; elements?: Json[] }>;
    };
    const top = home.blocks.find((b) => b.type === 'actions')!;
    expect(top.elements!.map((e) => e.action_id)).toEqual([
      'home_new_job',
      'home_views',
      'home_health',
      'home_settings',
    ]);
    // Nothing to read before a project is connected: no "This week" section, no analytics call.
    expect(json(home)).not.toContain('This week in your docs');
    const opened = app.slack.callsOf('views.open').length;
    await app.interaction(
      blockActionsPayload({
        userId: 'U0ADMIN',
        triggerId: app.slack.surfaces.mintTriggerId('U0ADMIN'),
        action: { action_id: 'home_views' },
        container: { type: 'view', view: home as unknown as Json },
      }),
    );
    await waitFor(() => app!.slack.callsOf('views.open').length > opened || undefined, { what: 'modal' });
    const modal = json([...app.slack.surfaces.modals.values()].at(-1)!.view);
    expect(modal).toContain('/docs-agent connect');
    expect(analyticsRequests(app)).toHaveLength(0);
  }, 30_000);
});
