import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_API_KEY, FAKE_PROJECT_ID } from '../support/fake-docs.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { viewSubmissionPayload } from '../support/slack-interactions.js';

/**
 * Issue 27, app level: for any interleaving of two installed tenants' commands (jobs started, `status <id>`
 * with ids of both tenants and one that never existed, `list`), each tenant sees only its own jobs, every
 * Slack call that carries a tenant's data carries that tenant's token, and every docs call its project's
 * key. Both tenants use the SAME channel and user ids: only the tenant tells them apart. One is the upgraded
 * workspace (SLACK_UPGRADED_TEAM_ID: default key space, the env project), the other an org-wide Grid
 * install that connects its own project and key from Slack (/docs-agent connect). OAuth mode in this process, Redis mode.
 */
const ACME = 'T0ACME';
const GRID = 'E0GRID';
const TENANTS = [ACME, GRID] as const;
const GRID_PROJECT = 'proj_grid_docs';
const GRID_KEY = 'svc_grid_own_key_0123456789abcdefghijklm';
const PROJECT_OF: Record<string, string> = { [ACME]: FAKE_PROJECT_ID, [GRID]: GRID_PROJECT };
const KEY_OF: Record<string, string> = { [FAKE_PROJECT_ID]: FAKE_API_KEY, [GRID_PROJECT]: GRID_KEY };
/** Where each tenant's commands come from: the org-wide install's from one of its workspaces. */
const FIELDS: Record<string, Record<string, string>> = {
  [ACME]: { team_id: ACME },
  [GRID]: { team_id: 'T0ONE', enterprise_id: GRID, is_enterprise_install: 'true' },
};
const NEVER = 'job_9999';
type Json = Record<string, unknown>;

/** A command of one tenant; the org's come from either of two of its workspaces (one tenant for both). */
type Op = { tenant: number; workspace: string } & (
  | { kind: 'start' }
  | { kind: 'list' }
  | { kind: 'status'; pick: number }
);
const who = { tenant: fc.constantFrom(0, 1), workspace: fc.constantFrom('T0ONE', 'T0TWO') };
const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ ...who, kind: fc.constant('start' as const) }),
  fc.record({ ...who, kind: fc.constant('list' as const) }),
  fc.record({ ...who, kind: fc.constant('status' as const), pick: fc.nat() }),
);

/** `/docs-agent connect` in the org-wide install by its installer, and the form submitted (whole org). */
async function connectFromSlack(app: OAuthTestApp, projectId: string, apiKey: string): Promise<void> {
  const installer = app.slack.oauth.installerUserId;
  const triggerId = app.slack.surfaces.mintTriggerId(installer);
  const fields = { ...FIELDS[GRID], user_id: installer, trigger_id: triggerId };
  expect((await app.command({ ...fields, text: 'connect' })).status).toBe(200);
  const call = await app.slack.waitForCall('views.open', (c) => c.args.trigger_id === triggerId, 15_000);
  const view = (typeof call.args.view === 'string' ? JSON.parse(call.args.view) : call.args.view) as Json;
  const text = (value: string) => ({ type: 'plain_text_input' as const, value });
  const whole = { text: { type: 'plain_text', text: 'workspace' }, value: 'workspace' };
  const payload = viewSubmissionPayload({
    userId: installer,
    view,
    values: {
      project_id: { project_id_input: text(projectId) },
      admin_key: { admin_key_input: text(apiKey) },
      scope: { scope_choice: { type: 'radio_buttons', selected_option: whole } },
    },
  });
  const answer = await app.interaction({
    ...payload,
    team: { id: 'T0ONE', domain: 'one', enterprise_id: GRID },
    user: { ...(payload.user as Json), team_id: 'T0ONE' },
    view: { ...(payload.view as Json), team_id: 'T0ONE', app_installed_team_id: 'T0ONE' },
    enterprise: { id: GRID, name: 'Grid' },
    is_enterprise_install: true,
  });
  expect(answer.status).toBe(200);
}

