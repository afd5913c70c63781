import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/common/logger.js';
import { closeRedis, connectRedis } from '../../src/state/redis/redis-client.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { eventEnvelope } from '../support/slack-events.js';
import {
  appHomeOpenedEnvelope,
  blockActionsPayload,
  viewSubmissionPayload,
} from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let redis: RedisServer | undefined;
let app: TestApp | undefined;
beforeAll(async () => {
  redis = await startRedisServer();
});
afterEach(async () => {
  await app?.stop();
  app = undefined;
  // Each test's fake docs platform numbers jobs from job_0001 again: Redis starts empty for the next one.
  if (redis) {
    const client = await connectRedis(redis.url, logger, { failFast: true });
    await client.flushAll();
    await closeRedis(client);
  }
});
afterAll(async () => {
  await redis?.stop();
});

type Json = Record<string, unknown>;
const logger = createLogger({ level: 'silent', secrets: [] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Home's debounce (HOME_DEBOUNCE_MS) and some slack for a loaded machine. */
const PAST_DEBOUNCE_MS = 3_000;

const publishesFor = (t: TestApp, userId: string) =>
  t.slack.callsOf('views.publish').filter((call) => call.args.user_id === userId);

async function openHome(t: TestApp, userId: string, before = publishesFor(t, userId).length) {
  const response = await t.event(appHomeOpenedEnvelope({ userId }));
  expect(response.status).toBe(200);
  await waitFor(() => publishesFor(t, userId).length > before || undefined, { what: 'Home published' });
  return JSON.stringify(t.slack.surfaces.homeOf(userId));
}

async function pressNewJob(t: TestApp, userId: string): Promise<Json> {
  const triggerId = t.slack.surfaces.mintTriggerId(userId);
  const home = t.slack.surfaces.homeOf(userId) ?? {};
  const response = await t.interaction(
    blockActionsPayload({
      userId,
      triggerId,
      action: { action_id: 'home_new_job', text: 'New job' },
      container: { type: 'view', view: home },
    }),
  );
  expect(response.status).toBe(200);
  const modal = await waitFor(() => [...t.slack.surfaces.modals.values()].find((m) => m.userId === userId), {
    what: 'job modal opened from Home',
  });
  return modal.view;
}

function submitNewJob(
  t: TestApp,
  view: Json,
  channel: string | null,
  instruction: string,
  userId = 'U0ALICE',
) {
  return t.interaction(
    viewSubmissionPayload({
      userId,
      view,
      values: {
        instruction: { instruction_input: { type: 'plain_text_input', value: instruction } },
        channel: { channel_input: { type: 'conversations_select', selected_conversation: channel } },
      },
    }),
  );
}

describe.each([
  ['memory', () => ({})],
  ['Redis', () => ({ REDIS_URL: redis?.url ?? '' })],
])('App Home (%s mode)', (_mode, env) => {
  it("publishes only the user's own jobs, and republishes once (debounced) when their job ends", async () => {
    const t = await startTestApp({ env: env() });
    app = t;
    await t.command({ text: 'Document the alice feature', user_id: 'U0ALICE', channel_id: 'C0DOCS' });
    await t.command({ text: 'Bob private plan', user_id: 'U0BOB', channel_id: 'C0DOCS' });
    await waitFor(() => (t.docs.jobs.size === 2 ? true : undefined), { what: 'two jobs created' });
    const alices = [...t.docs.jobs.values()].find((j) => j.prompts[0]?.includes('alice'))!;
    // Changes to jobs of someone who never opened Home publish nothing.
    await sleep(PAST_DEBOUNCE_MS);
    expect(publishesFor(t, 'U0ALICE')).toHaveLength(0);

    const home = await openHome(t, 'U0ALICE');
    expect(home).toContain('Document the alice feature');
    expect(home).not.toContain('Bob private plan');
    expect(home).toContain('Working');
    expect(home).not.toContain('Budgets this hour'); // an operator's figures: managers only
    expect(home).toContain('"action_id":"home_new_job"');
    expect(t.slack.surfaces.refusals).toEqual([]);

    t.docs.complete(alices.id);
    await waitFor(() => publishesFor(t, 'U0ALICE').length === 2 || undefined, {
      what: 'Home republished after the job ended',
      timeoutMs: 10_000,
    });
    const after = JSON.stringify(t.slack.surfaces.homeOf('U0ALICE'));
    expect(after).toContain(alices.prLink!);
    // The card update, the terminal reply and the end of watching came as one publish.
    await sleep(PAST_DEBOUNCE_MS);
    expect(publishesFor(t, 'U0ALICE')).toHaveLength(2);
    expect(publishesFor(t, 'U0BOB')).toHaveLength(0);
  }, 30_000);

  it('New job: the modal with a channel picker starts an app_home job whose card opens a thread there', async () => {
    const t = await startTestApp({ env: env() });
    app = t;
    await openHome(t, 'U0ALICE');
    const modal = await pressNewJob(t, 'U0ALICE');
    expect(JSON.stringify(modal)).toContain('conversations_select');
    expect(JSON.parse(String(modal.private_metadata))).toEqual({ o: 'home' });

    const missing = await submitNewJob(t, modal, null, 'Document the export API');
    expect(JSON.parse(missing.body)).toEqual({
      response_action: 'errors',
      errors: { channel: "Pick the channel where the job's card should go." },
    });
    const closed = await submitNewJob(t, modal, 'C0DOCS', 'Document the export API');
    expect(closed.body).toBe('');
    const job = await waitFor(() => [...t.docs.jobs.values()][0], { what: 'job created' });
    expect(job.prompts[0]).toBe('Document the export API');
    const card = await waitFor(
      () =>
        t.slack.messages.find(
          (m) => m.bot_id && m.channel === 'C0DOCS' && JSON.stringify(m.blocks).includes(job.id),
        ),
      { what: 'card in the picked channel' },
    );
    expect(card.thread_ts).toBeUndefined();
    expect(t.logs.some((line) => line.includes('"origin":"app_home"'))).toBe(true);
    // Her Home, already opened, shows the new job without reopening.
    await waitFor(
      () =>
        JSON.stringify(t.slack.surfaces.homeOf('U0ALICE')).includes('Document the export API') || undefined,
      {
        what: 'Home shows the new job',
      },
    );
  }, 30_000);
});

describe('App Home across replicas (one Redis)', () => {
  it('a replica that never saw the Home opened keeps it current: the mark is in the shared store', async () => {
    const a = await startTestApp({ env: { REDIS_URL: redis?.url ?? '' } });
    app = a;
    const b = await startTestApp({ env: { REDIS_URL: redis?.url ?? '' }, slack: a.slack, docs: a.docs });
    try {
      await openHome(a, 'U0ALICE');
      const publishedByB = () => b.logs.filter((l) => l.includes("apiCall('views.publish') start")).length;
      expect(publishedByB()).toBe(0);
      await b.command({ text: 'Document the replica feature', user_id: 'U0ALICE', channel_id: 'C0DOCS' });
      await waitFor(() => publishedByB() > 0 || undefined, { what: 'replica b republished Home' });
      await waitFor(
        () =>
          JSON.stringify(a.slack.surfaces.homeOf('U0ALICE')).includes('Document the replica feature') ||
          undefined,
        { what: 'Home shows the job started on the other replica' },
      );
    } finally {
      await b.stop();
    }
  }, 30_000);
});

describe('App Home refusals', () => {
  it('keeps the modal open with an error under the picker for a channel the bot is not enabled in', async () => {
    const t = await startTestApp({ env: { ALLOWED_CHANNEL_IDS: 'C0DOCS' } });
    app = t;
    const modal = await pressNewJob(t, 'U0ALICE');
    const refused = await submitNewJob(t, modal, 'C0OTHER', 'Document it');
    const body = JSON.parse(refused.body);
    expect(body.response_action).toBe('errors');
    expect(body.errors.channel).toContain('not enabled in this conversation');
    await sleep(300);
    expect(t.docs.jobs.size).toBe(0);
  });

  it('accepts only a channel the user is in and the bot was invited to, and never joins one itself', async () => {
    const t = await startTestApp();
    app = t;
    const refusalFor = async (channel: string, userId = 'U0ALICE') => {
      const modal = await pressNewJob(t, userId);
      const answer = JSON.parse((await submitNewJob(t, modal, channel, 'Document it', userId)).body);
      expect(answer.response_action).toBe('errors');
      t.slack.surfaces.modals.clear();
      return String(answer.errors.channel);
    };
    // A public channel Alice is not in: Home's picker lists it all the same.
    t.slack.members.people.set('C0SECRET', ['U0BOB']);
    expect(await refusalFor('C0SECRET')).toContain("You're not a member of that channel");
    // A public channel without the bot, and a private one: the bot is never added by a job from Home.
    t.slack.notMemberOf.add('C0QUIET');
    expect(await refusalFor('C0QUIET')).toContain('Invite me there first');
    t.slack.notMemberOf.add('G0PRIVATE');
    expect(await refusalFor('G0PRIVATE')).toContain('Invite me there first');
    // A huge channel: the check reads 5 pages of 1000 and stops.
    const crowd = Array.from({ length: 6000 }, (_, i) => `U${String(i).padStart(8, '0')}`);
    t.slack.members.people.set('C0GENERAL', [...crowd, 'U0ALICE']);
    const pagesBefore = t.slack.callsOf('conversations.members').length;
    expect(await refusalFor('C0GENERAL')).toContain('more than 5,000 members');
    expect(t.slack.callsOf('conversations.members').length - pagesBefore).toBe(5);
    await sleep(300);
    expect(t.docs.jobs.size).toBe(0);
    expect(t.slack.callsOf('conversations.join')).toHaveLength(0);

    // The bot was removed between the check and the card: the job does not start and nothing joins.
    t.slack.inject('chat.postMessage', { kind: 'error', error: 'not_in_channel' });
    const modal = await pressNewJob(t, 'U0ALICE');
    expect((await submitNewJob(t, modal, 'C0DOCS', 'Document it')).body).toBe('');
    const told = await t.slack.waitForCall('chat.postMessage', (call) => call.args.channel === 'U0ALICE');
    expect(String(told.args.text)).toContain('did not start');
    expect(String(told.args.text)).toContain('/invite @docs-agent');
    expect(t.slack.callsOf('conversations.join')).toHaveLength(0);
    expect(t.docs.jobs.size).toBe(0);
  }, 20_000);

  it('publishes nothing when the Messages tab is opened', async () => {
    const t = await startTestApp();
    app = t;
    await t.event(
      eventEnvelope({
        type: 'app_home_opened',
        user: 'U0ALICE',
        channel: 'D0ALICE',
        tab: 'messages',
        event_ts: '1.1',
      }),
    );
    await sleep(300);
    expect(publishesFor(t, 'U0ALICE')).toHaveLength(0);
  });
});

describe('App Home, as issue 38 asks', () => {
  it('puts New job first, says schedules in words, and shows the hourly budgets to managers only', async () => {
    const t = await startTestApp({ env: { ADMIN_USER_IDS: 'U0ADMIN' } });
    app = t;
    const before = t.slack.responses.length;
    await t.command({
      command: '/docs-views',
      text: 'schedule monday 09:00 Europe/Berlin',
      user_id: 'U0ALICE',
    });
    await waitFor(() => t.slack.responses[before], { what: 'schedule confirmed' });

    const alice = JSON.parse(await openHome(t, 'U0ALICE')) as { blocks: Array<Record<string, unknown>> };
    expect(JSON.stringify(alice.blocks[1])).toContain('"action_id":"home_new_job"');
    const text = JSON.stringify(alice);
    expect(text).toContain('every Monday at 09:00 (Europe/Berlin)');
    expect(text).not.toContain('* * 1');
    expect(text).not.toContain('Budgets this hour');

    const admin = await openHome(t, 'U0ADMIN');
    expect(admin).toContain('Budgets this hour');
    expect(admin).toContain('Agent jobs in project');
  });
});
