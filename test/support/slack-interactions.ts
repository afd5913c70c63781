import { randomBytes } from 'node:crypto';
import { BOT_USER_ID, nextMessageTs, TEAM_ID } from './slack-events.js';
import { postSigned } from './slack-signing.js';

// The Events API envelopes of the same surfaces (reactions, Home) live with the other events.
export {
  appHomeOpenedEnvelope,
  postEvent,
  type ReactionFields,
  reactionAddedEnvelope,
} from './slack-events.js';

/**
 * Interaction payloads and Events API envelopes for the shortcut, modal, Home and reaction surfaces, shaped
 * as Slack sends them (https://api.slack.com/reference/interaction-payloads). Interactions arrive
 * form-encoded as `payload=<json>`; events as JSON envelopes (`eventEnvelope`).
 */

const APP_ID = 'A0DOCSAGENT';
type Json = Record<string, unknown>;

export interface Actor {
  userId?: string;
  userName?: string;
}

function user({ userId = 'U0ALICE', userName = 'alice' }: Actor): Json {
  return { id: userId, username: userName, name: userName, team_id: TEAM_ID };
}

const team = { id: TEAM_ID, domain: 'acme' };

function actionTs(): string {
  return `${(Date.now() / 1000).toFixed(6)}`;
}

/** The form body Slack posts for any interaction. */
export function interactionBody(payload: Json): string {
  return new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
}

export interface MessageActionFields extends Actor {
  callbackId?: string;
  triggerId: string;
  responseUrl: string;
  channelId?: string;
  channelName?: string;
  /** The message the shortcut was used on. */
  message: {
    text: string;
    user?: string;
    ts?: string;
    thread_ts?: string;
    blocks?: unknown[];
    bot_id?: string;
  };
}

/** A message shortcut ("Send to docs agent") on a message; `message.thread_ts` marks a reply in a thread. */
export function messageActionPayload(fields: MessageActionFields): Json {
  const ts = fields.message.ts ?? nextMessageTs();
  const { user: author = 'U0BOB', ...rest } = fields.message;
  return {
    type: 'message_action',
    token: 'deprecated-verification-token',
    action_ts: actionTs(),
    team,
    user: user(fields),
    channel: { id: fields.channelId ?? 'C0DOCS', name: fields.channelName ?? 'docs' },
    is_enterprise_install: false,
    enterprise: null,
    callback_id: fields.callbackId ?? 'docs_agent_from_message',
    trigger_id: fields.triggerId,
    response_url: fields.responseUrl,
    message_ts: ts,
    message: { type: 'message', user: author, team: TEAM_ID, ...rest, ts },
  };
}

/** `view.state.values[block_id][action_id]` as Slack fills it for the elements the bot uses. */
export type StateValue =
  | { type: 'plain_text_input'; value: string | null }
  | { type: 'checkboxes'; selected_options: Array<{ text: Json; value: string }> }
  | { type: 'conversations_select'; selected_conversation: string | null }
  | { type: 'radio_buttons'; selected_option: { text: Json; value: string } | null }
  | { type: 'static_select'; selected_option: { text: Json; value: string } | null }
  | { type: 'timepicker'; selected_time: string | null; timezone?: string }
  | { type: 'multi_users_select'; selected_users: string[] };

export interface ViewSubmissionFields extends Actor {
  /** The view as the bot opened it (title, blocks, callback_id, private_metadata…). */
  view: Json;
  values: Record<string, Record<string, StateValue>>;
  viewId?: string;
  triggerId?: string;
}

/** A modal submitted: Slack echoes the view with its id, hash and the user's input in `state.values`. */
export function viewSubmissionPayload(fields: ViewSubmissionFields): Json {
  const viewId = fields.viewId ?? `V${randomBytes(5).toString('hex').toUpperCase()}`;
  return {
    type: 'view_submission',
    team,
    user: user(fields),
    api_app_id: APP_ID,
    token: 'deprecated-verification-token',
    trigger_id: fields.triggerId ?? `${Date.now()}.1.${randomBytes(8).toString('hex')}`,
    view: {
      id: viewId,
      team_id: TEAM_ID,
      type: 'modal',
      private_metadata: '',
      callback_id: '',
      hash: `${Math.floor(Date.now() / 1000)}.${randomBytes(4).toString('hex')}`,
      clear_on_close: false,
      notify_on_close: false,
      external_id: '',
      ...fields.view,
      state: { values: fields.values },
      root_view_id: viewId,
      previous_view_id: null,
      app_id: APP_ID,
      app_installed_team_id: TEAM_ID,
      bot_id: 'B0DOCSBOT',
    },
    response_urls: [],
    is_enterprise_install: false,
    enterprise: null,
  };
}

