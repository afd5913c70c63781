import type { KnownBlock, ModalView } from '@slack/types';
import type { Evidence } from '../../insights/health/evidence.js';
import { decodeEvidenceRef, encodeEvidenceRef } from '../../insights/health/evidence-ref.js';
import { instructionFor } from '../../insights/health/instruction.js';
import { evidenceSummary } from './evidence-summary.js';
import type { SubmissionErrors, SubmittedView } from './job-modal.js';

export const HEALTH_MODAL_CALLBACK = 'health_fix_submit';
export const HEALTH_INSTRUCTION_BLOCK = 'health_instruction';
export const HEALTH_INSTRUCTION_ACTION = 'instruction';
/** Slack: a plain_text_input holds at most 3000 characters (`initial_value` and `max_length`). */
const INPUT_MAX = 3000;

/** What the submission needs back: where the report was shown and which evidence started the job. */
export interface HealthModalMetadata {
  channelId: string;
  /** `encodeEvidenceRef` of the evidence (≤ 2000 characters). */
  evidenceRef: string;
}

/**
 * The modal a fix button opens: the instruction prefilled from the evidence, editable; submitting starts a
 * job. `private_metadata` (≤ 3000) carries the channel and the evidence reference, no secrets.
 */
export function healthFixModal(evidence: Evidence, channelId: string): ModalView {
  const metadata: HealthModalMetadata = { channelId, evidenceRef: encodeEvidenceRef(evidence) };
  const blocks: KnownBlock[] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `From readers' data: ${evidenceSummary(evidence)}. Edit the instruction, then start the job.`,
      },
    },
    {
      type: 'input',
      block_id: HEALTH_INSTRUCTION_BLOCK,
      label: { type: 'plain_text', text: 'Instruction for the docs agent' },
      element: {
        type: 'plain_text_input',
        action_id: HEALTH_INSTRUCTION_ACTION,
        multiline: true,
        initial_value: Array.from(instructionFor(evidence)).slice(0, INPUT_MAX).join(''),
        max_length: INPUT_MAX,
      },
    },
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

export type ParsedHealthFix =
  | { ok: true; channelId: string; evidenceRef: string; instruction: string }
  | { ok: false; response: SubmissionErrors }
  /** Not ours or tampered with: nothing the user can fix in the form. */
  | { ok: false; code: 'invalid_health_modal'; message: string };

const CHANNEL_ID = /^[CGD][A-Z0-9]{2,}$/;

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
  const { channelId, evidenceRef } = metadata ?? {};
  if (typeof channelId !== 'string' || !CHANNEL_ID.test(channelId)) return lost;
  if (typeof evidenceRef !== 'string' || !decodeEvidenceRef(evidenceRef)) return lost;
  const instruction = (
    view.state?.values?.[HEALTH_INSTRUCTION_BLOCK]?.[HEALTH_INSTRUCTION_ACTION]?.value ?? ''
  ).trim();
  const error =
    instruction.replace(/[\s\u200B-\u200F\u2060\uFEFF]/g, '') === ''
      ? 'Write what the docs agent should do.'
      : Array.from(instruction).length > INPUT_MAX
        ? `Keep it under ${INPUT_MAX.toLocaleString('en-US')} characters.`
        : undefined;
  if (error)
    return {
      ok: false,
      response: { response_action: 'errors', errors: { [HEALTH_INSTRUCTION_BLOCK]: error } },
    };
  return { ok: true, channelId, evidenceRef, instruction };
}
