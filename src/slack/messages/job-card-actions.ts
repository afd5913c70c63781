import type { ActionsBlock, ActionsBlockElement, KnownBlock } from '@slack/types';
import { LIMITS } from './limits.js';

export const OPEN_PULL_REQUEST_ACTION = 'open_pull_request';
/** Retry on a failed card: the job form with the same instruction (`job-retry.ts`). */
export const JOB_RETRY_ACTION = 'job_retry';

/** "Open in dashboard" on a card: the job's page on the docs platform (DOCS_JOB_URL_PATTERN). */
export const OPEN_JOB_PAGE_ACTION = 'open_job_page';
/** The card's ⋯ menu; its one option answers privately with the job id (`job-card-menu.ts`). */
export const JOB_CARD_MENU_ACTION = 'job_card_menu';
export const COPY_JOB_ID_OPTION = 'copy_job_id';

const RETRY_BUTTON: ActionsBlockElement = {
  type: 'button',
  action_id: JOB_RETRY_ACTION,
  text: { type: 'plain_text', text: 'Retry' },
  accessibility_label: 'Start this instruction again as a new job',
};

export function retryActions(): KnownBlock {
  return { type: 'actions', elements: [RETRY_BUTTON] };
}

/** The job's page, when a pattern made one that fits a button; else no button (never a dead link). */
export function openJobPageButton(jobUrl: string | undefined): ActionsBlockElement[] {
  if (!jobUrl || jobUrl.length > LIMITS.buttonUrl) return [];
  return [
    {
      type: 'button',
      action_id: OPEN_JOB_PAGE_ACTION,
      text: { type: 'plain_text', text: 'Open in dashboard' },
      url: jobUrl,
      accessibility_label: "Open this job's page on the docs platform",
    },
  ];
}

/** The ⋯ menu of a tracked card: the job id, for whoever needs it, without putting it on the card. */
function cardMenu(): ActionsBlockElement {
  return {
    type: 'overflow',
    action_id: JOB_CARD_MENU_ACTION,
    options: [{ text: { type: 'plain_text', text: 'Copy job ID' }, value: COPY_JOB_ID_OPTION }],
  };
}

/**
 * A tracked card's actions: its pull request (or, failed, Retry), the job's page when DOCS_JOB_URL_PATTERN
 * is set, and the ⋯ menu. A pull request link too long for a button comes first as its own rich-text link.
 */
export function trackedCardBlocks(input: {
  jobId: string;
  prLink: string | null;
  failed: boolean;
  jobUrl: string | undefined;
}): KnownBlock[] {
  const blocks: KnownBlock[] = [];
  const elements: ActionsBlockElement[] = [];
  if (input.prLink) {
    const pr = pullRequestActions(input.prLink);
    if (pr.type === 'actions') elements.push(...(pr as ActionsBlock).elements);
    else blocks.push(pr);
  } else if (input.failed) elements.push(RETRY_BUTTON);
  elements.push(...openJobPageButton(input.jobUrl), cardMenu());
  const blockId = cardBlockId(input.jobId);
  blocks.push({ type: 'actions', ...(blockId && { block_id: blockId }), elements });
  return blocks;
}

/** Job ids as the platform gives them: a plain token. */
export const PLAIN_JOB_ID = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * The block id of a card's actions: which job the card was drawn for (never shown; a click carries it, so the
 * ⋯ menu can check that the job its thread holds now is the card's). Undefined for an id that is not plain.
 */
export function cardBlockId(jobId: string): string | undefined {
  return PLAIN_JOB_ID.test(jobId) ? `job:${jobId}` : undefined;
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
