import type { KnownBlock, ModalView } from '@slack/types';
import type { SlackAppTier } from '../../common/config.js';
import { findSecret, scrubSecrets } from '../../common/secret-shapes.js';
import { threadUnreadText } from '../copy/tier-words.js';
import { escapeMrkdwn, submittedText } from '../markup.js';
import { oneLine, truncate } from './limits.js';
import { secretInFormText } from './secret-notice.js';

/** Identifies the modal's submission (`view_submission`), shared by the message shortcut and Home's button. */
export const JOB_MODAL_CALLBACK_ID = 'docs_agent_job_modal';
export const INSTRUCTION_BLOCK = 'instruction';
export const INSTRUCTION_ACTION = 'instruction_input';
export const CONTEXT_BLOCK = 'thread_context';
export const CONTEXT_ACTION = 'include_context';
/** The channel picker of the job modal opened from Home (Home has no conversation of its own). */
export const CHANNEL_BLOCK = 'channel';
export const CHANNEL_ACTION = 'channel_input';
const CHANNEL_ID = /^[CG][A-Z0-9]{2,}$/;
const CONTEXT_VALUE = 'include';

/** Slack's modal limits: a plain_text_input holds 3000 characters; private_metadata 3000. */
export const MODAL_LIMITS = { inputValue: 3000, privateMetadata: 3000, previewMessages: 5, previewLine: 200 };

export type JobModalOrigin = 'message_shortcut' | 'home';

/** Refs only (never text, tokens or keys): where the job's card goes and what started it. */
export interface JobModalRefs {
  origin: JobModalOrigin;
  channelId?: string;
  /** The thread the card is posted in (the message's thread, else the message). */
  threadTs?: string;
  messageTs?: string;
  /** The channel whose docs project the job acts on, when not `channelId` (the assistant's context channel). */
  projectChannelId?: string;
}

export interface JobModalInput {
  refs: JobModalRefs;
  /** Prefilled instruction, already plain text. */
  instruction?: string;
  /** The thread's earlier messages (plain text, oldest first), offered as optional context. */
  earlierMessages?: Array<{ author: string; text: string }>;
  /** What the context option sends of them (its messages are the newest ones), stated in the preview. */
  context?: { sent: number; chars: number; leftOut: number; firstPage?: boolean };
  /** The thread's earlier messages could not be read now: said in the form, in the app tier's words. */
  threadUnread?: SlackAppTier;
}

/**
 * Where the card of a job started from Home goes. Slack's picker lists every public channel; the
 * submission accepts only one the user and the bot are both members of (checked then, never joined).
 */
function channelPicker(): KnownBlock {
  return {
    type: 'input',
    block_id: CHANNEL_BLOCK,
    label: { type: 'plain_text', text: 'Channel for the job card' },
    hint: {
      type: 'plain_text',
      text: "A channel you're in, where the bot was invited (/invite @docs-agent). The job's card and thread go there; replies in that thread steer the job.",
    },
    element: {
      type: 'conversations_select',
      action_id: CHANNEL_ACTION,
      placeholder: { type: 'plain_text', text: 'Pick a channel' },
      filter: { include: ['public', 'private'], exclude_bot_users: true },
    },
  };
}

