import { afterEach, describe, expect, it } from 'vitest';
import {
  HOME_WEEKLY_ADD_ACTION,
  HOME_WEEKLY_MENU_ACTION,
  WEEKLY_CHANNEL_BLOCK,
} from '../../src/slack/messages/home-schedules-form.js';
import { waitFor } from '../support/http.js';
import { ManualTimers } from '../support/manual-timers.js';
import { startRedisServer } from '../support/redis-server.js';
import { eventEnvelope } from '../support/slack-events.js';
import {
  blockActionsPayload,
  type StateValue,
  viewSubmissionPayload,
} from '../support/slack-interactions.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

type Json = Record<string, unknown>;
const ALICE = 'U0ALICE';
const option = (value: string) => ({ text: { type: 'plain_text', text: value }, value });

let app: TestApp | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
});

/** Wednesday 2 Dec 2026, 10:00 UTC (19:00 in Tokyo). */
async function started(env: Record<string, string> = {}) {
  const timers = new ManualTimers(Date.parse('2026-12-02T10:00:00Z'));
  const t = await startTestApp({
    env,
    agentOptions: { clock: { now: timers.now }, schedulerTimers: timers },
  });
  app = t;
  t.slack.users.set(ALICE, { name: 'alice', tz: 'Asia/Tokyo' });
  return t;
}

const homeText = (t: TestApp) => JSON.stringify(t.slack.surfaces.homeOf(ALICE)) ?? '';

async function openHome(t: TestApp): Promise<string> {
  const before = t.slack.callsOf('views.publish').length;
  await t.event(
    eventEnvelope({ type: 'app_home_opened', user: ALICE, channel: 'D0HOME', tab: 'home', event_ts: '1.1' }),
  );
  await waitFor(() => t.slack.callsOf('views.publish').length > before, { what: 'Home published' });
  return homeText(t);
}

/** Clicks a Home button (or picks a menu option) and returns the form Slack opened. */
async function click(t: TestApp, action: { action_id: string; selected?: string }): Promise<Json> {
  const triggerId = t.slack.surfaces.mintTriggerId(ALICE);
  await t.interaction(
    blockActionsPayload({
      userId: ALICE,
      triggerId,
      action,
      container: { type: 'view', view: { type: 'home' } },
    }),
  );
  const opened = await t.slack.waitForCall('views.open', (c) => c.args.trigger_id === triggerId);
  return (typeof opened.args.view === 'string' ? JSON.parse(opened.args.view) : opened.args.view) as Json;
}

function weeklyValues(
  channel: string,
  day: number,
  time: string,
): Record<string, Record<string, StateValue>> {
  return {
    weekly_kind: { value: { type: 'static_select', selected_option: option('page_views') } },
    weekly_channel: { value: { type: 'conversations_select', selected_conversation: channel } },
    weekly_day: { value: { type: 'static_select', selected_option: option(String(day)) } },
    weekly_time: { value: { type: 'timepicker', selected_time: time } },
  };
}

const submit = (t: TestApp, view: Json, values: Record<string, Record<string, StateValue>>) =>
  t.interaction(viewSubmissionPayload({ userId: ALICE, view, values }));
const ephemerals = (t: TestApp) =>
  t.slack.callsOf('chat.postEphemeral').map((c) => String(c.args.text ?? ''));
const menus = (t: TestApp) => homeText(t).split(HOME_WEEKLY_MENU_ACTION).length - 1;
const at = (iso: string) => `<!date^${Date.parse(iso) / 1000}^`;

