import { afterEach, describe, expect, it } from 'vitest';
import { HOME_CONNECT_ACTION, HOME_DISCONNECT_ACTION } from '../../src/slack/messages/project-settings.js';
import type { ProjectConnection } from '../../src/tenants/tenant.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { TEST_TENANT, testTenant } from '../support/map-tenant-directory.js';
import { eventEnvelope } from '../support/slack-events.js';
import { blockActionsPayload, viewSubmissionPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const KEY = 'svc_channel_project_key_0123456789abcd';
const ADMIN = 'U0ADMIN';
const MEMBER = 'U0BOB';
const CHANNEL = 'C0DOCS';
type Json = Record<string, unknown>;

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

const workspace: ProjectConnection = {
  projectId: FAKE_PROJECT_ID,
  apiKey: FAKE_API_KEY,
  channelId: undefined,
  connectedBy: 'U0INSTALLER',
  connectedAt: Date.UTC(2026, 10, 1),
};
const channel: ProjectConnection = {
  projectId: 'proj_channel',
  apiKey: KEY,
  channelId: CHANNEL,
  connectedBy: ADMIN,
  connectedAt: Date.UTC(2026, 10, 2),
};

async function connectedApp() {
  const tenant = testTenant({ version: 3, projects: [workspace, channel] });
  const t = await startTestApp({ agentOptions: { tenant: tenant.scope } });
  app = t;
  t.slack.members.roles.set(ADMIN, { is_admin: true });
  t.slack.members.roles.set(MEMBER, {});
  return { t, ...tenant };
}

const responseTexts = (t: TestApp) => t.slack.responses.map((r) => String(r.body.text ?? ''));
const dms = (t: TestApp, userId: string) =>
  t.slack
    .callsOf('chat.postMessage')
    .filter((c) => c.args.channel === userId)
    .map((c) => String(c.args.text ?? ''));

/** What the bot sent Slack and logged: no admin key may be in any of it once saved. */
function expectNoKeys(t: TestApp) {
  const sent = t.slack.everythingSent();
  for (const key of [KEY, FAKE_API_KEY, KEY.slice(4), FAKE_API_KEY.slice(4)]) {
    expect(sent.includes(key), 'a key reached Slack').toBe(false);
    expect(
      t.logs.some((line) => line.includes(key)),
      'a key was logged',
    ).toBe(false);
  }
}

async function openHome(t: TestApp, userId: string): Promise<string> {
  const before = t.slack.callsOf('views.publish').length;
  await t.event(
    eventEnvelope({ type: 'app_home_opened', user: userId, channel: 'D0HOME', tab: 'home', event_ts: '1.1' }),
  );
  await waitFor(() => t.slack.callsOf('views.publish').length > before, { what: 'Home published' });
  return JSON.stringify(t.slack.surfaces.homeOf(userId));
}

describe('project settings: disconnect, project, Home, single-workspace mode', () => {
  it('disconnects this channel’s mapping first, then the workspace’s, saying what was removed', async () => {
    const { t, directory, changes } = await connectedApp();
    const project = JSON.parse((await t.command({ text: 'project', user_id: MEMBER })).body) as Json;
    expect(String(project.text)).toContain('`proj_channel`, connected for this channel');
    expect(String(project.text)).toContain('svc_…abcd');
    await t.command({ text: 'disconnect', user_id: MEMBER });
    await waitFor(() => responseTexts(t).find((text) => text.includes("can't change")));
    expect(directory.saves).toHaveLength(0);
    await t.command({ text: 'disconnect', user_id: ADMIN });
    const first = await waitFor(() => responseTexts(t).find((text) => text.startsWith('Disconnected')));
    expect(first).toContain('`proj_channel`');
    expect(first).toContain('svc_…abcd');
    expect(first).toContain(`now uses the workspace's project \`${FAKE_PROJECT_ID}\``);
    expect(directory.stored.get(TEST_TENANT)?.projects).toEqual([workspace]);
    const after = JSON.parse((await t.command({ text: 'project' })).body) as Json;
    expect(String(after.text)).toContain("the workspace's project");
    await t.command({ text: 'disconnect', user_id: ADMIN });
    await waitFor(() => responseTexts(t).find((text) => text.includes('from the whole workspace')));
    expect(directory.stored.get(TEST_TENANT)?.projects).toEqual([]);
    expect(changes).toHaveLength(2);
    // Nothing connected any more: the gate is back.
    const gated = JSON.parse((await t.command({ text: 'Document the API' })).body) as Json;
    expect(String(gated.text)).toContain('An admin must run `/docs-agent connect`');
    expectNoKeys(t);
  }, 20_000);

  it('shows admins the Settings section on Home, with masked keys, Connect, and Disconnect asking first', async () => {
    const { t, directory } = await connectedApp();
    const home = await openHome(t, ADMIN);
    expect(home).toContain('Settings: docs projects');
    expect(home).toContain('svc_…abcd');
    expect(home).toContain(`svc_…${FAKE_API_KEY.slice(-4)}`);
    expect(home).toContain(HOME_CONNECT_ACTION);
    expect(home).toContain('"confirm"');
    // A member sees no settings once a project is connected.
    expect(await openHome(t, MEMBER)).not.toContain('Settings');
    // Connect clicked by a member (a stale or forged Home): refused in their DM, no form.
    await t.interaction(
      blockActionsPayload({
        userId: MEMBER,
        triggerId: t.slack.surfaces.mintTriggerId(MEMBER),
        action: { action_id: HOME_CONNECT_ACTION },
        container: { type: 'view', view: { type: 'home' } },
      }),
    );
    await waitFor(() => dms(t, MEMBER).find((text) => text.includes("can't change")));
    expect(t.slack.callsOf('views.open')).toHaveLength(0);
    // Connect from Home: the same form, for the whole workspace.
    const triggerId = t.slack.surfaces.mintTriggerId(ADMIN);
    await t.interaction(
      blockActionsPayload({
        userId: ADMIN,
        triggerId,
        action: { action_id: HOME_CONNECT_ACTION },
        container: { type: 'view', view: { type: 'home' } },
      }),
    );
    const opened = await t.slack.waitForCall('views.open', (c) => c.args.trigger_id === triggerId);
    const view = (
      typeof opened.args.view === 'string' ? JSON.parse(opened.args.view) : opened.args.view
    ) as Json;
    expect(JSON.parse(String(view.private_metadata))).toEqual({ fromHome: true });
    expect(JSON.stringify(view.blocks)).not.toContain('radio_buttons');
    // Submitted: the workspace's project is replaced and Home shows the new one.
    t.docs.projects.add('proj_home');
    t.docs.projectKeys.set('proj_home', 'svc_home_form_key_0123456789hhhh');
    const submitted = await t.interaction(
      viewSubmissionPayload({
        userId: ADMIN,
        view,
        values: {
          project_id: { project_id_input: { type: 'plain_text_input', value: 'proj_home' } },
          admin_key: {
            admin_key_input: { type: 'plain_text_input', value: 'svc_home_form_key_0123456789hhhh' },
          },
        },
      }),
    );
    expect(submitted.body).toBe('');
    await waitFor(() => JSON.stringify(t.slack.surfaces.homeOf(ADMIN)).includes('proj_home'), {
      what: 'Home published with the new project',
    });
    expect(JSON.stringify(t.slack.surfaces.homeOf(ADMIN))).toContain('svc_…hhhh');
    expect(dms(t, ADMIN).find((text) => text.includes('replaces project'))).toContain(
      `\`${FAKE_PROJECT_ID}\``,
    );
    expect(directory.stored.get(TEST_TENANT)?.projects.map((p) => p.projectId)).toEqual([
      'proj_channel',
      'proj_home',
    ]);
    // A forged Disconnect click by a member: refused, nothing saved.
    const click = (userId: string, value: string) =>
      t.interaction(
        blockActionsPayload({
          userId,
          triggerId: t.slack.surfaces.mintTriggerId(userId),
          action: { action_id: HOME_DISCONNECT_ACTION, value },
          container: { type: 'view', view: { type: 'home' } },
        }),
      );
    await click(MEMBER, CHANNEL);
    await waitFor(() => dms(t, MEMBER).find((text) => text.includes("can't change")));
    expect(directory.saves).toHaveLength(1);
    await click(ADMIN, CHANNEL);
    const told = await waitFor(() => dms(t, ADMIN).find((text) => text.startsWith('Disconnected')));
    expect(told).toContain('`proj_channel`');
    expect(directory.stored.get(TEST_TENANT)?.projects.map((p) => p.projectId)).toEqual(['proj_home']);
    await waitFor(() => !JSON.stringify(t.slack.surfaces.homeOf(ADMIN)).includes('proj_channel'), {
      what: 'Home published again without the connection',
    });
    expectNoKeys(t);
  }, 20_000);

  it('shows the connect prompt on Home before a project is connected', async () => {
    const tenant = testTenant();
    const t = await startTestApp({ agentOptions: { tenant: tenant.scope } });
    app = t;
    t.slack.members.roles.set(ADMIN, { is_owner: true });
    t.slack.members.roles.set(MEMBER, {});
    const admin = await openHome(t, ADMIN);
    expect(admin).toContain('No docs project is connected yet');
    expect(admin).toContain(HOME_CONNECT_ACTION);
    const member = await openHome(t, MEMBER);
    expect(member).toContain('An admin must run');
    expect(member).not.toContain(HOME_CONNECT_ACTION);
  }, 20_000);

  it('keeps no key anywhere after an admin connects through the form', async () => {
    const { t } = await connectedApp();
    t.docs.projects.add('proj_new');
    t.docs.projectKeys.set('proj_new', 'svc_brand_new_key_0123456789qrst');
    const triggerId = t.slack.surfaces.mintTriggerId(ADMIN);
    await t.command({ text: 'connect', user_id: ADMIN, trigger_id: triggerId });
    const opened = await t.slack.waitForCall('views.open', (c) => c.args.trigger_id === triggerId);
    const view = (
      typeof opened.args.view === 'string' ? JSON.parse(opened.args.view) : opened.args.view
    ) as Json;
    const answer = await t.interaction(
      viewSubmissionPayload({
        userId: ADMIN,
        view,
        values: {
          project_id: { project_id_input: { type: 'plain_text_input', value: 'proj_new' } },
          admin_key: {
            admin_key_input: { type: 'plain_text_input', value: ' svc_brand_new_key_0123456789qrst\u200b' },
          },
        },
      }),
    );
    expect(answer.body).toBe('');
    await waitFor(() =>
      t.slack.callsOf('chat.postEphemeral').find((c) => String(c.args.text).includes('svc_…qrst')),
    );
    await openHome(t, ADMIN);
    await t.command({ text: 'project' });
    const sent = t.slack.everythingSent();
    expect(sent).not.toContain('brand_new_key');
    expect(t.logs.join('\n')).not.toContain('brand_new_key');
    expectNoKeys(t);
  }, 20_000);
});

describe('project settings in single-workspace mode', () => {
  it('says connect and disconnect are set by the environment, and where the project comes from', async () => {
    const t = await startTestApp();
    app = t;
    for (const text of ['connect', 'disconnect']) {
      const answer = JSON.parse((await t.command({ text })).body) as Json;
      expect(String(answer.text)).toContain('were set when it was deployed');
    }
    const project = JSON.parse((await t.command({ text: 'project' })).body) as Json;
    expect(String(project.text)).toContain(`\`${FAKE_PROJECT_ID}\`, the only one docs-agent uses`);
    expect(t.slack.callsOf('views.open')).toHaveLength(0);
    expect(t.docs.requests).toHaveLength(0);
  }, 20_000);
});
