import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import type { ScheduleKind } from '../../insights/ports.js';
import { describeWeeklyCron } from '../../insights/ranges/cron-times.js';
import type { Weekday } from '../../insights/ranges/grammar.js';
import { escapeMrkdwn } from '../markup.js';
import type { HomeSchedule } from './app-home.js';
import { slackTime } from './format.js';
import { LIMITS, oneLine, truncate } from './limits.js';

/** Home's weekly-posts section: [Add weekly post], and each post's ⋯ menu (Edit, Remove). */
export const HOME_WEEKLY_ADD_ACTION = 'home_weekly_add';
export const HOME_WEEKLY_MENU_ACTION = 'home_weekly_menu';
/** The weekly-post form, and the form that asks before a post is removed. */
export const WEEKLY_FORM_CALLBACK_ID = 'home_weekly_form';
export const WEEKLY_REMOVE_CALLBACK_ID = 'home_weekly_remove';
export const WEEKLY_KIND_BLOCK = 'weekly_kind';
export const WEEKLY_CHANNEL_BLOCK = 'weekly_channel';
export const WEEKLY_DAY_BLOCK = 'weekly_day';
export const WEEKLY_TIME_BLOCK = 'weekly_time';
/** Each block's one element. */
export const FIELD_ACTION = 'value';

/** A form's channel field: a channel the person is in and the bot was invited to (checked again on submit). */
export function channelPickerInput(blockId: string, initialChannel: string | undefined): KnownBlock {
  return {
    type: 'input',
    block_id: blockId,
    label: { type: 'plain_text', text: 'Channel' },
    hint: { type: 'plain_text', text: 'A channel you are in, where I was invited (/invite @docs-agent).' },
    element: {
      type: 'conversations_select',
      action_id: FIELD_ACTION,
      default_to_current_conversation: false,
      filter: { include: ['public', 'private'], exclude_bot_users: true },
      placeholder: { type: 'plain_text', text: 'Pick a channel' },
      ...(initialChannel ? { initial_conversation: initialChannel } : {}),
    },
  };
}
/** Posts Home lists with their menus (Slack allows 100 blocks in Home). */
export const HOME_WEEKLY_MAX = 20;

const KIND_NAMES: Record<ScheduleKind, string> = { page_views: 'Page views', health: 'Docs health' };
const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const CHANNEL_ID = /^[CG][A-Z0-9]{2,30}$/;
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Which post a menu or form is about: its kind and channel (a schedule's identity). */
export interface WeeklyRef {
  kind: ScheduleKind;
  channelId: string;
}

const isKind = (value: unknown): value is ScheduleKind => value === 'page_views' || value === 'health';

/** A menu option's value: `edit|health|C123`. */
export function encodeWeeklyChoice(choice: 'edit' | 'remove', ref: WeeklyRef): string {
  return `${choice}|${ref.kind}|${ref.channelId}`;
}

export function parseWeeklyChoice(
  value: string | undefined,
): { choice: 'edit' | 'remove'; ref: WeeklyRef } | undefined {
  const [choice, kind, channelId] = (value ?? '').slice(0, 100).split('|');
  if ((choice !== 'edit' && choice !== 'remove') || !isKind(kind) || !CHANNEL_ID.test(channelId ?? ''))
    return undefined;
  return { choice, ref: { kind, channelId: channelId! } };
}

function section(text: string): KnownBlock {
  return { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } };
}

const kindName = (kind: ScheduleKind) => KIND_NAMES[kind];

/** "every Monday at 09:00"; a pattern set by the operator that says more is "on a custom schedule". */
function inWords(cron: string): string {
  const words = describeWeeklyCron(cron);
  return words ? `every ${words}` : 'on a custom schedule';
}

