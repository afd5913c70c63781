import type { KnownBlock, ModalView } from '@slack/types';
import type { Evidence } from '../../insights/health/evidence.js';
import { encodeEvidenceRef } from '../../insights/health/evidence-ref.js';
import { instructionFor } from '../../insights/health/instruction.js';
import { escapeMrkdwn } from '../markup.js';
import { oneLine } from './limits.js';

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

const what = (e: Evidence) => {
  switch (e.kind) {
    case 'search':
      return `the search “${escapeMrkdwn(oneLine(e.query, 150))}” (${Math.round(e.hits)} hits, nothing clicked)`;
    case 'page':
      return `the page \`${escapeMrkdwn(oneLine(e.path, 150)).replace(/`/g, 'ˋ')}\` (${Math.round(e.thumbsDown)} 👎)`;
    case 'question':
      return `the question “${escapeMrkdwn(oneLine(e.question, 150))}” (asked ${Math.round(e.asked)}×)`;
  }
};

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
        text: `From readers' data: ${what(evidence)}. Edit the instruction, then start the job.`,
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
