import type { ContextBlock, KnownBlock, RichTextBlock } from '@slack/types';
import { isSafeHttpUrl } from '../../common/untrusted-text.js';
import { isTerminal, type JobRecord } from '../../jobs/domain/job.js';
import { escapeMrkdwn, untrustedMrkdwn } from '../markup.js';
import { evidenceLine } from './evidence-summary.js';
import { formatDuration, repositoryBranchUrl, repositoryLabel, slackTime } from './format.js';
import { fitLink, LIMITS, oneLine, truncate } from './limits.js';
import { HOME_CONNECT_ACTION } from './project-settings.js';
import { pullRequestStateLine } from './pull-request.js';
import type { SlackMessage } from './types.js';

export type CardState =
  | { phase: 'starting' }
  /** `reconnect`: the key connected in Slack was refused; managers get a button to the connect form. */
  | { phase: 'not_started'; reason: string; reconnect?: boolean }
  | { phase: 'tracked'; record: JobRecord; now: number; untracked?: false };

export interface JobCardInput {
  requesterId: string;
  prompt: string;
  state: CardState;
  /** A /docs-health gap's evidence (`encodeEvidenceRef`): the card says which gap started the job. */
  evidenceRef?: string;
  /** Who may steer the job from its thread (FOLLOW_UPS_FROM); default `anyone`. */
  followUpsFrom?: 'anyone' | 'requester';
  /** The docs project, named only when several are configured (DOCS_CHANNEL_PROJECTS). */
  project?: string;
}

interface StatusLine {
  emoji: string;
  label: string;
}

export function statusLine(record: JobRecord): StatusLine {
  if (record.watchEnded === 'gone')
    return { emoji: ':grey_question:', label: 'Job no longer exists on the docs platform' };
  if (record.status === 'active' && record.watchEnded === 'expired')
    return { emoji: ':zzz:', label: 'Still running when the bot stopped watching' };
  if (record.status === 'active' && record.watchEnded === 'stopped')
    return { emoji: ':octagonal_sign:', label: 'Stopped following at the requester’s request' };
  return statusWords(record.status, record.prLink);
}

/** A platform status in the words the card uses (also for `/docs-agent status`). */
export function statusWords(status: string, prLink: string | null): StatusLine {
  switch (status) {
    case 'active':
      return { emoji: ':gear:', label: 'Working: the agent is editing the docs' };
    case 'completed':
      return prLink
        ? { emoji: ':white_check_mark:', label: 'Done: pull request opened' }
        : { emoji: ':white_check_mark:', label: 'Done: no files changed' };
    case 'failed':
      return { emoji: ':x:', label: 'Failed' };
    case 'archived':
      return { emoji: ':file_cabinet:', label: 'Archived' };
    default:
      return { emoji: ':gear:', label: `Working (${untrustedMrkdwn(oneLine(status, 40))})` };
  }
}

/** The job card: who asked, the instruction (rendered literally), status and details. Pure. */
export function jobCardMessage(input: JobCardInput): SlackMessage {
  const { state } = input;
  const blocks: SlackMessage['blocks'] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: `:memo: *Docs agent job*${projectPart(input.project)} requested by <@${safeId(input.requesterId)}>`,
      },
    },
    promptQuote(input.prompt),
  ];
  const evidence = evidenceLine(input.evidenceRef);
  if (evidence)
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: truncate(evidence, LIMITS.sectionText) }],
    });

  let status: StatusLine;
  if (state.phase === 'starting') {
    status = { emoji: ':hourglass_flowing_sand:', label: 'Starting the agent…' };
  } else if (state.phase === 'not_started') {
    status = { emoji: ':warning:', label: 'Not started' };
  } else {
    status = statusLine(state.record);
  }
  blocks.push({
    type: 'section',
    text: { type: 'mrkdwn', text: truncate(`${status.emoji} *${status.label}*`, LIMITS.sectionText) },
  });
  if (state.phase === 'not_started') {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: truncate(state.reason, LIMITS.sectionText) },
    });
    // Anyone sees it; the form opens for managers only (asked again on the click and on the submit).
    if (state.reconnect)
      blocks.push({
        type: 'actions',
        elements: [
          {
            type: 'button',
            // The same action as Home's *Connect a project*: the connect form.
            action_id: HOME_CONNECT_ACTION,
            text: { type: 'plain_text', text: 'Reconnect (managers)' },
          },
        ],
      });
  }
  if (state.phase === 'tracked') {
    blocks.push({ type: 'section', fields: detailFields(state.record, state.now) });
    const pullRequest = pullRequestStateLine(state.record.pullRequest);
    if (pullRequest) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: pullRequest }] });
    if (state.record.prLink) blocks.push(pullRequestActions(state.record.prLink));
  }
  if (state.phase !== 'not_started') blocks.push(threadHint(input.requesterId, input.followUpsFrom));
  return {
    text: truncate(
      // Not the prompt: notification text is mrkdwn, where a bare URL or address in it would turn live
      // (the blocks show the prompt as rich text, which Slack does not link).
      `Docs agent job: ${status.label.replace(/[.…!:]+$/, '')}.`,
      LIMITS.fallbackText,
    ),
    blocks,
  };
}

