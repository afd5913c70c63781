import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/state/redis/redis-client.js';
import { FAKE_API_KEY, FAKE_PROJECT_ID, FakeDocs, type FakeJob } from '../support/fake-docs.js';
import { FakeSlack, type StoredMessage } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type OAuthTestApp, startOAuthApp } from '../support/oauth-app.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { eventEnvelope, messageEvent, TEAM_ID } from '../support/slack-events.js';
import { viewSubmissionPayload } from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

/*
 * Upgrading a single-workspace deployment (Redis) to OAuth mode: the one step is SLACK_UPGRADED_TEAM_ID=<the
 * workspace> (docs/operating.md, "Upgrading to OAuth mode"). Once that workspace installs the app through
 * "Add to Slack", its job, its weekly schedule and its job thread are still there; a second workspace
 * installed beside it, even on the same docs project, sees none of them.
 */

/** Who pressed Allow in the fake Slack: may connect projects. */
const INSTALLER = 'U0INSTALLER';

let redis: RedisServer;
let slack: FakeSlack;
let docs: FakeDocs;
let client: RedisClient;
let single: TestApp | undefined;
let oauth: OAuthTestApp | undefined;

beforeAll(async () => {
  redis = await startRedisServer();
  slack = await FakeSlack.start();
  docs = await FakeDocs.start();
  client = await connectRedis(redis.url, createLogger({ level: 'silent', secrets: [] }), { failFast: true });
});

afterAll(async () => {
  await single?.stop();
  await oauth?.stop();
  if (client) await closeRedis(client);
  await slack?.close();
  await docs?.close();
  await redis?.stop();
});

/** Connections to this Redis other than the test's own (CLIENT LIST has one line per connection). */
async function connections(): Promise<number> {
  const list = String(await client.sendCommand(['CLIENT', 'LIST']));
  return list.split('\n').filter((line) => line.trim() !== '').length - 1;
}

/** Connections once none has opened or closed for a second (BullMQ opens its workers' ones lazily). */
async function settledConnections(): Promise<number> {
  let last = await connections();
  let same = 0;
  for (const deadline = Date.now() + 15_000; same < 4 && Date.now() < deadline; ) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    const now = await connections();
    same = now === last ? same + 1 : 0;
    last = now;
  }
  return last;
}

/** A command (from `team`), and the answer it sends to its response_url. */
async function ask(
  app: TestApp | OAuthTestApp,
  command: '/docs-agent' | '/docs-views',
  text: string,
  team = TEAM_ID,
): Promise<string> {
  const id = `${team}-${command.slice(1)}-${text.replace(/\W+/g, '-')}-${Date.now()}`;
  const ack = await app.command({ command, text, team_id: team, response_url: slack.responseUrl(id) });
  expect(ack.status).toBe(200);
  if (ack.body) return ack.body;
  const answer = await waitFor(() => slack.responses.find((r) => r.path.endsWith(`/${id}`)), {
    what: `the answer to ${command} ${text} from ${team}`,
    timeoutMs: 15_000,
  });
  return JSON.stringify(answer.body);
}

/** A reply in the job's thread, from `team`'s Events API. */
async function followUp(app: OAuthTestApp, card: StoredMessage, text: string, team: string) {
  const envelope = eventEnvelope(messageEvent({ user: 'U0BOB', thread_ts: card.ts, text, team }));
  const authorizations = envelope.authorizations as Array<Record<string, unknown>>;
  authorizations[0]!.team_id = team;
  const response = await app.event({ ...envelope, team_id: team });
  expect(response.status).toBe(200);
}