/** Home's weekly posts of the person, each with its menu, and [Add weekly post]. */
export function homeWeeklyBlocks(schedules: HomeSchedule[]): KnownBlock[] {
  const blocks: KnownBlock[] = [section('*Your weekly posts*')];
  if (schedules.length === 0)
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: 'None yet. Add one to post a report in a channel every week.' }],
    });
  const sorted = [...schedules].sort((a, b) => a.channelId.localeCompare(b.channelId));
  for (const s of sorted.slice(0, HOME_WEEKLY_MAX)) {
    const kind = s.scheduleKind ?? 'page_views';
    const next = s.nextRunAt ? ` · next ${slackTime(s.nextRunAt)}` : '';
    const zone = escapeMrkdwn(oneLine(s.timeZone, 60));
    const text = `${kindName(kind)} · <#${s.channelId}> · ${inWords(s.cron)} (${zone})${next}`;
    const ref = { kind, channelId: s.channelId };
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) },
      accessory: {
        type: 'overflow',
        action_id: HOME_WEEKLY_MENU_ACTION,
        options: [
          { text: { type: 'plain_text', text: 'Edit' }, value: encodeWeeklyChoice('edit', ref) },
          { text: { type: 'plain_text', text: 'Remove' }, value: encodeWeeklyChoice('remove', ref) },
        ],
      },
    });
  }
  const hidden = schedules.length - HOME_WEEKLY_MAX;
  if (hidden > 0)
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${hidden} more` }] });
  blocks.push({
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: HOME_WEEKLY_ADD_ACTION,
        text: { type: 'plain_text', text: 'Add weekly post' },
      },
    ],
  });
  return blocks;
}

/** What the form shows as set (editing), in the viewer's zone. */
export interface WeeklyFormInput {
  /** The viewer's IANA zone (users.info `tz`); undefined: Slack did not say, UTC is used and said. */
  timeZone: string | undefined;
  editing?: WeeklyRef & { weekday?: Weekday; hour?: number; minute?: number };
  /** A new post's report and channel chosen already (a report's **Schedule…** in that channel). */
  preset?: WeeklyRef;
}

const option = (text: string, value: string): PlainTextOption => ({
  text: { type: 'plain_text', text },
  value,
});
const KIND_OPTIONS = (['page_views', 'health'] as const).map((k) => option(kindName(k), k));
const DAY_OPTIONS = DAY_NAMES.map((d, i) => option(d, String(i)));
const pad = (n: number) => String(n).padStart(2, '0');

/** The weekly-post form: report, channel, day, time, in the viewer's time zone (said in words). */
export function weeklyFormView(input: WeeklyFormInput): ModalView {
  const e = input.editing;
  const zone = input.timeZone ?? 'UTC';
  const zoneWords = input.timeZone
    ? `Your time zone: ${oneLine(zone, 60)}. The post keeps this zone, also when clocks change.`
    : 'Slack did not tell me your time zone, so times are in UTC. Set yours in your Slack profile to use it.';
  const chosen = e ?? input.preset;
  const kind = chosen ? KIND_OPTIONS.find((o) => o.value === chosen.kind) : undefined;
  const day = e?.weekday === undefined ? undefined : DAY_OPTIONS[e.weekday];
  const time =
    e?.hour === undefined || e.minute === undefined ? undefined : `${pad(e.hour)}:${pad(e.minute)}`;
  return {
    type: 'modal',
    callback_id: WEEKLY_FORM_CALLBACK_ID,
    title: { type: 'plain_text', text: e ? 'Edit weekly post' : 'Add weekly post' },
    submit: { type: 'plain_text', text: 'Save' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify({
      tz: zone,
      ...(e ? { was: { kind: e.kind, channelId: e.channelId } } : {}),
    }),
    blocks: [
      {
        type: 'input',
        block_id: WEEKLY_KIND_BLOCK,
        label: { type: 'plain_text', text: 'Report' },
        element: {
          type: 'static_select',
          action_id: FIELD_ACTION,
          options: KIND_OPTIONS,
          ...(kind ? { initial_option: kind } : {}),
        },
      },
      channelPickerInput(WEEKLY_CHANNEL_BLOCK, chosen?.channelId),
      {
        type: 'input',
        block_id: WEEKLY_DAY_BLOCK,
        label: { type: 'plain_text', text: 'Day' },
        element: {
          type: 'static_select',
          action_id: FIELD_ACTION,
          options: DAY_OPTIONS,
          ...(day ? { initial_option: day } : {}),
        },
      },
      {
        type: 'input',
        block_id: WEEKLY_TIME_BLOCK,
        label: { type: 'plain_text', text: 'Time' },
        hint: { type: 'plain_text', text: zoneWords },
        element: { type: 'timepicker', action_id: FIELD_ACTION, ...(time ? { initial_time: time } : {}) },
      },
    ],
  };
}

/** The submitted form, as far as the bot reads it (the rest of Slack's view is ignored). */
export interface SubmittedFormView {
  callback_id?: string;
  private_metadata?: string;
  state?: { values?: Record<string, Record<string, Record<string, unknown>>> };
}

export type WeeklySubmission = WeeklyRef & {
  weekday: Weekday;
  hour: number;
  minute: number;
  timeZone: string;
  was: WeeklyRef | undefined;
};

/** The element's answer of a block, whatever its type. */
export function fieldOf(view: SubmittedFormView, block: string): Record<string, unknown> | undefined {
  return view.state?.values?.[block]?.[FIELD_ACTION];
}

export function metadataOf(view: SubmittedFormView): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(String(view.private_metadata ?? '').slice(0, 3000));
    return parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const selected = (field: Record<string, unknown> | undefined) =>
  (field?.selected_option as { value?: unknown } | null | undefined)?.value;

/** The form's answers, or the field that is missing or unreadable (Slack checks required fields first). */
export function parseWeeklySubmission(view: SubmittedFormView): WeeklySubmission | { missing: string } {
  const kind = selected(fieldOf(view, WEEKLY_KIND_BLOCK));
  if (!isKind(kind)) return { missing: WEEKLY_KIND_BLOCK };
  const channelId = fieldOf(view, WEEKLY_CHANNEL_BLOCK)?.selected_conversation;
  if (typeof channelId !== 'string' || !CHANNEL_ID.test(channelId)) return { missing: WEEKLY_CHANNEL_BLOCK };
  const day = Number(selected(fieldOf(view, WEEKLY_DAY_BLOCK)));
  if (!Number.isInteger(day) || day < 0 || day > 6) return { missing: WEEKLY_DAY_BLOCK };
  const time = TIME.exec(String(fieldOf(view, WEEKLY_TIME_BLOCK)?.selected_time ?? ''));
  if (!time) return { missing: WEEKLY_TIME_BLOCK };
  const meta = metadataOf(view);
  const was = meta.was as Partial<WeeklyRef> | undefined;
  return {
    kind,
    channelId,
    weekday: day as Weekday,
    hour: Number(time[1]),
    minute: Number(time[2]),
    timeZone: typeof meta.tz === 'string' ? meta.tz.slice(0, 64) : 'UTC',
    was:
      was && isKind(was.kind) && CHANNEL_ID.test(String(was.channelId ?? ''))
        ? { kind: was.kind, channelId: String(was.channelId) }
        : undefined,
  };
}

/** The form asking before a weekly post is removed. */
export function weeklyRemoveView(ref: WeeklyRef): ModalView {
  return {
    type: 'modal',
    callback_id: WEEKLY_REMOVE_CALLBACK_ID,
    title: { type: 'plain_text', text: 'Remove weekly post?' },
    submit: { type: 'plain_text', text: 'Remove' },
    close: { type: 'plain_text', text: 'Keep it' },
    private_metadata: JSON.stringify(ref),
    blocks: [
      section(
        `Stop the weekly ${kindName(ref.kind).toLowerCase()} post in <#${ref.channelId}>? Nothing more is posted there; you can add it again from here.`,
      ),
    ],
  };
}

export function parseWeeklyRemove(view: SubmittedFormView): WeeklyRef | undefined {
  const meta = metadataOf(view);
  if (view.callback_id !== WEEKLY_REMOVE_CALLBACK_ID || !isKind(meta.kind)) return undefined;
  const channelId = String(meta.channelId ?? '');
  return CHANNEL_ID.test(channelId) ? { kind: meta.kind, channelId } : undefined;
}