/** How to talk to the agent from the card's thread, and how to talk past it. */
export function threadHint(
  requesterId: string,
  followUpsFrom: 'anyone' | 'requester' = 'anyone',
): ContextBlock {
  const who = followUpsFrom === 'requester' ? `Replies from <@${safeId(requesterId)}>` : 'Replies';
  return {
    type: 'context',
    elements: [
      {
        type: 'mrkdwn',
        text: `:speech_balloon: ${who} in this thread go to the agent as follow-ups. Start a reply with \`(aside)\` or \`//\` to talk here without instructing it.`,
      },
    ],
  };
}

function detailFields(record: JobRecord, now: number): Array<{ type: 'mrkdwn'; text: string }> {
  const fields: string[] = [`*Job*\n\`${untrustedMrkdwn(oneLine(record.jobId, 100))}\``];
  // Links get what is left of the field after their title: only the label is ever shortened.
  const room = (title: string) => LIMITS.fieldText - title.length;
  if (record.repository) {
    const label = untrustedMrkdwn(oneLine(repositoryLabel(record.repository), 200));
    const title = '*Repository*\n';
    fields.push(
      `${title}${isLinkable(record.repository) ? fitLink(record.repository, label, room(title)) : label}`,
    );
  }
  if (record.ref) {
    const branchUrl = record.repository ? repositoryBranchUrl(record.repository, record.ref) : undefined;
    const label = untrustedMrkdwn(oneLine(record.ref, 200));
    const title = '*Branch*\n';
    fields.push(`${title}${branchUrl ? fitLink(branchUrl, label, room(title)) : `\`${label}\``}`);
  }
  if (record.model) fields.push(`*Model*\n${untrustedMrkdwn(oneLine(record.model, 100))}`);
  // By status, not by `watching`: the final card is rendered just before the job stops being watched.
  // A running job shows its start in Slack's relative format ("5 minutes ago"), which each client keeps
  // true by itself: no card update is needed for the time to move.
  if (isTerminal(record.status)) fields.push(`*Took*\n${formatDuration(now - record.activeSince)}`);
  else fields.push(`*Started*\n${slackTime(record.activeSince, '{ago}')}`);
  return fields
    .slice(0, LIMITS.fields)
    .map((text) => ({ type: 'mrkdwn', text: truncate(text, LIMITS.fieldText) }));
}

function isLinkable(url: string): boolean {
  return isSafeHttpUrl(url);
}

export const OPEN_PULL_REQUEST_ACTION = 'open_pull_request';

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

/** The user's words, quoted as rich text: nothing in them is parsed, so no markup can ping or format. */
export function promptQuote(prompt: string): RichTextBlock {
  return {
    type: 'rich_text',
    elements: [
      {
        type: 'rich_text_quote',
        elements: [
          { type: 'text', text: truncate(prompt.trim() === '' ? '(empty)' : prompt, LIMITS.richTextQuote) },
        ],
      },
    ],
  };
}

/** Slack IDs are upper-case alphanumerics; anything else is never interpolated into markup. */
export function safeId(id: string): string {
  return /^[A-Z0-9]+$/.test(id) ? id : 'unknown';
}

/** ` in project \`proj_a\``, or nothing when the card need not name its project. */
export function projectPart(project: string | undefined): string {
  return project ? ` in project \`${escapeMrkdwn(oneLine(project, 128)).replace(/`/g, "'")}\`` : '';
}