describe('two tenants in one OAuth-mode process', () => {
  let redis: RedisServer;
  let app: OAuthTestApp;
  let answers = 0;
  let prompts = 0;
  /** Job ids per tenant, and each tenant's prompts (its data, as it travels in Slack calls). */
  const jobs: Record<string, string[]> = { [ACME]: [], [GRID]: [] };
  const marks: Record<string, string[]> = { [ACME]: [], [GRID]: [] };

  beforeAll(async () => {
    redis = await startRedisServer();
    app = await startOAuthApp({
      env: {
        REDIS_URL: redis.url,
        SLACK_UPGRADED_TEAM_ID: ACME,
        DOCS_PROJECT_ID: FAKE_PROJECT_ID,
        DOCS_API_KEY: FAKE_API_KEY,
        POLL_INTERVAL_MS: '500',
        POLL_MAX_INTERVAL_MS: '2000',
        LOG_LEVEL: 'info',
      },
    });
    // The org's people, as users.info tells (the org-wide install lets its own org's people in).
    for (const user of ['U0SAME', 'U0ALICE', app.slack.oauth.installerUserId])
      app.slack.userEnterprises.set(user, GRID);
    app.docs.projects.add(GRID_PROJECT);
    app.docs.projectKeys.set(GRID_PROJECT, GRID_KEY);
    expect((await app.install({ teamId: ACME, teamName: 'Acme' })).status).toBe(200);
    expect(
      (await app.install({ enterpriseId: GRID, enterpriseName: 'Grid', isEnterpriseInstall: true })).status,
    ).toBe(200);
    // The org's installer connects its project from Slack: /docs-agent connect, the form, the key checked.
    await connectFromSlack(app, GRID_PROJECT, GRID_KEY);
    // Each tenant's runtime serves its project (the org's settings apply within ~2 s).
    for (const tenant of TENANTS) {
      await waitFor(
        async () =>
          (await app.command({ ...FIELDS[tenant], text: 'project' })).body.includes(PROJECT_OF[tenant]!),
        { timeoutMs: 20_000, what: `${tenant} on its project` },
      );
    }
  }, 60_000);
  afterAll(async () => {
    await app?.stop();
    await redis?.stop();
  });

  /** Runs one command as the tenant and waits for what it answers (via response_url) or starts. */
  async function run(step: Op): Promise<void> {
    const tenant = TENANTS[step.tenant]!;
    const path = `answer-${++answers}`;
    const fields = {
      ...FIELDS[tenant],
      ...(tenant === GRID ? { team_id: step.workspace } : {}),
      user_id: 'U0SAME',
      channel_id: 'C0DOCS',
      response_url: app.slack.responseUrl(path),
    };
    const answer = () =>
      waitFor(() => app.slack.responses.find((r) => r.path === `/response/${path}`), {
        what: path,
        timeoutMs: 15_000,
      });
    if (step.kind === 'start') {
      const prompt = `Document the ${tenant} webhooks, part ${++prompts}`;
      await app.command({ ...fields, text: prompt });
      const job = await waitFor(() => [...app.docs.jobs.values()].find((j) => j.prompts[0] === prompt), {
        what: prompt,
        timeoutMs: 15_000,
      });
      expect(job.project).toBe(PROJECT_OF[tenant]);
      jobs[tenant]!.push(job.id);
      marks[tenant]!.push(prompt, job.id);
      await app.slack.waitForCall('chat.update', (c) => JSON.stringify(c.args).includes(job.id), 15_000);
      return;
    }
    if (step.kind === 'list') {
      await app.command({ ...fields, text: 'list' });
      const text = JSON.stringify((await answer()).body);
      const own = jobs[tenant]!;
      expect(text).toContain(own.length === 0 ? 'No docs agent jobs' : `(${own.length} being followed)`);
      for (const other of jobs[TENANTS[1 - step.tenant]!]!) expect(text).not.toContain(other);
      return;
    }
    const all = [...jobs[ACME]!, ...jobs[GRID]!, NEVER];
    const id = all[step.pick % all.length]!;
    await app.command({ ...fields, text: `status ${id}` });
    const text = JSON.stringify((await answer()).body);
    if (jobs[tenant]!.includes(id)) {
      expect(text).toContain(id);
      expect(text).not.toContain('not visible');
    } else {
      // Another tenant's job is answered exactly as one that never existed.
      await app.command({
        ...fields,
        response_url: app.slack.responseUrl(`${path}-never`),
        text: `status ${NEVER}`,
      });
      const never = await waitFor(
        () => app.slack.responses.find((r) => r.path === `/response/${path}-never`),
        { what: 'never', timeoutMs: 15_000 },
      );
      expect(text).toBe(JSON.stringify(never.body).replaceAll(NEVER, id));
    }
  }

  /** Every Slack call carries an issued token, and a call with a tenant's data carries that tenant's. */
  function expectTokensSealed(): void {
    for (const call of app.slack.calls.filter((c) => c.method !== 'oauth.v2.access')) {
      const owner = app.slack.oauth.tenantOf(call.authorization, call.args);
      expect(owner, `${call.method} with an issued token`).toBeDefined();
      const args = JSON.stringify(call.args);
      for (const tenant of TENANTS) {
        if (tenant !== owner) {
          const leaked = marks[tenant]!.filter((mark) => args.includes(mark));
          expect(leaked, `${call.method} under ${owner}`).toEqual([]);
        }
      }
    }
    for (const request of app.docs.requests) {
      const project = /^\/v[12]\/(?:agent|analytics)\/([^/]+)/.exec(request.path)?.[1];
      if (project) expect(request.authorization).toBe(`Bearer ${KEY_OF[project]}`);
    }
  }

  it('each tenant sees only its own jobs, and its data travels only with its own token and key', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 5 }), async (steps) => {
        for (const step of steps) await run(step);
        expectTokensSealed();
      }),
      { numRuns: 15, endOnFailure: true },
    );
    expect(jobs[ACME]!.length + jobs[GRID]!.length).toBeGreaterThan(0);
  }, 300_000);
});
