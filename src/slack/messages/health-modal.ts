import type { KnownBlock, ModalView } from '@slack/types';
import { findSecret } from '../../common/secret-shapes.js';
import type { Evidence } from '../../insights/health/evidence.js';
import { decodeEvidenceRef, encodeEvidenceRef } from '../../insights/health/evidence-ref.js';
import { isEvidenceId } from '../../insights/health/health-evidence.js';
import { fixRequestFor } from '../../insights/health/instruction.js';
import { submittedText } from '../markup.js';
import { evidenceSummary } from './evidence-summary.js';
import type { SubmissionErrors, SubmittedView } from './job-modal.js';
import { secretInFormText } from './secret-notice.js';

export const HEALTH_MODAL_CALLBACK = 'health_fix_submit';
export const HEALTH_INSTRUCTION_BLOCK = 'health_instruction';
export const HEALTH_INSTRUCTION_ACTION = 'instruction';
/** Opened from Home (no channel there): where the job's card goes, picked in the form. */
export const HEALTH_CHANNEL_BLOCK = 'health_channel';
export const HEALTH_CHANNEL_ACTION = 'channel';
/**
 * The person's request, at most this long: with the readers' data the agent gets (≤ 2,900 characters) it
 * stays within a job's 4,000.
 */
const INPUT_MAX = 1000;

/**
 * What the submission needs back: where the report was shown and which evidence started the job, by its id
 * in the evidence store (`evidenceRef`, the evidence itself, only when no store is wired).
 */
export interface HealthModalMetadata {
  /** Absent: opened from Home, the channel is picked in the form. */
  channelId?: string;
  /** The shared message clicked (an alert, a posted report): the job's card goes in its thread. */
  threadTs?: string;
  /** The Fix button clicked on that message (its action id): the row the message shows as being fixed. */
  row?: string;
  evidenceId?: string;
  evidenceRef?: string;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * The modal a fix button opens: a plain request prefilled, editable, with the readers' data shown above it;
 * submitting starts a job with the request and, after it, that data quoted as data (never in the box for a
 * person to edit). Says when invisible characters were removed from readers' text.
 * `private_metadata` carries the channel and the evidence id (short, whatever the evidence), no secrets.
 */
export function healthFixModal(
  evidence: Evidence,
  channelId: string | undefined,
  evidenceId?: string,
  threadTs?: string,
  row?: string,
): ModalView {
  const metadata: HealthModalMetadata = {
    ...(channelId === undefined ? {} : { channelId }),
    ...(threadTs === undefined ? {} : { threadTs }),
    ...(threadTs === undefined || row === undefined ? {} : { row }),
    ...(evidenceId === undefined ? { evidenceRef: encodeEvidenceRef(evidence) } : { evidenceId }),
  };
  const removed = evidence.removed ?? 0;
  const notes = [
    "The readers' data above goes with your request, marked as their words, not instructions to the agent.",
    ...(removed > 0
      ? [
          `:warning: ${plural(removed, 'invisible character')} (hidden or direction-changing Unicode) ${removed === 1 ? 'was' : 'were'} removed from the readers' text.`,
        ]
      : []),
  ];
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `From readers' data: ${evidenceSummary(evidence)}.`,
      },
    },
    {
      type: 'input',
      block_id: HEALTH_INSTRUCTION_BLOCK,
      label: { type: 'plain_text', text: 'What should the docs agent do?' },
      element: {
        type: 'plain_text_input',
        action_id: HEALTH_INSTRUCTION_ACTION,
        multiline: true,
        initial_value: fixRequestFor(evidence),
        max_length: INPUT_MAX,
      },
    },
    ...(channelId === undefined ? [channelPicker()] : []),
    { type: 'context', elements: notes.map((text) => ({ type: 'mrkdwn' as const, text })) },
  ];
  return {
    type: 'modal',
    callback_id: HEALTH_MODAL_CALLBACK,
    title: { type: 'plain_text', text: 'Fix a docs gap' },
    submit: { type: 'plain_text', text: 'Start job' },
    close: { type: 'plain_text', text: 'Cancel' },
    private_metadata: JSON.stringify(metadata),
    blocks,
  };
}

