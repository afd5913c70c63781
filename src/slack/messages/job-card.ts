import type { ContextBlock, RichTextBlock } from '@slack/types';
import { isSafeHttpUrl } from '../../common/untrusted-text.js';
import { READER_INPUT_NOTICE } from '../../insights/health/instruction.js';
import { isTerminal, type JobRecord } from '../../jobs/domain/job.js';
import { platformState, stateEmoji } from '../copy/status-emoji.js';
import { escapeMrkdwn, untrustedMrkdwn } from '../markup.js';
import { evidenceLine } from './evidence-summary.js';
import { formatDuration, repositoryLabel, slackTime } from './format.js';
import { trackedCardBlocks } from './job-card-actions.js';
import { fitLink, LIMITS, oneLine, truncate } from './limits.js';
import { HOME_CONNECT_ACTION } from './project-settings.js';
import { pullRequestStateLine } from './pull-request.js';
import type { SlackMessage } from './types.js';

export {
  COPY_JOB_ID_OPTION,
  JOB_CARD_MENU_ACTION,
  JOB_RETRY_ACTION,
  OPEN_JOB_PAGE_ACTION,
  OPEN_PULL_REQUEST_ACTION,
  pullRequestActions,
} from './job-card-actions.js';

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
  /** The job's page on the docs platform (DOCS_JOB_URL_PATTERN filled); absent: no such button. */
  jobUrl?: string | undefined;
}

interface StatusLine {
  emoji: string;
  label: string;
}

export function statusLine(record: JobRecord): StatusLine {
  if (record.watchEnded === 'gone')
    return { emoji: stateEmoji('gone'), label: 'Job no longer exists on the docs platform' };
  if (record.status === 'active' && record.watchEnded === 'expired')
    return { emoji: stateEmoji('expired'), label: 'Still running when the bot stopped watching' };
  if (record.status === 'active' && record.watchEnded === 'stopped')
    return { emoji: stateEmoji('stopped'), label: 'Stopped following at the requester’s request' };
  return statusWords(record.status, record.prLink);
}

const STATE_LABELS = {
  working: 'Working: the agent is editing the docs',
  pull_request: 'Done: pull request opened',
  no_changes: 'Done: no files changed',
  failed: 'Failed: the agent stopped with an error',
  archived: 'Archived',
} as const;

/** A platform status in the words the card uses (also for `/docs-agent status`); emoji from the one table. */
export function statusWords(status: string, prLink: string | null): StatusLine {
  const state = platformState(status, prLink) as keyof typeof STATE_LABELS;
  const known = ['active', 'completed', 'failed', 'archived'].includes(status);
  const label = known ? STATE_LABELS[state] : `Working (${untrustedMrkdwn(oneLine(status, 40))})`;
  return { emoji: stateEmoji(state), label };
}

/**
 * What a failed card says after its status: the platform gives no cause for a failure (its job has no
 * error field), so the card says so, and the one next step.
 */
export const FAILED_CAUSE =
  'I could not get a reason from the docs platform: it only says the job failed, and no pull request was opened. *Retry* starts the same instruction as a new job; a more specific instruction may help.';

/** The title's room: one line on a phone. */
const TITLE_CHARS = 120;

/**
 * The card's title: the person's instruction on one line, never the reader-data wrapper a /docs-health fix
 * adds for the agent (its notice and its ⟦reader input⟧ blocks).
 */
export function jobTitle(prompt: string): { text: string; whole: boolean } {
  const cut = prompt.indexOf(READER_INPUT_NOTICE);
  const own = (cut >= 0 ? prompt.slice(0, cut) : prompt).replace(
    /⟦reader input⟧[^⟦]*(⟦end of reader input⟧)?/g,
    ' ',
  );
  const lines = own
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const first = oneLine(lines[0] ?? '', TITLE_CHARS);
  if (first === '') return { text: '(empty)', whole: prompt.trim() === '' };
  return { text: first, whole: lines.length === 1 && cut < 0 && first === oneLine(own, TITLE_CHARS + 1) };
}

/**
 * The job card: the instruction as its title, its status, one context line (who, repository, age) and its
 * actions. No job id, model, branch or project id (issue 46): `/docs-agent status` and the card's
 * *Copy job ID* give them. The whole instruction is quoted (as rich text, never parsed) only
 * when the title could not show all of it. Pure.
 */
export function jobCardMessage(input: JobCardInput): SlackMessage {
  const { state } = input;
  const title = jobTitle(input.prompt);
  const blocks: SlackMessage['blocks'] = [
    {
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: truncate(`:memo: *${untrustedMrkdwn(title.text)}*`, LIMITS.sectionText),
      },
    },
  ];
  if (!title.whole) blocks.push(promptQuote(input.prompt));
  const evidence = evidenceLine(input.evidenceRef);
  if (evidence)
    blocks.push({
      type: 'context',
      elements: [{ type: 'mrkdwn', text: truncate(evidence, LIMITS.sectionText) }],
    });

  let status: StatusLine;
  if (state.phase === 'starting') {
    status = { emoji: stateEmoji('starting'), label: 'Starting the agent…' };
  } else if (state.phase === 'not_started') {
    status = { emoji: stateEmoji('not_started'), label: 'Not started' };
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
  blocks.push(contextLine(input.requesterId, state));
  if (state.phase === 'tracked') {
    const pullRequest = pullRequestStateLine(state.record.pullRequest);
    if (pullRequest) blocks.push({ type: 'context', elements: [{ type: 'mrkdwn', text: pullRequest }] });
    const failed = !state.record.prLink && state.record.status === 'failed';
    if (failed) blocks.push({ type: 'section', text: { type: 'mrkdwn', text: FAILED_CAUSE } });
    blocks.push(
      ...trackedCardBlocks({
        jobId: state.record.jobId,
        prLink: state.record.prLink,
        failed,
        jobUrl: input.jobUrl,
      }),
    );
  }
  if (takesFollowUps(state)) blocks.push(threadHint(input.requesterId, input.followUpsFrom));
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

/** The thread can still steer the job: not before it exists, nor once it is archived or gone. */
function takesFollowUps(state: CardState): boolean {
  if (state.phase === 'not_started') return false;
  if (state.phase === 'starting') return true;
  return state.record.status !== 'archived' && state.record.watchEnded !== 'gone';
}

/** Who, repository and age. */
function contextLine(requesterId: string, state: CardState): ContextBlock {
  const parts = [`<@${safeId(requesterId)}>`];
  if (state.phase !== 'tracked')
    return { type: 'context', elements: [{ type: 'mrkdwn', text: parts[0] as string }] };
  const { record, now } = state;
  // A link of at most 1,400, the mention and the age stay under the element's 3,000, so the final
  // truncate never cuts a link: only a label is ever shortened.
  const room = 1400;
  if (record.repository) {
    const label = untrustedMrkdwn(oneLine(repositoryLabel(record.repository), 200));
    parts.push(isLinkable(record.repository) ? fitLink(record.repository, label, room) : label);
  }
  // By status, not by `watching`: the final card is rendered just before the job stops being watched.
  // A running job shows when it started, in the one date style (each reader's own time zone).
  parts.push(
    isTerminal(record.status)
      ? `took ${formatDuration(now - record.activeSince)}`
      : `started ${slackTime(record.activeSince)}`,
  );
  return {
    type: 'context',
    elements: [{ type: 'mrkdwn', text: truncate(parts.join(' · '), LIMITS.sectionText) }],
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

function isLinkable(url: string): boolean {
  return isSafeHttpUrl(url);
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
