import { describe, expect, it } from 'vitest';
import { alertFormView } from '../../src/slack/messages/home-alerts-form.js';
import { parseWeeklySubmission, weeklyFormView } from '../../src/slack/messages/home-schedules-form.js';
import { settingsFormView } from '../../src/slack/messages/settings-form.js';
import { checkView } from '../support/fake-slack-surfaces.js';

type Json = Record<string, unknown>;
const editing = { kind: 'health' as const, channelId: 'C0DOCS', weekday: 1 as const, hour: 7, minute: 5 };

/** The form's one element of a block. */
const element = (view: { blocks: unknown[] }, block: string) =>
  (view.blocks as Json[]).find((b) => b.block_id === block)?.element as Json;

describe("Home's forms as Slack checks them (issue 46 §5)", () => {
  it('the weekly-post form: a zero-padded 24-hour time, the chosen day, a channel picker without a default', () => {
    const view = weeklyFormView({ timeZone: 'Europe/Berlin', editing });
    expect(checkView(view, 'modal')).toEqual({ ok: true });
    expect(element(view, 'weekly_time').initial_time).toBe('07:05');
    expect(element(view, 'weekly_channel')).toMatchObject({
      default_to_current_conversation: false,
      filter: { include: ['public', 'private'] },
      initial_conversation: 'C0DOCS',
    });
    expect(JSON.stringify(view)).toContain('Your time zone: Europe/Berlin');
    expect(JSON.stringify(weeklyFormView({ timeZone: undefined }))).toContain('times are in UTC');
  });

  it('the fake Slack refuses what Slack refuses: a time not in HH:mm, an initial option that is not an option', () => {
    const view = weeklyFormView({ timeZone: 'Europe/Berlin', editing });
    for (const bad of ['7:05', '07:05:00', '24:00'])
      expect(checkView({ ...view, blocks: view.blocks.map((b) => withTime(b, bad)) }, 'modal').ok).toBe(
        false,
      );
    const day = element(view, 'weekly_day');
    const wrong = {
      ...view,
      blocks: view.blocks.map((b) =>
        (b as unknown as Json).block_id === 'weekly_day'
          ? {
              ...b,
              element: {
                ...day,
                initial_option: { text: { type: 'plain_text', text: 'Funday' }, value: '9' },
              },
            }
          : b,
      ),
    };
    expect(checkView(wrong, 'modal').ok).toBe(false);
  });

  it('reads a submission in the zone the form was opened in; an unreadable time names its field', () => {
    const view = weeklyFormView({ timeZone: 'Asia/Tokyo', editing });
    const values = (time: string) => ({
      weekly_kind: { value: { selected_option: { value: 'health' } } },
      weekly_channel: { value: { selected_conversation: 'C0OPS' } },
      weekly_day: { value: { selected_option: { value: '3' } } },
      weekly_time: { value: { selected_time: time } },
    });
    expect(parseWeeklySubmission({ ...view, state: { values: values('18:30') } })).toEqual({
      kind: 'health',
      channelId: 'C0OPS',
      weekday: 3,
      hour: 18,
      minute: 30,
      timeZone: 'Asia/Tokyo',
      was: { kind: 'health', channelId: 'C0DOCS' },
    });
    expect(parseWeeklySubmission({ ...view, state: { values: values('6pm') } })).toEqual({
      missing: 'weekly_time',
    });
  });

  it('the alert and Settings forms pass Slack’s checks', () => {
    expect(checkView(alertFormView(), 'modal')).toEqual({ ok: true });
    expect(checkView(alertFormView({ channelId: 'C0DOCS', sensitivity: 'high' }), 'modal')).toEqual({
      ok: true,
    });
    const settings = settingsFormView({
      manage: true,
      connections: [],
      installerUserId: 'U0INSTALLER',
      managers: { added: ['U0ALICE'], externalUsers: true, externalUsersChosen: true },
    });
    expect(checkView(settings, 'modal')).toEqual({ ok: true });
    expect(element(settings, 'settings_managers').initial_users).toEqual(['U0INSTALLER', 'U0ALICE']);
  });
});

function withTime(block: unknown, time: string): unknown {
  const b = block as Json;
  return b.block_id === 'weekly_time' ? { ...b, element: { ...(b.element as Json), initial_time: time } } : b;
}