/** The "Send to docs agent" / "New job" modal. Pure; fits Slack's limits whatever the input. */
export function jobModalView(input: JobModalInput): ModalView {
  // A message holding a credential is offered without it: the form would refuse it anyway (issue 44).
  const chars = Array.from(scrubSecrets(input.instruction ?? ''));
  const cut = chars.length > MODAL_LIMITS.inputValue;
  const pickChannel = input.refs.origin === 'home' && !input.refs.channelId;
  const blocks: KnownBlock[] = [
    ...(pickChannel ? [channelPicker()] : []),
    {
      type: 'input',
      block_id: INSTRUCTION_BLOCK,
      label: { type: 'plain_text', text: 'What should the docs agent do?' },
      element: {
        type: 'plain_text_input',
        action_id: INSTRUCTION_ACTION,
        multiline: true,
        max_length: MODAL_LIMITS.inputValue,
        ...(chars.length > 0 ? { initial_value: chars.slice(0, MODAL_LIMITS.inputValue).join('') } : {}),
        placeholder: { type: 'plain_text', text: 'e.g. Document the new --dry-run flag in the CLI guide' },
      },
    },
  ];
  if (cut)
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: `:warning: The message was ${chars.length.toLocaleString('en-US')} characters; only the first ${MODAL_LIMITS.inputValue.toLocaleString('en-US')} fit in the box. Edit it down or add what matters.`,
        },
      ],
    });
  const earlier = input.earlierMessages ?? [];
  if (input.threadUnread)
    blocks.push({
      type: 'context',
      elements: [
        {
          type: 'mrkdwn',
          text: threadUnreadText(input.threadUnread),
        },
      ],
    });
  if (earlier.length > 0) {
    blocks.push({
      type: 'input',
      block_id: CONTEXT_BLOCK,
      optional: true,
      label: { type: 'plain_text', text: 'Context' },
      element: {
        type: 'checkboxes',
        action_id: CONTEXT_ACTION,
        options: [
          {
            text: { type: 'plain_text', text: "Include the thread's earlier messages" },
            value: CONTEXT_VALUE,
          },
        ],
      },
    });
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: previewText(earlier, input.context) }],
    });
  }
  return {
    type: 'modal',
    callback_id: JOB_MODAL_CALLBACK_ID,
    title: { type: 'plain_text', text: pickChannel ? 'New docs agent job' : 'Send to docs agent' },
    submit: { type: 'plain_text', text: 'Start job' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: encodeRefs(input.refs),
    blocks,
  };
}

/**
 * The preview says exactly what checking the box sends (how many of the messages, how many characters),
 * then shows the newest of those, cut short: a preview that only showed 5 lines of 200 characters while
 * 50 messages and 6,000 characters went to the agent misled about what was sent.
 */
function previewText(
  earlier: Array<{ author: string; text: string }>,
  context: NonNullable<JobModalInput['context']> = { sent: earlier.length, chars: 0, leftOut: 0 },
): string {
  const sent = earlier.slice(earlier.length - context.sent);
  const shown = sent.slice(-MODAL_LIMITS.previewMessages);
  const lines = shown.map(
    (m) =>
      `> *${escapeMrkdwn(oneLine(m.author, 40))}*: ${escapeMrkdwn(oneLine(scrubSecrets(m.text), MODAL_LIMITS.previewLine))}`,
  );
  const count = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'message' : 'messages'}`;
  const size = context.chars > 0 ? ` (${context.chars.toLocaleString('en-US')} characters)` : '';
  const left =
    context.leftOut > 0 ? ` The ${count(context.leftOut)} before them do not fit and are left out.` : '';
  const cut =
    shown.length < sent.length
      ? `Below: the last ${shown.length}, each cut at ${MODAL_LIMITS.previewLine} characters.`
      : `Below, each cut at ${MODAL_LIMITS.previewLine} characters.`;
  // One page of a long thread holds its first messages, not the last ones before this message: said so.
  const which = context.firstPage
    ? `first ${count(sent.length)} in full${size}; the replies after them (up to this message) did not fit in the one page read and are left out`
    : `last ${count(sent.length)} in full${size}`;
  const head = `If checked, the agent gets the thread's ${which}.${left} ${cut}`;
  return truncate([head, ...lines].join('\n'), 3000);
}

/** Short keys keep the metadata far below Slack's 3000 characters. */
export function encodeRefs(refs: JobModalRefs): string {
  const compact = {
    o: refs.origin,
    ...(refs.channelId ? { c: refs.channelId } : {}),
    ...(refs.threadTs ? { t: refs.threadTs } : {}),
    ...(refs.messageTs ? { m: refs.messageTs } : {}),
    ...(refs.projectChannelId ? { p: refs.projectChannelId } : {}),
  };
  return JSON.stringify(compact);
}

