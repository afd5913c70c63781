import type { ModalView, PlainTextOption } from '@slack/types';
import { submittedText } from '../markup.js';

/** Identifies the connect form's submission (`view_submission`), from `/docs-agent connect` and Home. */
export const CONNECT_MODAL_CALLBACK_ID = 'docs_project_connect';
export const PROJECT_BLOCK = 'project_id';
export const PROJECT_ACTION = 'project_id_input';
export const KEY_BLOCK = 'admin_key';
export const KEY_ACTION = 'admin_key_input';
export const SCOPE_BLOCK = 'scope';
export const SCOPE_ACTION = 'scope_choice';
const CHANNEL_ID = /^[CG][A-Z0-9]{2,30}$/;
/** Longer than any id or key the form accepts: what is longer is refused as malformed, never cut. */
const FIELD_MAX = 300;

/** What a form carries between opening and submission: where it was opened, never a secret. */
export interface ConnectFormRefs {
  /** The channel `/docs-agent connect` ran in (absent from Home or a DM). */
  channelId?: string;
  /** Opened from Home: Home is published again after the submission. */
  fromHome?: boolean;
}

const option = (value: 'channel' | 'workspace', text: string): PlainTextOption => ({
  value,
  text: { type: 'plain_text', text },
});

/** The connect form: project id, admin key, and (in a channel) this channel or the whole workspace. */
export function connectModalView(refs: ConnectFormRefs): ModalView {
  const channelId = refs.channelId && CHANNEL_ID.test(refs.channelId) ? refs.channelId : undefined;
  const workspace = option('workspace', 'The whole workspace');
  const metadata: ConnectFormRefs = {
    ...(channelId ? { channelId } : {}),
    ...(refs.fromHome ? { fromHome: true } : {}),
  };
  return {
    type: 'modal',
    callback_id: CONNECT_MODAL_CALLBACK_ID,
    private_metadata: JSON.stringify(metadata),
    title: { type: 'plain_text', text: 'Connect docs project' },
    submit: { type: 'plain_text', text: 'Connect' },
    close: { type: 'plain_text', text: 'Cancel' },
    blocks: [
      {
        type: 'input',
        block_id: PROJECT_BLOCK,
        label: { type: 'plain_text', text: 'Project ID' },
        hint: { type: 'plain_text', text: "On your docs platform's API keys page." },
        element: {
          type: 'plain_text_input',
          action_id: PROJECT_ACTION,
          max_length: 128,
          placeholder: { type: 'plain_text', text: 'proj_…' },
        },
      },
      {
        type: 'input',
        block_id: KEY_BLOCK,
        label: { type: 'plain_text', text: 'Admin API key' },
        hint: {
          type: 'plain_text',
          text: 'Starts with svc_. Checked with one read before it is saved, stored encrypted, and only ever shown again as svc_…abcd.',
        },
        element: {
          type: 'plain_text_input',
          action_id: KEY_ACTION,
          max_length: 260,
          placeholder: { type: 'plain_text', text: 'svc_…' },
        },
      },
      channelId
        ? {
            type: 'input',
            block_id: SCOPE_BLOCK,
            label: { type: 'plain_text', text: 'Use it for' },
            element: {
              type: 'radio_buttons',
              action_id: SCOPE_ACTION,
              initial_option: workspace,
              options: [workspace, option('channel', 'This channel only')],
            },
          }
        : {
            type: 'context',
            elements: [
              {
                type: 'mrkdwn',
                text: 'This connects the project for the whole workspace. To connect one channel to its own project, run `/docs-agent connect` in that channel.',
              },
            ],
          },
    ],
  };
}

/** A submitted connect form as Slack sends it back (the parts read here). */
export interface SubmittedConnectView {
  callback_id?: string;
  private_metadata?: string;
  state?: {
    values?: Record<
      string,
      Record<string, { value?: string | null; selected_option?: { value?: string } | null } | undefined>
    >;
  };
}

export interface ConnectSubmission {
  refs: ConnectFormRefs;
  projectId: string;
  apiKey: string;
  scope: 'channel' | 'workspace';
}

/** Reads the form (texts through the same sanitiser as every submitted form); undefined when it is not ours. */
export function parseConnectSubmission(view: SubmittedConnectView): ConnectSubmission | undefined {
  if (view.callback_id !== CONNECT_MODAL_CALLBACK_ID) return undefined;
  let refs: ConnectFormRefs = {};
  try {
    const parsed = JSON.parse(view.private_metadata || '{}') as Record<string, unknown>;
    const channelId =
      typeof parsed.channelId === 'string' && CHANNEL_ID.test(parsed.channelId)
        ? parsed.channelId
        : undefined;
    refs = { ...(channelId ? { channelId } : {}), ...(parsed.fromHome === true ? { fromHome: true } : {}) };
  } catch {
    return undefined;
  }
  const values = view.state?.values ?? {};
  const chosen = values[SCOPE_BLOCK]?.[SCOPE_ACTION]?.selected_option?.value;
  return {
    refs,
    projectId: submittedText(values[PROJECT_BLOCK]?.[PROJECT_ACTION]?.value, FIELD_MAX),
    apiKey: submittedText(values[KEY_BLOCK]?.[KEY_ACTION]?.value, FIELD_MAX),
    scope: chosen === 'channel' && refs.channelId ? 'channel' : 'workspace',
  };
}