function channelPicker(): KnownBlock {
  return {
    type: 'input',
    block_id: HEALTH_CHANNEL_BLOCK,
    label: { type: 'plain_text', text: 'Channel for the job card' },
    element: {
      type: 'conversations_select',
      action_id: HEALTH_CHANNEL_ACTION,
      placeholder: { type: 'plain_text', text: 'Pick a channel' },
      filter: { include: ['public', 'private'], exclude_bot_users: true },
    },
  };
}

export type ParsedHealthFix =
  | {
      ok: true;
      channelId: string;
      /** The shared message's ts when the button was on one (not an ephemeral report). */
      threadTs?: string;
      /** The Fix button clicked on it. */
      row?: string;
      evidence: { id: string } | { ref: string };
      instruction: string;
    }
  | { ok: false; response: SubmissionErrors }
  /** Not ours or tampered with: nothing the user can fix in the form. */
  | { ok: false; code: 'invalid_health_modal'; message: string };

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;
const MESSAGE_TS = /^\d{10}\.\d{6}$/;
const ROW = /^health_fix_(search|page|question)_\d{1,3}$/;

/** Reads the fix modal's submission; what the user can fix is named under the instruction. */
export function parseHealthFixSubmission(view: SubmittedView): ParsedHealthFix {
  const lost = {
    ok: false as const,
    code: 'invalid_health_modal' as const,
    message: 'This form lost track of the report it came from. Run `/docs-health` again.',
  };
  if (view.callback_id !== HEALTH_MODAL_CALLBACK) return lost;
  let metadata: Partial<HealthModalMetadata>;
  try {
    metadata = JSON.parse(view.private_metadata ?? '') as Partial<HealthModalMetadata>;
  } catch {
    return lost;
  }
  const { threadTs, row, evidenceId, evidenceRef } = metadata ?? {};
  // From Home the channel is picked in the form; anything else carries it in the metadata.
  const picked = metadata?.channelId === undefined;
  const channelId = picked
    ? view.state?.values?.[HEALTH_CHANNEL_BLOCK]?.[HEALTH_CHANNEL_ACTION]?.selected_conversation
    : metadata.channelId;
  if (picked && (typeof channelId !== 'string' || !CHANNEL_ID.test(channelId)))
    return {
      ok: false,
      response: {
        response_action: 'errors',
        errors: { [HEALTH_CHANNEL_BLOCK]: "Pick the channel where the job's card should go." },
      },
    };
  if (typeof channelId !== 'string' || !CHANNEL_ID.test(channelId)) return lost;
  if (threadTs !== undefined && (typeof threadTs !== 'string' || !MESSAGE_TS.test(threadTs))) return lost;
  // A row we cannot name only costs the message its "Fixing" line, never the job.
  const shown = threadTs !== undefined && typeof row === 'string' && ROW.test(row) ? { row } : {};
  const evidence =
    typeof evidenceId === 'string' && isEvidenceId(evidenceId)
      ? { id: evidenceId }
      : typeof evidenceRef === 'string' && decodeEvidenceRef(evidenceRef)
        ? { ref: evidenceRef }
        : undefined;
  if (!evidence) return lost;
  const instruction = submittedText(
    view.state?.values?.[HEALTH_INSTRUCTION_BLOCK]?.[HEALTH_INSTRUCTION_ACTION]?.value,
    INPUT_MAX,
  );
  const secret = findSecret(instruction);
  const error =
    instruction === ''
      ? 'Write what the docs agent should do.'
      : secret
        ? secretInFormText(secret.kind)
        : Array.from(instruction).length > INPUT_MAX
          ? `Keep it under ${INPUT_MAX.toLocaleString('en-US')} characters.`
          : undefined;
  if (error)
    return {
      ok: false,
      response: { response_action: 'errors', errors: { [HEALTH_INSTRUCTION_BLOCK]: error } },
    };
  return {
    ok: true,
    channelId,
    ...(threadTs === undefined ? {} : { threadTs }),
    ...shown,
    evidence,
    instruction,
  };
}
