import { afterEach, describe, expect, it } from 'vitest';
import { GITHUB_MODAL_CALLBACK_ID } from '../../src/slack/messages/github-connect-modal.js';
import { HOME_GITHUB_ACTION, HOME_SETTINGS_ACTION } from '../../src/slack/messages/project-settings.js';
import { MANAGERS_BLOCK } from '../../src/slack/messages/settings-form.js';
import type { ProjectConnection } from '../../src/tenants/tenant.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { INSTALLER_ID, TEST_TENANT, testTenant } from '../support/map-tenant-directory.js';
import {
  blockActionsPayload,
  type StateValue,
  viewSubmissionPayload,
} from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

type Json = Record<string, unknown>;
const ADMIN = 'U0ADMIN';
const MEMBER = 'U0BOB';
const ADDED = 'U0ALICE';

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

const workspace: ProjectConnection = {
  projectId: FAKE_PROJECT_ID,
  apiKey: FAKE_API_KEY,
  channelId: undefined,
  connectedBy: INSTALLER_ID,
  connectedAt: Date.UTC(2026, 10, 1),
};

async function started() {
  const tenant = testTenant({ version: 3, projects: [workspace], managers: [ADDED] });
  const t = await startTestApp({ agentOptions: { tenant: tenant.scope } });
  app = t;
  t.slack.members.roles.set(ADMIN, { is_admin: true });
  t.slack.members.roles.set(MEMBER, {});
  return { t, ...tenant };
}

/** Home's Settings button pressed by a manager: the form Slack opened. */
async function openSettings(t: TestApp): Promise<Json> {
  const triggerId = t.slack.surfaces.mintTriggerId(ADMIN);
  await t.interaction(
    blockActionsPayload({
      userId: ADMIN,
      triggerId,
      action: { action_id: HOME_SETTINGS_ACTION },
      container: { type: 'view', view: { type: 'home' } },
    }),
  );
  const opened = await t.slack.waitForCall('views.open', (c) => c.args.trigger_id === triggerId);
  return (typeof opened.args.view === 'string' ? JSON.parse(opened.args.view) : opened.args.view) as Json;
}

const external = { text: { type: 'plain_text', text: 'x' }, value: 'external_users' };
function values(users: string[], externalUsers: boolean): Record<string, Record<string, StateValue>> {
  return {
    settings_managers: { value: { type: 'multi_users_select', selected_users: users } },
    settings_switches: { value: { type: 'checkboxes', selected_options: externalUsers ? [external] : [] } },
  };
}

async function fieldError(t: TestApp, userId: string, view: Json, users: string[]): Promise<string> {
  const answer = await t.interaction(viewSubmissionPayload({ userId, view, values: values(users, false) }));
  const body = JSON.parse(answer.body) as Json;
  expect(body.response_action).toBe('errors');
  return String((body.errors as Json)[MANAGERS_BLOCK]);
}