describe('upgrading from single-workspace mode to OAuth mode (Redis)', { timeout: 60_000 }, () => {
  let job: FakeJob;
  let card: StoredMessage;

  it('single-workspace mode: a job with its thread, and a weekly schedule', async () => {
    single = await startTestApp({ env: { REDIS_URL: redis.url }, slack, docs });
    await single.command({ text: 'Document the 429 response' });
    job = await waitFor(() => (docs.jobs.size === 1 ? docs.onlyJob : undefined), { what: 'job created' });
    await waitFor(() => slack.callsOf('chat.update').some((c) => JSON.stringify(c.args).includes(job.id)), {
      what: 'card tracked',
    });
    card = slack.messages.find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(job.id))!;
    expect(card).toBeDefined();
    const scheduled = await ask(single, '/docs-views', 'schedule monday 09:00 Europe/Berlin');
    expect(scheduled).toContain('Scheduled: every Monday at 09:00 (Europe/Berlin)');
    console.info(`Redis connections of the single-workspace bot: ${await settledConnections()}`);
    await single.stop();
    single = undefined;
  });

  it('OAuth mode with SLACK_UPGRADED_TEAM_ID: the installed workspace keeps its job, schedule and thread', async () => {
    const before = await connections();
    oauth = await startOAuthApp({
      slack,
      docs,
      env: {
        REDIS_URL: redis.url,
        SLACK_UPGRADED_TEAM_ID: TEAM_ID,
        DOCS_API_KEY: FAKE_API_KEY,
        DOCS_PROJECT_ID: FAKE_PROJECT_ID,
      },
    });
    const noTenant = await settledConnections();
    const installed = await oauth.install({ teamId: TEAM_ID, teamName: 'Acme' });
    expect(installed.status).toBe(200);
    expect(installed.html).toContain('Acme');

    // The job: followed again (the runtime resumed it), `status` answers it, a follow-up in its thread goes
    // to the agent, and the card is updated with the new token.
    docs.complete(job.id, 'https://github.com/acme/docs/pull/42');
    const status = await waitFor(
      async () => {
        const answer = await ask(oauth!, '/docs-agent', `status ${job.id}`);
        return answer.includes('pull/42') ? answer : undefined;
      },
      { what: 'status of the job from before the upgrade', timeoutMs: 20_000 },
    );
    expect(status).toContain('Done: pull request opened');
    await followUp(oauth, card, 'Please also add a Python example', TEAM_ID);
    await waitFor(() => job.prompts.length === 2, { what: 'follow-up in the old thread', timeoutMs: 15_000 });
    expect(job.prompts[1]).toContain('Please also add a Python example');
    const token = slack.oauth.liveToken(TEAM_ID);
    expect(token).toMatch(/^xoxb-T0TEAM-/);
    const reaction = await slack.waitForCall('reactions.add');
    expect(reaction.authorization).toBe(`Bearer ${token}`);

    // The schedule.
    const schedules = await ask(oauth, '/docs-views', 'schedules');
    expect(schedules).toContain('<#C0DOCS>');
    expect(schedules).toContain('Monday');
    const oneTenant = await settledConnections();
    console.info(
      `Redis connections: single-workspace bot stopped ${before}, OAuth process with no tenant ${noTenant}, with the upgraded tenant ${oneTenant}`,
    );
  });

  it('a second workspace installed beside it, on the same docs project, sees none of it', async () => {
    const app = oauth!;
    const oneTenant = await settledConnections();
    expect((await app.install({ teamId: 'T0BETA', teamName: 'Beta' })).status).toBe(200);
    // Beta's installer connects the same docs project with the same key, from Slack.
    const triggerId = slack.surfaces.mintTriggerId(INSTALLER);
    const opened = await app.command({
      text: 'connect',
      team_id: 'T0BETA',
      user_id: INSTALLER,
      trigger_id: triggerId,
      response_url: slack.responseUrl(),
    });
    expect(opened.status).toBe(200);
    const open = await slack.waitForCall('views.open', (c) => c.args.trigger_id === triggerId);
    expect(open.authorization).toBe(`Bearer ${slack.oauth.liveToken('T0BETA')}`);
    const view = typeof open.args.view === 'string' ? JSON.parse(open.args.view) : open.args.view;
    const submission = viewSubmissionPayload({
      userId: INSTALLER,
      view,
      values: {
        project_id: { project_id_input: { type: 'plain_text_input', value: FAKE_PROJECT_ID } },
        admin_key: { admin_key_input: { type: 'plain_text_input', value: FAKE_API_KEY } },
        scope: {
          scope_choice: {
            type: 'radio_buttons',
            selected_option: { text: { type: 'plain_text', text: 'workspace' }, value: 'workspace' },
          },
        },
      },
    });
    const beta = { id: 'T0BETA', domain: 'beta' };
    const submitted = await app.interaction({
      ...submission,
      team: beta,
      user: { ...(submission.user as object), team_id: 'T0BETA' },
      view: { ...(submission.view as object), team_id: 'T0BETA', app_installed_team_id: 'T0BETA' },
    });
    expect(submitted.status).toBe(200);
    expect(submitted.body).not.toContain('errors');
    await waitFor(
      () => app.logs.some((l) => l.includes('"tenant":"T0BETA"') && l.includes('settings changed; applied')),
      { what: 'Beta’s project applied', timeoutMs: 15_000 },
    );
    expect(await ask(app, '/docs-agent', 'project', 'T0BETA')).toContain(FAKE_PROJECT_ID);

    const status = await ask(app, '/docs-agent', `status ${job.id}`, 'T0BETA');
    expect(status).toContain('is not visible here');
    expect(status).not.toContain('pull/42');
    const schedules = await ask(app, '/docs-views', 'schedules', 'T0BETA');
    expect(schedules).not.toContain('Monday');
    const list = await ask(app, '/docs-agent', 'list', 'T0BETA');
    expect(list).not.toContain(job.id);

    // A reply in the same channel and thread from Beta is not a follow-up of Acme's job; Acme's next one is.
    await followUp(app, card, 'Beta says: delete everything', 'T0BETA');
    await followUp(app, card, 'Acme again: and a Go example', TEAM_ID);
    await waitFor(() => job.prompts.length === 3, { what: 'Acme’s second follow-up', timeoutMs: 15_000 });
    expect(job.prompts.join('\n')).not.toContain('Beta says');
    // Beta's key space holds none of Acme's job records; Acme's stayed where single-workspace mode left them.
    const betaKeys = await client.keys('docs-agent:t:T0BETA:*');
    expect(betaKeys.length).toBeGreaterThan(0);
    expect(betaKeys.filter((key) => key.includes(job.id) || key.includes(':job:'))).toEqual([]);
    expect((await client.keys('docs-agent::job:*')).some((key) => key.includes(job.id))).toBe(true);

    const twoTenants = await settledConnections();
    const perTenant = twoTenants - oneTenant;
    console.info(
      `Redis connections: one tenant ${oneTenant}, two tenants ${twoTenants}: ${perTenant} per tenant`,
    );
    // A second tenant opens none (issue 34): its queues are views of the replica's shared plane.
    expect(perTenant).toBe(0);
  });
});