export interface BlockActionFields extends Actor {
  triggerId: string;
  /** A button; with `selected`, an overflow menu's chosen option (its value and text). */
  action: { action_id: string; block_id?: string; value?: string; text?: string; selected?: string };
  /** Where the button is: a Home/modal view, or a message (then channel and response_url come along). */
  container:
    | { type: 'view'; view: Json; viewId?: string }
    | {
        type: 'message';
        channelId: string;
        messageTs: string;
        responseUrl: string;
        ephemeral?: boolean;
        /** The message as Slack shows it (its text and blocks come along in `body.message`). */
        message?: { text?: string; blocks?: unknown[] };
      };
}

/** A button clicked (`block_actions`), carrying a fresh trigger_id the bot may open a modal with. */
export function blockActionsPayload(fields: BlockActionFields): Json {
  const { action, container } = fields;
  const block_id = action.block_id ?? randomBytes(3).toString('hex');
  const clicked =
    action.selected === undefined
      ? {
          type: 'button',
          action_id: action.action_id,
          block_id,
          text: { type: 'plain_text', text: action.text ?? 'Button', emoji: true },
          ...(action.value === undefined ? {} : { value: action.value }),
          action_ts: actionTs(),
        }
      : {
          type: 'overflow',
          action_id: action.action_id,
          block_id,
          selected_option: {
            text: { type: 'plain_text', text: action.text ?? 'Option', emoji: true },
            value: action.selected,
          },
          action_ts: actionTs(),
        };
  const base = {
    type: 'block_actions',
    user: user(fields),
    api_app_id: APP_ID,
    token: 'deprecated-verification-token',
    trigger_id: fields.triggerId,
    team,
    enterprise: null,
    is_enterprise_install: false,
    actions: [clicked],
  };
  if (container.type === 'view') {
    const viewId = container.viewId ?? `V${randomBytes(5).toString('hex').toUpperCase()}`;
    return {
      ...base,
      container: { type: 'view', view_id: viewId },
      view: { id: viewId, team_id: TEAM_ID, app_id: APP_ID, bot_id: 'B0DOCSBOT', ...container.view },
    };
  }
  return {
    ...base,
    container: {
      type: 'message',
      message_ts: container.messageTs,
      channel_id: container.channelId,
      is_ephemeral: container.ephemeral ?? false,
    },
    channel: { id: container.channelId, name: 'docs' },
    message: {
      type: 'message',
      ts: container.messageTs,
      user: BOT_USER_ID,
      bot_id: 'B0DOCSBOT',
      ...(container.message ?? {}),
    },
    response_url: container.responseUrl,
  };
}

export interface FeedbackClickFields extends Actor {
  /** The value of the button clicked (the positive or the negative one, as the bot wrote it). */
  value: string;
  actionId?: string;
  blockId?: string;
  channelId?: string;
  /** The reply the buttons are on, and the thread it is in. */
  messageTs: string;
  threadTs?: string;
  responseUrl: string;
}

/**
 * A click on Slack's feedback buttons (`block_actions` with a `feedback_buttons` action): the clicked
 * button's value and text, in a message container that names the reply and its thread.
 */
export function feedbackClickPayload(fields: FeedbackClickFields): Json {
  const channelId = fields.channelId ?? 'C0DOCS';
  const thread = fields.threadTs ? { thread_ts: fields.threadTs } : {};
  return {
    type: 'block_actions',
    user: user(fields),
    api_app_id: APP_ID,
    token: 'deprecated-verification-token',
    trigger_id: `${Date.now()}.1.${randomBytes(8).toString('hex')}`,
    team,
    enterprise: null,
    is_enterprise_install: false,
    container: {
      type: 'message',
      message_ts: fields.messageTs,
      channel_id: channelId,
      is_ephemeral: false,
      ...thread,
    },
    channel: { id: channelId, name: 'docs' },
    message: { type: 'message', ts: fields.messageTs, user: BOT_USER_ID, bot_id: 'B0DOCSBOT', ...thread },
    response_url: fields.responseUrl,
    actions: [
      {
        type: 'feedback_buttons',
        action_id: fields.actionId ?? 'job_feedback',
        block_id: fields.blockId ?? 'job_feedback_1',
        value: fields.value,
        text: { type: 'plain_text', text: fields.value.startsWith('useful') ? '👍' : '👎', emoji: true },
        action_ts: actionTs(),
      },
    ],
  };
}

/** Posts an interaction payload to the app, signed. */
export function postInteraction(url: string, payload: Json, secret: string) {
  return postSigned(url, interactionBody(payload), secret);
}
