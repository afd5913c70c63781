import { afterEach, describe, expect, it } from 'vitest';
import { KEY_CHECK_MS } from '../../src/composition/settings-wiring.js';
import { CONNECT_MODAL_CALLBACK_ID } from '../../src/slack/messages/project-connect-modal.js';
import type { TenantSettings } from '../../src/tenants/tenant.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { INSTALLER_ID, TEST_TENANT, testTenant } from '../support/map-tenant-directory.js';
import { viewSubmissionPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

const PROJECT = 'proj_second';
const KEY = 'svc_second_project_key_0123456789wxyz';
const WRONG_KEY = 'svc_wrong_project_key_00000000000000';
const ADMIN = 'U0ADMIN';
const OWNER = 'U0OWNER';
const MEMBER = 'U0BOB';
const CHANNEL = 'C0DOCS';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

type Json = Record<string, unknown>;

async function tenantApp(settings?: TenantSettings) {
  const tenant = testTenant(settings);
  const t = await startTestApp({ agentOptions: { tenant: tenant.scope } });
  app = t;
  t.docs.projects.add(PROJECT);
  t.docs.projectKeys.set(PROJECT, KEY);
  t.slack.members.roles.set(ADMIN, { is_admin: true });
  t.slack.members.roles.set(OWNER, { is_owner: true });
  t.slack.members.roles.set(MEMBER, {});
  return { t, ...tenant };
}

/** The connect form as the bot opened it for `userId` (views.open), after `/docs-agent connect`. */
async function openConnectForm(t: TestApp, userId: string, channel = CHANNEL): Promise<Json> {
  const triggerId = t.slack.surfaces.mintTriggerId(userId);
  const answer = await t.command({
    text: 'connect',
    user_id: userId,
    channel_id: channel,
    trigger_id: triggerId,
  });
  expect(answer.status).toBe(200);
  const call = await t.slack.waitForCall('views.open', (c) => c.args.trigger_id === triggerId);
  return (typeof call.args.view === 'string' ? JSON.parse(call.args.view) : call.args.view) as Json;
}

function submit(
  t: TestApp,
  view: Json,
  fields: { userId: string; projectId: string; apiKey: string; scope?: 'channel' | 'workspace' },
) {
  const scope = fields.scope ?? 'workspace';
  return t.interaction(
    viewSubmissionPayload({
      userId: fields.userId,
      view,
      values: {
        project_id: { project_id_input: { type: 'plain_text_input', value: fields.projectId } },
        admin_key: { admin_key_input: { type: 'plain_text_input', value: fields.apiKey } },
        scope: {
          scope_choice: {
            type: 'radio_buttons',
            selected_option: { text: { type: 'plain_text', text: scope }, value: scope },
          },
        },
      },
    }),
  );
}

const responseTexts = (t: TestApp) => t.slack.responses.map((r) => String(r.body.text ?? ''));
const ephemeralTexts = (t: TestApp) =>
  t.slack.callsOf('chat.postEphemeral').map((c) => String(c.args.text ?? ''));

describe('connecting docs projects from Slack (OAuth mode, one tenant)', () => {
  it('gates every command with one line until a project is connected: no docs call, no job, no post', async () => {
    const { t } = await tenantApp();
    for (const [command, text] of [
      ['/docs-agent', 'Document the 429 response'],
      ['/docs-agent', 'list'],
      ['/docs-agent', 'disconnect'],
      ['/docs-views', 'last 7 days'],
      ['/docs-health', 'this week'],
    ] as const) {
      const answer = await t.command({ command, text, user_id: ADMIN });
      const body = JSON.parse(answer.body) as Json;
      expect(body.response_type).toBe('ephemeral');
      expect(String(body.text)).toContain('An admin must run `/docs-agent connect`');
      expect(String(body.text)).toContain(`<@${INSTALLER_ID}>`);
      expect(String(body.text).split('\n')).toHaveLength(1);
    }
    const help = JSON.parse((await t.command({ text: 'help' })).body) as Json;
    expect(String(help.text)).toContain('/docs-agent help');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(t.docs.requests).toHaveLength(0);
    expect(t.docs.jobs.size).toBe(0);
    // The one post is the installer's welcome (a fresh install), none from the gated commands.
    const posts = t.slack.callsOf('chat.postMessage').map((c) => JSON.stringify(c.args.metadata));
    expect(posts.filter((metadata) => !metadata.includes('welcome:'))).toHaveLength(0);
    expect(t.slack.responses).toHaveLength(0);
  }, 20_000);

  it('lets an admin connect: the form, the key checked with one read, saved, the answer naming project and masked key', async () => {
    const { t, directory, changes } = await tenantApp();
    const view = await openConnectForm(t, ADMIN);
    expect(view.callback_id).toBe(CONNECT_MODAL_CALLBACK_ID);
    expect(JSON.parse(String(view.private_metadata))).toEqual({ channelId: CHANNEL });
    const answer = await submit(t, view, {
      userId: ADMIN,
      projectId: PROJECT,
      apiKey: KEY,
      scope: 'channel',
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toBe('');
    expect(t.docs.requestsTo('GET', /\/v1\/analytics\/proj_second\/views/)).toHaveLength(1);
    expect(t.docs.requests).toHaveLength(1);
    const saved = directory.stored.get(TEST_TENANT)!;
    expect(saved.projects).toEqual([
      {
        projectId: PROJECT,
        apiKey: KEY,
        channelId: CHANNEL,
        connectedBy: ADMIN,
        connectedAt: expect.any(Number),
      },
    ]);
    expect(changes).toHaveLength(1);
    const told = await waitFor(() =>
      ephemeralTexts(t).find((text) => text.includes('Connected docs project')),
    );
    expect(told).toContain('`proj_second`');
    expect(told).toContain('`svc_…wxyz`');
    expect(told).toContain(`<#${CHANNEL}>`);
    // The gate is open at once on this replica; `project` says what the channel uses and who connected it.
    const project = JSON.parse((await t.command({ text: 'project', user_id: MEMBER })).body) as Json;
    expect(String(project.text)).toContain('`proj_second`, connected for this channel');
    expect(String(project.text)).toContain(`<@${ADMIN}>`);
    expect(String(project.text)).toContain('svc_…wxyz');
    // Another channel has no project of its own and the workspace none: `project` says how to connect one.
    const elsewhere = JSON.parse((await t.command({ text: 'project', channel_id: 'C0OTHER' })).body) as Json;
    expect(String(elsewhere.text)).toContain('`/docs-agent connect`');
  }, 20_000);

  it('refuses a wrong key or project in the form with the platform answer, and saves nothing', async () => {
    const { t, directory } = await tenantApp();
    const view = await openConnectForm(t, OWNER);
    const wrongKey = JSON.parse(
      (await submit(t, view, { userId: OWNER, projectId: PROJECT, apiKey: WRONG_KEY })).body,
    ) as Json;
    expect(wrongKey.response_action).toBe('errors');
    expect((wrongKey.errors as Json).admin_key).toContain('Invalid API key for this project');
    const wrongProject = JSON.parse(
      (await submit(t, view, { userId: OWNER, projectId: 'proj_nowhere', apiKey: FAKE_API_KEY })).body,
    ) as Json;
    expect((wrongProject.errors as Json).project_id).toContain('Project not found');
    const malformed = JSON.parse(
      (await submit(t, view, { userId: OWNER, projectId: PROJECT, apiKey: 'abc' })).body,
    ) as Json;
    expect((malformed.errors as Json).admin_key).toContain('starts with svc_');
    // The platform's words are outside text: one line, no invisible or bidi characters, no link Slack could make.
    t.docs.inject(
      { path: '/v1/analytics/' },
      {
        kind: 'status',
        status: 403,
        body: JSON.stringify({ error: 'Key blocked\u202e, see https://evil.example/reset\u200b now' }),
      },
    );
    const hostile = JSON.parse(
      (await submit(t, view, { userId: OWNER, projectId: PROJECT, apiKey: KEY })).body,
    ) as {
      errors: Record<string, string>;
    };
    expect(hostile.errors.admin_key).toContain('Key blocked, see hxxps[:]//evil[.]example/reset now');
    expect(hostile.errors.admin_key).not.toMatch(/[\u202e\u200b]|https:/);
    expect(t.docs.requests).toHaveLength(3);
    expect(directory.saves).toHaveLength(0);
  }, 20_000);

  it('answers within Slack’s 3 s when the platform is slow, and saves nothing', async () => {
    const { t, directory } = await tenantApp();
    const view = await openConnectForm(t, ADMIN);
    t.docs.inject({ path: '/v1/analytics/' }, { kind: 'delay', ms: 6_000 });
    const answer = await submit(t, view, { userId: ADMIN, projectId: PROJECT, apiKey: KEY });
    // Answered before the platform answered the check: the bot's own time-out, set inside Slack's 3 s.
    expect(t.docs.answered.filter((r) => r.path.startsWith('/v1/analytics/'))).toEqual([]);
    expect(KEY_CHECK_MS).toBeLessThan(3_000);
    expect((JSON.parse(answer.body) as { errors: Json }).errors.admin_key).toContain(
      'did not answer in time',
    );
    expect(directory.saves).toHaveLength(0);
  }, 20_000);

  it('refuses a member who may not manage, on the command and on a forged submission', async () => {
    const { t, directory } = await tenantApp();
    const triggerId = t.slack.surfaces.mintTriggerId(MEMBER);
    await t.command({ text: 'connect', user_id: MEMBER, trigger_id: triggerId });
    const refused = await waitFor(() => responseTexts(t).find((text) => text.includes("can't change")));
    expect(refused).toContain(`<@${INSTALLER_ID}>`);
    expect(refused).toContain('workspace admins and owners');
    expect(t.slack.callsOf('views.open')).toHaveLength(0);
    const forged = {
      callback_id: CONNECT_MODAL_CALLBACK_ID,
      private_metadata: JSON.stringify({ channelId: CHANNEL }),
    };
    const answer = JSON.parse(
      (await submit(t, forged, { userId: MEMBER, projectId: PROJECT, apiKey: KEY })).body,
    ) as Json;
    expect((answer.errors as Json).project_id).toContain("can't change");
    expect(t.docs.requests).toHaveLength(0);
    expect(directory.saves).toHaveLength(0);
    // The installer may, though Slack says they are no admin.
    const view = await openConnectForm(t, INSTALLER_ID);
    expect((await submit(t, view, { userId: INSTALLER_ID, projectId: PROJECT, apiKey: KEY })).body).toBe('');
    expect(directory.stored.get(TEST_TENANT)?.projects.map((p) => p.connectedBy)).toEqual([INSTALLER_ID]);
  }, 20_000);

  it('loses a version race without overwriting: re-reads and asks to try again', async () => {
    const { t, directory } = await tenantApp();
    const view = await openConnectForm(t, ADMIN);
    const theirs = {
      projectId: FAKE_PROJECT_ID,
      apiKey: 'svc_theirs_0123456789',
      channelId: undefined,
      connectedBy: OWNER,
      connectedAt: 1,
    };
    directory.beforeSave = async () => {
      directory.stored.set(TEST_TENANT, { version: 1, projects: [theirs] });
    };
    const answer = JSON.parse(
      (await submit(t, view, { userId: ADMIN, projectId: PROJECT, apiKey: KEY })).body,
    ) as Json;
    expect((answer.errors as Json).project_id).toContain('try again');
    expect(directory.stored.get(TEST_TENANT)?.projects).toEqual([theirs]);
  }, 20_000);
});