const ORIGINS: readonly string[] = ['message_shortcut', 'home'];
const REF = /^[A-Za-z0-9._:-]{1,200}$/;

export function decodeRefs(metadata: string | undefined): JobModalRefs | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(metadata ?? '');
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const r = raw as Record<string, unknown>;
  if (typeof r.o !== 'string' || !ORIGINS.includes(r.o)) return undefined;
  const field = (value: unknown) => (typeof value === 'string' && REF.test(value) ? value : undefined);
  const refs: JobModalRefs = { origin: r.o as JobModalOrigin };
  for (const [key, name] of [
    ['c', 'channelId'],
    ['t', 'threadTs'],
    ['m', 'messageTs'],
    ['p', 'projectChannelId'],
  ] as const) {
    if (r[key] === undefined) continue;
    const value = field(r[key]);
    if (value === undefined) return undefined;
    refs[name] = value;
  }
  return refs;
}

/** What Slack sends in `view_submission`: `view.state.values` and the view's `private_metadata`. */
export interface SubmittedView {
  callback_id?: string;
  private_metadata?: string;
  state?: {
    values?: Record<
      string,
      Record<
        string,
        {
          value?: string | null;
          selected_options?: Array<{ value?: string }>;
          selected_conversation?: string | null;
        }
      >
    >;
  };
}

export interface JobSubmission {
  instruction: string;
  includeContext: boolean;
  refs: JobModalRefs;
}

/** Slack shows `errors` under the named input blocks and keeps the modal open. */
export interface SubmissionErrors {
  response_action: 'errors';
  errors: Record<string, string>;
}

export type ParsedSubmission =
  | { ok: true; submission: JobSubmission }
  | { ok: false; response: SubmissionErrors }
  /** Not ours or tampered with: nothing the user can fix in the form; the caller closes it and explains. */
  | { ok: false; code: 'invalid_job_modal'; message: string };

/** Reads the modal's submission; validation errors name the block so Slack shows them in place. */
export function parseJobSubmission(view: SubmittedView): ParsedSubmission {
  if (view.callback_id !== JOB_MODAL_CALLBACK_ID)
    return { ok: false, code: 'invalid_job_modal', message: 'This form is not a docs agent job form.' };
  const refs = decodeRefs(view.private_metadata);
  if (!refs)
    return {
      ok: false,
      code: 'invalid_job_modal',
      message: 'This form lost track of where it was opened. Close it and open it again.',
    };
  const values = view.state?.values ?? {};
  const instruction = submittedText(
    values[INSTRUCTION_BLOCK]?.[INSTRUCTION_ACTION]?.value,
    MODAL_LIMITS.inputValue,
  );
  const errors: Record<string, string> = {};
  if (refs.origin === 'home' && !refs.channelId) {
    const picked = values[CHANNEL_BLOCK]?.[CHANNEL_ACTION]?.selected_conversation ?? '';
    if (CHANNEL_ID.test(picked)) refs.channelId = picked;
    else errors[CHANNEL_BLOCK] = "Pick the channel where the job's card should go.";
  }
  const secret = findSecret(instruction);
  if (instruction === '') errors[INSTRUCTION_BLOCK] = 'Write what the docs agent should do.';
  else if (secret) errors[INSTRUCTION_BLOCK] = secretInFormText(secret.kind);
  else if (Array.from(instruction).length > MODAL_LIMITS.inputValue)
    errors[INSTRUCTION_BLOCK] =
      `Keep it under ${MODAL_LIMITS.inputValue.toLocaleString('en-US')} characters.`;
  if (Object.keys(errors).length > 0) return { ok: false, response: { response_action: 'errors', errors } };
  const selected = values[CONTEXT_BLOCK]?.[CONTEXT_ACTION]?.selected_options ?? [];
  const includeContext = selected.some(
    (option) =>
      typeof option === 'object' &&
      option !== null &&
      (option as { value?: unknown }).value === CONTEXT_VALUE,
  );
  return { ok: true, submission: { instruction, includeContext, refs } };
}
