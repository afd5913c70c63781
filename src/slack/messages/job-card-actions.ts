import type { KnownBlock } from '@slack/types';
import { LIMITS } from './limits.js';

export const OPEN_PULL_REQUEST_ACTION = 'open_pull_request';
/** Retry on a failed card: the job form with the same instruction (`job-retry.ts`). */
export const JOB_RETRY_ACTION = 'job_retry';

export function retryActions(): KnownBlock {
  return {
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: JOB_RETRY_ACTION,
        text: { type: 'plain_text', text: 'Retry' },
        accessibility_label: 'Start this instruction again as a new job',
      },
    ],
  };
}

/**
 * The "View pull request" link button, on the card and in the terminal reply. A link too long for a button
 * is still shown, as a rich-text link (which Slack renders without parsing and without the 3,000 limit).
 */
export function pullRequestActions(url: string): KnownBlock {
  if (url.length > LIMITS.buttonUrl) {
    return {
      type: 'rich_text',
      elements: [
        {
          type: 'rich_text_section',
          elements: [
            { type: 'emoji', name: 'link' },
            { type: 'text', text: ' ' },
            { type: 'link', url, text: 'View pull request', style: { bold: true } },
          ],
        },
      ],
    };
  }
  return {
    type: 'actions',
    elements: [
      {
        type: 'button',
        action_id: OPEN_PULL_REQUEST_ACTION,
        text: { type: 'plain_text', text: 'View pull request', emoji: true },
        url,
        style: 'primary',
      },
    ],
  };
}
