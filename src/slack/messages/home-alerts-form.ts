import type { KnownBlock, ModalView, PlainTextOption } from '@slack/types';
import {
  channelPickerInput,
  FIELD_ACTION,
  fieldOf,
  metadataOf,
  type SubmittedFormView,
} from './home-schedules-form.js';
import { LIMITS, truncate } from './limits.js';

/** Home's docs-health alerts section: [Add alert channel], and each channel's ⋯ menu (Edit, Turn off). */
export const HOME_ALERT_ADD_ACTION = 'home_alert_add';
export const HOME_ALERT_MENU_ACTION = 'home_alert_menu';
export const ALERT_FORM_CALLBACK_ID = 'home_alert_form';
export const ALERT_REMOVE_CALLBACK_ID = 'home_alert_remove';
export const ALERT_CHANNEL_BLOCK = 'alert_channel';
export const ALERT_SENSITIVITY_BLOCK = 'alert_sensitivity';
/** Alert channels Home lists with their menus. */
export const HOME_ALERTS_MAX = 10;

export type AlertSensitivity = 'low' | 'normal' | 'high';
const SENSITIVITY: Record<AlertSensitivity, string> = {
  low: 'Low: only big, clear changes',
  normal: 'Normal',
  high: 'High: smaller changes too',
};
const CHANNEL_ID = /^[CG][A-Z0-9]{2,30}$/;
const isSensitivity = (v: unknown): v is AlertSensitivity => v === 'low' || v === 'normal' || v === 'high';

export function encodeAlertChoice(choice: 'edit' | 'remove', channelId: string): string {
  return `${choice}|${channelId}`;
}

export function parseAlertChoice(
  value: string | undefined,
): { choice: 'edit' | 'remove'; channelId: string } | undefined {
  const [choice, channelId] = (value ?? '').slice(0, 60).split('|');
  if ((choice !== 'edit' && choice !== 'remove') || !CHANNEL_ID.test(channelId ?? '')) return undefined;
  return { choice, channelId: channelId! };
}

const section = (text: string): KnownBlock => ({
  type: 'section',
  text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) },
});

/** The person's alert channels with their menus, and [Add alert channel]. */
export function homeAlertBlocks(alerts: Array<{ channelId: string; sensitivity: string }>): KnownBlock[] {
  const blocks: KnownBlock[] = [section('*Your docs-health alerts*')];
  if (alerts.length === 0)
    blocks.push({
      type: 'context',
      elements: [
        { type: 'mrkdwn', text: 'None yet. A channel with alerts hears when readers suddenly get stuck.' },
      ],
    });
  const sorted = [...alerts].sort((a, b) => a.channelId.localeCompare(b.channelId));
  for (const a of sorted.slice(0, HOME_ALERTS_MAX)) {
    const level = isSensitivity(a.sensitivity) ? a.sensitivity : 'normal';
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: `<#${a.channelId}> · ${level} sensitivity` },
      accessory: {
        type: 'overflow',
        action_id: HOME_ALERT_MENU_ACTION,
        options: [
          { text: { type: 'plain_text', text: 'Edit' }, value: encodeAlertChoice('edit', a.channelId) },
          { text: { type: 'plain_text', text: 'Turn off' }, value: encodeAlertChoice('remove', a.channelId) },
        ],
      },
    });
  }
  const hidden = alerts.length - HOME_ALERTS_MAX;
  if (hidden > 0)
    blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: `…and ${hidden} more` }] });
  blocks.push({
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: HOME_ALERT_ADD_ACTION,
        text: { type: 'plain_text', text: 'Add alert channel' },
      },
    ],
  });
  return blocks;
}

const option = (s: AlertSensitivity): PlainTextOption => ({
  text: { type: 'plain_text', text: SENSITIVITY[s] },
  value: s,
});

/** The alert form: a channel and a sensitivity (editing: the channel's current ones). */
export function alertFormView(editing?: { channelId: string; sensitivity: string }): ModalView {
  const level = editing && isSensitivity(editing.sensitivity) ? editing.sensitivity : 'normal';
  return {
    type: 'modal',
    callback_id: ALERT_FORM_CALLBACK_ID,
    title: { type: 'plain_text', text: editing ? 'Edit alerts' : 'Add alert channel' },
    submit: { type: 'plain_text', text: 'Save' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify(editing ? { was: editing.channelId } : {}),
    blocks: [
      channelPickerInput(ALERT_CHANNEL_BLOCK, editing?.channelId),
      {
        type: 'input',
        block_id: ALERT_SENSITIVITY_BLOCK,
        label: { type: 'plain_text', text: 'Sensitivity' },
        element: {
          type: 'static_select',
          action_id: FIELD_ACTION,
          options: (['low', 'normal', 'high'] as const).map(option),
          initial_option: option(level),
        },
      },
    ],
  };
}

export interface AlertSubmission {
  channelId: string;
  sensitivity: AlertSensitivity;
  was: string | undefined;
}

export function parseAlertSubmission(view: SubmittedFormView): AlertSubmission | { missing: string } {
  const channelId = fieldOf(view, ALERT_CHANNEL_BLOCK)?.selected_conversation;
  if (typeof channelId !== 'string' || !CHANNEL_ID.test(channelId)) return { missing: ALERT_CHANNEL_BLOCK };
  const level = (fieldOf(view, ALERT_SENSITIVITY_BLOCK)?.selected_option as { value?: unknown } | null)
    ?.value;
  if (!isSensitivity(level)) return { missing: ALERT_SENSITIVITY_BLOCK };
  const was = String(metadataOf(view).was ?? '');
  return { channelId, sensitivity: level, was: CHANNEL_ID.test(was) ? was : undefined };
}

/** The question before a channel's alerts are turned off. */
export function alertRemoveView(channelId: string): ModalView {
  return {
    type: 'modal',
    callback_id: ALERT_REMOVE_CALLBACK_ID,
    title: { type: 'plain_text', text: 'Turn off alerts?' },
    submit: { type: 'plain_text', text: 'Turn off' },
    close: { type: 'plain_text', text: 'Keep them' },
    private_metadata: JSON.stringify({ channelId }),
    blocks: [section(`Stop docs-health alerts in <#${channelId}>? You can turn them on again from here.`)],
  };
}

export function parseAlertRemove(view: SubmittedFormView): string | undefined {
  if (view.callback_id !== ALERT_REMOVE_CALLBACK_ID) return undefined;
  const channelId = String(metadataOf(view).channelId ?? '');
  return CHANNEL_ID.test(channelId) ? channelId : undefined;
}
