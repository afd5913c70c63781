import type { KnownBlock } from '@slack/types';
import { type FeedbackVote, isFeedbackVote } from '../../jobs/job-feedback.js';
import { oneLine } from './limits.js';

/** The action of the feedback buttons on a job's terminal reply. */
export const JOB_FEEDBACK_ACTION = 'job_feedback';

/** Slack's limit on a button value; ids longer than fit leave the reply without buttons. */
const VALUE_MAX = 2000;

/** `<vote>:<jobId>`: the click says which job it rates whichever thread it is in. */
function value(vote: FeedbackVote, jobId: string): string {
  return `${vote}:${jobId}`;
}

/**
 * Slack's feedback buttons (👍 / 👎) for a job's result: a `context_actions` block, one generation per
 * block_id (Slack wants block ids unique per message). Undefined when the job id cannot fit a value.
 */
export function feedbackBlock(jobId: string, generation: number): KnownBlock | undefined {
  if (jobId.length === 0 || value('not_useful', jobId).length > VALUE_MAX) return undefined;
  return {
    type: 'context_actions',
    block_id: `job_feedback_${generation}`,
    elements: [
      {
        type: 'feedback_buttons',
        action_id: JOB_FEEDBACK_ACTION,
        positive_button: {
          text: { type: 'plain_text', text: '👍' },
          accessibility_label: 'This pull request was useful',
          value: value('useful', jobId),
        },
        negative_button: {
          text: { type: 'plain_text', text: '👎' },
          accessibility_label: 'This pull request was not useful',
          value: value('not_useful', jobId),
        },
      },
    ],
  };
}

/** The vote and job of a click, or undefined for a value the bot did not write. */
export function parseFeedbackValue(raw: unknown): { vote: FeedbackVote; jobId: string } | undefined {
  if (typeof raw !== 'string' || raw.length > VALUE_MAX) return undefined;
  const colon = raw.indexOf(':');
  const vote = raw.slice(0, colon);
  const jobId = raw.slice(colon + 1);
  if (colon < 0 || !isFeedbackVote(vote) || jobId.length === 0) return undefined;
  return { vote, jobId };
}

const FEEDBACK_REFUSALS = {
  unknown_job: "I no longer know this job (jobs are kept for 30 days), so your rating wasn't recorded.",
  state_unavailable:
    ":warning: I can't reach my storage right now, so your rating wasn't recorded. Click again in a minute.",
  not_allowed:
    "You're not on this bot's list of allowed users, so your rating wasn't recorded. Ask a workspace admin to add you to docs-agent's allowed users.",
  channel_not_allowed:
    "docs-agent is not enabled in this conversation, so your rating wasn't recorded. Ask a workspace admin to allow this channel for docs-agent.",
} as const;

/** What the person who clicked is told (only them). */
export function feedbackAnswerText(
  outcome:
    | { ok: true; vote: FeedbackVote; change: 'new' | 'changed' | 'same' }
    | { ok: false; why: 'unknown_job' | 'state_unavailable' | 'not_allowed' | 'channel_not_allowed' },
): string {
  if (!outcome.ok) return FEEDBACK_REFUSALS[outcome.why];
  const verdict = outcome.vote === 'useful' ? 'useful' : 'not useful';
  return oneLine(
    outcome.change === 'changed'
      ? `Thanks: your rating is now "${verdict}" (it replaces your earlier one).`
      : `Thanks: recorded that this pull request was ${verdict}. Click the other button to change it.`,
    300,
  );
}