/** Add, edit (the same schedule), a refused move, and remove after asking: Home and the confirmations show each. */
async function addEditMoveRemove(t: TestApp): Promise<void> {
  expect(await openHome(t)).toContain(HOME_WEEKLY_ADD_ACTION);

  const form = await click(t, { action_id: HOME_WEEKLY_ADD_ACTION });
  expect(JSON.stringify(form)).toContain('Your time zone: Asia/Tokyo');
  // Thursday 09:30 in Tokyo is 00:30 UTC on Thursday 3 Dec.
  expect((await submit(t, form, weeklyValues('C0DOCS', 4, '09:30'))).body).toBe('');
  await waitFor(() => homeText(t).includes('every Thursday at 09:30 (Asia/Tokyo)'), {
    what: 'Home with the post',
  });
  expect(homeText(t)).toContain(at('2026-12-03T00:30:00Z'));
  const confirmed = await waitFor(() => ephemerals(t).find((text) => text.startsWith('Scheduled')));
  expect(confirmed).toContain('<#C0DOCS>');
  expect(confirmed).toContain(at('2026-12-03T00:30:00Z'));

  // Edit: the form comes back filled in the viewer's zone; the same schedule gets the new time.
  const edit = await click(t, { action_id: HOME_WEEKLY_MENU_ACTION, selected: 'edit|page_views|C0DOCS' });
  const fields = JSON.stringify(edit.blocks);
  expect(fields).toContain('"initial_time":"09:30"');
  expect(fields).toContain('"initial_option":{"text":{"type":"plain_text","text":"Thursday"},"value":"4"}');
  expect((await submit(t, edit, weeklyValues('C0DOCS', 5, '18:00'))).body).toBe('');
  await waitFor(() => homeText(t).includes('every Friday at 18:00 (Asia/Tokyo)'), {
    what: 'Home with the new time',
  });
  expect(homeText(t)).toContain(at('2026-12-04T09:00:00Z'));
  expect(menus(t)).toBe(1);
  await waitFor(() => ephemerals(t).find((text) => text.startsWith('Updated')));

  // Moving it to a channel the bot is not in: refused in the field, in words, and nothing changes.
  t.slack.notMemberOf.add('C0OTHER');
  t.slack.members.people.set('C0OTHER', [ALICE]);
  const move = await click(t, { action_id: HOME_WEEKLY_MENU_ACTION, selected: 'edit|page_views|C0DOCS' });
  const refused = JSON.parse((await submit(t, move, weeklyValues('C0OTHER', 1, '08:00'))).body) as Json;
  expect(refused.response_action).toBe('errors');
  const why = String((refused.errors as Json)[WEEKLY_CHANNEL_BLOCK]);
  expect(why).toContain("I'm not in that channel");
  expect(why).not.toMatch(/not_in_channel|channel_not_found/);

  // Remove asks first; confirmed, the post is gone.
  const question = await click(t, {
    action_id: HOME_WEEKLY_MENU_ACTION,
    selected: 'remove|page_views|C0DOCS',
  });
  expect(JSON.stringify(question)).toContain('Stop the weekly page views post in <#C0DOCS>?');
  expect(homeText(t)).toContain('every Friday at 18:00');
  expect((await submit(t, question, {})).body).toBe('');
  await waitFor(() => homeText(t).includes('None yet. Add one to post'), { what: 'Home without the post' });
  expect(menus(t)).toBe(0);
  await waitFor(() =>
    ephemerals(t).find((text) => text.includes('will no longer get the weekly page-views post')),
  );
}

describe('weekly posts in a form on Home (issue 46 §5)', () => {
  it('adds a post in the viewer’s time zone, edits it in place, refuses a channel without the bot, removes it after asking', async () => {
    await addEditMoveRemove(await started());
  }, 30_000);

  it('does the same with the schedules in Redis (REDIS_URL)', async () => {
    const redis = await startRedisServer();
    try {
      const t = await started({ REDIS_URL: redis.url });
      expect(t.logs.join('\n')).toMatch(/"state":"redis"/);
      await addEditMoveRemove(t);
      await app?.stop();
      app = undefined;
    } finally {
      await redis.stop();
    }
  }, 60_000);

  it('refuses a second post of the same kind in a channel (no duplicate), naming what to do', async () => {
    const t = await started();
    await openHome(t);
    const first = await click(t, { action_id: HOME_WEEKLY_ADD_ACTION });
    expect((await submit(t, first, weeklyValues('C0DOCS', 1, '09:00'))).body).toBe('');
    const second = await click(t, { action_id: HOME_WEEKLY_ADD_ACTION });
    const answer = JSON.parse((await submit(t, second, weeklyValues('C0DOCS', 2, '10:00'))).body) as Json;
    expect(String((answer.errors as Json)[WEEKLY_CHANNEL_BLOCK])).toContain(
      'already has a weekly page-views post',
    );
    await waitFor(() => homeText(t).includes('every Monday at 09:00'), { what: 'Home with the first post' });
    expect(homeText(t)).not.toContain('Tuesday');
    expect(menus(t)).toBe(1);
  }, 30_000);
});