describe('the Settings form on Home (issue 46 §5)', () => {
  it('shows managers in a people picker and the external-users checkbox; refuses what it must, in words', async () => {
    const { t, directory } = await started();
    const form = await openSettings(t);
    const blocks = JSON.stringify(form.blocks);
    expect(blocks).toContain(`"initial_users":["${INSTALLER_ID}","${ADDED}"]`);
    expect(blocks).toContain('"type":"checkboxes"');
    expect(blocks).toContain(HOME_GITHUB_ACTION);

    // Re-checked on submit: a member who is not a manager (a form opened before a demotion, or forged).
    expect(await fieldError(t, MEMBER, form, [INSTALLER_ID])).toContain("You can't change");
    // The last manager, the installer, apps and people of other organisations: refused on the field.
    expect(await fieldError(t, ADMIN, form, [])).toContain('Keep at least one person');
    expect(await fieldError(t, ADMIN, form, [ADDED])).toContain('installed docs-agent always manages it');
    t.slack.users.set('U0DEPLOYBOT', { name: 'deploybot', real_name: 'Deploy Bot', is_bot: true });
    t.slack.users.set('U0SAM', { name: 'sam', real_name: 'Sam Other' });
    t.slack.userTeams.set('U0SAM', 'T0OTHER');
    const refused = await fieldError(t, ADMIN, form, [INSTALLER_ID, 'U0DEPLOYBOT', 'U0SAM']);
    expect(refused).toContain('Deploy Bot is an app, not a person');
    expect(refused).toContain('Sam Other is in another organisation');
    expect(directory.saves).toHaveLength(0);
  }, 30_000);

  it('saves managers added and removed and the checkbox in one versioned change, and says so', async () => {
    const { t, directory } = await started();
    const form = await openSettings(t);
    const answer = await t.interaction(
      viewSubmissionPayload({ userId: ADMIN, view: form, values: values([INSTALLER_ID, 'U0CAROL'], true) }),
    );
    expect(answer.body).toBe('');
    await waitFor(() => directory.stored.get(TEST_TENANT)?.externalUsers === true, {
      what: 'settings saved',
    });
    expect(directory.stored.get(TEST_TENANT)?.managers).toEqual(['U0CAROL']);
    expect(directory.saves).toEqual([{ tenant: TEST_TENANT, expectedVersion: 3, accepted: true }]);
    const dm = await waitFor(() =>
      t.slack
        .callsOf('chat.postMessage')
        .map((c) => String(c.args.text ?? ''))
        .find((text) => text.startsWith('Settings saved')),
    );
    expect(dm).toContain('<@U0CAROL> now manage');
    expect(dm).toContain(`<@${ADDED}> no longer do`);
    expect(dm).toContain('people of other organisations may use docs-agent');
  }, 30_000);

  it('never saves over another manager’s change: refused in the field, and a second save keeps their addition', async () => {
    const { t, directory } = await started();
    const form = await openSettings(t);
    // Another manager adds someone between this save's read and its write.
    directory.beforeSave = async () => {
      const stored = directory.stored.get(TEST_TENANT)!;
      directory.stored.set(TEST_TENANT, {
        ...stored,
        managers: [ADDED, 'U0DAVE'],
        version: stored.version + 1,
      });
    };
    const submitted = () =>
      t.interaction(
        viewSubmissionPayload({
          userId: ADMIN,
          view: form,
          values: values([INSTALLER_ID, 'U0CAROL'], false),
        }),
      );
    const lost = JSON.parse((await submitted()).body) as Json;
    expect(String((lost.errors as Json)[MANAGERS_BLOCK])).toContain(
      'changed the settings at the same moment',
    );
    expect(directory.stored.get(TEST_TENANT)?.managers).toEqual([ADDED, 'U0DAVE']);
    // Saved again: what this form changed (Alice out, Carol in), applied to what is stored now.
    expect((await submitted()).body).toBe('');
    expect(directory.stored.get(TEST_TENANT)?.managers).toEqual(['U0DAVE', 'U0CAROL']);
  }, 30_000);

  it('[Connect GitHub] opens the sealed GitHub form for a manager only', async () => {
    const { t } = await started();
    const press = async (userId: string) => {
      const triggerId = t.slack.surfaces.mintTriggerId(userId);
      await t.interaction(
        blockActionsPayload({
          userId,
          triggerId,
          action: { action_id: HOME_GITHUB_ACTION },
          container: { type: 'view', view: { type: 'home' } },
        }),
      );
      return triggerId;
    };
    await press(MEMBER);
    await waitFor(() =>
      t.slack
        .callsOf('chat.postMessage')
        .find((c) => c.args.channel === MEMBER && String(c.args.text).includes("can't change")),
    );
    expect(t.slack.callsOf('views.open')).toHaveLength(0);
    const triggerId = await press(ADMIN);
    const opened = await t.slack.waitForCall('views.open', (c) => c.args.trigger_id === triggerId);
    const view = (
      typeof opened.args.view === 'string' ? JSON.parse(opened.args.view) : opened.args.view
    ) as Json;
    expect(view.callback_id).toBe(GITHUB_MODAL_CALLBACK_ID);
  }, 30_000);
});
