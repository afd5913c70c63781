import { escapeMrkdwn, untrustedMrkdwn } from '../markup.js';
import { repositoryLabel } from './format.js';
import { promptQuote, safeId } from './job-card.js';
import { LIMITS, oneLine, truncate } from './limits.js';
import type { SlackMessage } from './types.js';

/** The confirmation card's buttons; each carries only the pending instruction's id. */
export const CONFIRM_START_ACTION = 'assistant_confirm_start';
export const CONFIRM_EDIT_ACTION = 'assistant_confirm_edit';
export const CONFIRM_CANCEL_ACTION = 'assistant_confirm_cancel';
export const CONFIRM_ACTIONS = new RegExp(
  `^(${CONFIRM_START_ACTION}|${CONFIRM_EDIT_ACTION}|${CONFIRM_CANCEL_ACTION})$`,
);

const PENDING_ID = /^[0-9a-f-]{36}$/;

/** A button's value, checked: a pending instruction's id (a UUID), else undefined. */
export function parsePendingId(value: unknown): string | undefined {
  return typeof value === 'string' && PENDING_ID.test(value) ? value : undefined;
}

/** What the bot knows of the docs project a job would act on. */
export interface ConfirmProject {
  projectId?: string;
  /** The repository of the newest job seen in that project, when there is one. */
  repository?: string;
}

/**
 * The card shown for an instruction in an assistant thread with no job yet: what would start, where, and
 * [Start job] [Edit] [Cancel]. `question`: the message was a question the bot cannot answer from reports.
 */
export function confirmationCard(
  pendingId: string,
  instruction: string,
  project: ConfirmProject,
  question = false,
): SlackMessage {
  const where = project.projectId
    ? `docs project \`${escapeMrkdwn(oneLine(project.projectId, 128)).replace(/`/g, "'")}\``
    : 'the default docs project';
  const repo = project.repository
    ? `, repository ${untrustedMrkdwn(oneLine(repositoryLabel(project.repository), 200))}`
    : '';
  const head = question
    ? `I can't answer that from the reports, but I can start a docs agent job for it in ${where}${repo}:`
    : `Shall I start a docs agent job in ${where}${repo}? It edits the docs and opens a pull request:`;
  const button = (text: string, actionId: string, style?: 'primary' | 'danger') => ({
    type: 'button' as const,
    text: { type: 'plain_text' as const, text },
    action_id: actionId,
    value: pendingId,
    ...(style ? { style } : {}),
  });
  return {
    text: question ? 'I can start a job for that' : 'Start a docs agent job?',
    blocks: [
      { type: 'section', text: { type: 'mrkdwn', text: truncate(head, LIMITS.sectionText) } },
      promptQuote(instruction),
      {
        type: 'actions',
        elements: [
          button('Start job', CONFIRM_START_ACTION, 'primary'),
          button('Edit', CONFIRM_EDIT_ACTION),
          button('Cancel', CONFIRM_CANCEL_ACTION),
        ],
      },
    ],
  };
}

/** The card once decided: one line, no buttons. */
export function confirmationDecided(
  decision: 'started' | 'not_started' | 'cancelled' | 'expired' | 'has_job',
  userId: string,
): SlackMessage {
  const who = `<@${safeId(userId)}>`;
  const text = {
    started: `:arrow_forward: Job started by ${who}. Its progress follows in this thread.`,
    not_started: "I couldn't start this job: my reply in this thread says why and what to do.",
    cancelled: `Cancelled by ${who}. Nothing was started.`,
    expired:
      'I no longer have this instruction: it was already started or cancelled, or a day has passed. Send it again if you still want a job for it.',
    has_job: 'This thread already has a job, so I did not start another. Reply here to send it a follow-up.',
  }[decision];
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

/** A short reply to a thanks or an emoji in an assistant thread with no job: nothing starts. */
export function acknowledgedMessage(): SlackMessage {
  const text =
    "You're welcome. Tell me what to change in the docs when you need a job, or ask `help` for what I can do.";
  return { text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}
