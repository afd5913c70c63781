import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../support/http.js';
import { testTenant } from '../support/map-tenant-directory.js';
import { appHomeOpenedEnvelope, blockActionsPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Home as a dashboard (issue 46 §5) over signed requests: app_home_opened publishes the jobs with their ⋯
 * menus and the usage this hour; "Stop following" from the menu stops following the job (job store, card),
 * and is refused, on the click, to someone who neither started the job nor is an admin.
 */
let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

type Json = Record<string, unknown>;
const PATTERN = 'https://dashboard.example.com/{projectId}/jobs/{jobId}';
const homeOf = (t: TestApp, userId: string) => (t.slack.surfaces.homeOf(userId) ?? {}) as Json;
const publishesFor = (t: TestApp, userId: string) =>
  t.slack.callsOf('views.publish').filter((call) => call.args.user_id === userId).length;
const dms = (t: TestApp, userId: string) =>
  t.slack
    .callsOf('chat.postMessage')
    .filter((c) => c.args.channel === userId)
    .map((c) => String(c.args.text ?? ''));

/** The Stop following option of the job's ⋯ menu in the user's Home, if there is one. */
function stopOption(home: Json, jobId: string): string | undefined {
  const values = JSON.stringify(home).match(/"value":"stop:[^"]+"/g) ?? [];
  return values.map((v) => v.slice('"value":"'.length, -1)).find((v) => v === `stop:${jobId}`);
}

async function startAlicesJob(t: TestApp): Promise<string> {
  await t.command({ text: 'Document the alice feature', user_id: 'U0ALICE', channel_id: 'C0DOCS' });
  const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'job created' });
  await waitFor(async () => ((await t.agent.jobs.job(job.id))?.cardTs ? true : undefined), {
    what: 'job recorded with its card',
  });
  return job.id;
}

async function openHome(t: TestApp, userId: string): Promise<Json> {
  const before = publishesFor(t, userId);
  expect((await t.event(appHomeOpenedEnvelope({ userId }))).status).toBe(200);
  await waitFor(() => publishesFor(t, userId) > before || undefined, { what: 'Home published' });
  return homeOf(t, userId);
}

function chooseStop(t: TestApp, userId: string, value: string, view: Json) {
  return t.interaction(
    blockActionsPayload({
      userId,
      triggerId: t.slack.surfaces.mintTriggerId(userId),
      action: { action_id: 'home_job_menu', selected: value, text: 'Stop following' },
      container: { type: 'view', view },
    }),
  );
}

describe('Home as a dashboard', () => {
  it('publishes the jobs with their ⋯ menu and the usage this hour; Stop following stops following', async () => {
    const t = await startTestApp({ env: { DOCS_JOB_URL_PATTERN: PATTERN } });
    app = t;
    const jobId = await startAlicesJob(t);
    const home = await openHome(t, 'U0ALICE');
    const shown = JSON.stringify(home);
    expect(shown).toContain('Running now');
    expect(shown).toContain('"action_id":"home_job_menu"');
    expect(shown).toContain('Open in dashboard');
    expect(shown).toContain(`/jobs/${jobId}`);
    expect(shown).toMatch(/1 of \d+ agent jobs this hour/);
    expect(t.slack.surfaces.refusals).toEqual([]);

    const value = stopOption(home, jobId);
    expect(value).toBeDefined();
    expect((await chooseStop(t, 'U0ALICE', value!, home)).status).toBe(200);
    await waitFor(() => dms(t, 'U0ALICE').find((text) => text.includes('I stopped following your job')), {
      what: 'Alice told the job is no longer followed',
    });
    const record = await t.agent.jobs.job(jobId);
    expect(record).toMatchObject({ watching: false, watchEnded: 'stopped' });
    // The card says so, and her Home drops the option (republished through the card's change).
    await waitFor(
      () =>
        t.slack.callsOf('chat.update').some((c) => JSON.stringify(c.args).includes('Stopped following')) ||
        undefined,
      { what: 'card updated' },
    );
    await waitFor(() => (stopOption(homeOf(t, 'U0ALICE'), jobId) ? undefined : true), {
      what: 'Home republished without Stop following',
      timeoutMs: 10_000,
    });
  }, 30_000);

  it('refuses Stop following to someone who did not start the job, on the click', async () => {
    const t = await startTestApp();
    app = t;
    const jobId = await startAlicesJob(t);
    const home = await openHome(t, 'U0ALICE');
    const value = stopOption(home, jobId)!;
    // Bob sends the click Alice's Home would send (a forged or replayed payload).
    expect((await chooseStop(t, 'U0BOB', value, home)).status).toBe(200);
    const refusal = await waitFor(
      () => dms(t, 'U0BOB').find((text) => text.includes('only the person who started it')),
      { what: 'Bob refused' },
    );
    expect(refusal).toContain('<@U0ALICE>');
    expect(await t.agent.jobs.job(jobId)).toMatchObject({ watching: true, watchEnded: null });
    expect(dms(t, 'U0ALICE')).toEqual([]);
  }, 30_000);

  it('Settings opens the settings in a modal for a manager, and is refused to a member by name', async () => {
    const tenant = testTenant();
    const t = await startTestApp({ agentOptions: { tenant: tenant.scope } });
    app = t;
    t.slack.members.roles.set('U0ADMIN', { is_admin: true });
    t.slack.members.roles.set('U0BOB', {});
    const press = (userId: string) =>
      t.interaction(
        blockActionsPayload({
          userId,
          triggerId: t.slack.surfaces.mintTriggerId(userId),
          action: { action_id: 'home_settings', text: 'Settings' },
          container: { type: 'view', view: homeOf(t, userId) },
        }),
      );
    expect(JSON.stringify(await openHome(t, 'U0ADMIN'))).toContain('"action_id":"home_settings"');
    expect(JSON.stringify(await openHome(t, 'U0BOB'))).not.toContain('home_settings');
    // A member's click (a stale or forged Home): told who the managers are, no modal.
    expect((await press('U0BOB')).status).toBe(200);
    const refusal = await waitFor(
      () => dms(t, 'U0BOB').find((text) => text.includes("only docs-agent's managers")),
      { what: 'member refused' },
    );
    expect(refusal).toContain('workspace admins and owners');
    expect(t.slack.callsOf('views.open')).toHaveLength(0);
    expect((await press('U0ADMIN')).status).toBe(200);
    const modal = await waitFor(
      () => [...t.slack.surfaces.modals.values()].find((m) => m.userId === 'U0ADMIN'),
      { what: 'settings modal opened' },
    );
    const shown = JSON.stringify(modal.view);
    expect(shown).toContain('Settings: docs projects');
    expect(shown).toContain('home_connect_project');
    expect(t.slack.surfaces.refusals).toEqual([]);
  }, 30_000);
});
