import type { JobRecord } from '../../jobs/domain/job.js';
import { safeId } from './job-card.js';
import { LIMITS, truncate } from './limits.js';
import type { SlackMessage } from './types.js';

/** The two buttons offered after Stop (one handler: `AGENT_STOP_ACTIONS`). */
export const AGENT_STOP_INSTRUCT = 'agent_stop_instruct';
export const AGENT_STOP_KEEP = 'agent_stop_keep';
export const AGENT_STOP_ACTIONS = new RegExp(`^(${AGENT_STOP_INSTRUCT}|${AGENT_STOP_KEEP})$`);

/** What the agent is told by "Send a stop instruction to the agent". */
export const STOP_INSTRUCTION =
  'Stop working on this request now. Do not open a pull request, and do not push further changes. The person who asked for it pressed Stop in Slack.';

/** Slack's limit on a button value. */
const VALUE_MAX = 2000;

/** `<generation>:<jobId>`: which run of which job the choice is about. */
export function stopChoiceValue(record: Pick<JobRecord, 'jobId' | 'generation'>): string {
  return `${record.generation}:${record.jobId}`;
}

export function parseStopChoiceValue(value: unknown): { jobId: string; generation: number } | undefined {
  if (typeof value !== 'string' || value.length > VALUE_MAX) return undefined;
  const match = /^([1-9][0-9]{0,8}):(.+)$/s.exec(value);
  if (!match) return undefined;
  return { generation: Number(match[1]), jobId: match[2]! };
}

/**
 * The one honest line after Stop, with its two choices. The platform has no cancel: the job runs on
 * upstream, so the line says what stopped (the bot following it here) and what may still happen.
 */
export function sessionStoppedMessage(record: JobRecord): SlackMessage {
  const text = `:octagonal_sign: Stopped: I'm no longer following this job here. The docs platform can't cancel a running agent job, so the agent may still finish and open a pull request. Send it a stop instruction (it is asked not to open one), or keep following to get its result here.`;
  const blocks: SlackMessage['blocks'] = [
    { type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } },
  ];
  const value = stopChoiceValue(record);
  if (value.length <= VALUE_MAX)
    blocks.push({
      type: 'actions',
      block_id: `agent_stop_${record.generation}`,
      elements: [
        {
          type: 'button',
          action_id: AGENT_STOP_INSTRUCT,
          text: { type: 'plain_text', text: 'Send a stop instruction to the agent' },
          style: 'danger',
          value,
        },
        {
          type: 'button',
          action_id: AGENT_STOP_KEEP,
          text: { type: 'plain_text', text: 'Keep following' },
          value,
        },
      ],
    });
  return { text: 'Stopped following this docs agent job; it may still finish upstream', blocks };
}

/** Said when Stop is pressed and there was nothing left to stop. */
export function nothingToStopMessage(record: JobRecord | undefined): SlackMessage {
  const text = record
    ? ':information_source: This job had already ended here, so there was nothing to stop.'
    : ':information_source: No docs agent job is running in this thread, so there was nothing to stop.';
  return { text: 'Nothing to stop', blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }] };
}

export type StopChoiceOutcome =
  | { kind: 'instructed'; userId: string }
  | { kind: 'following'; userId: string }
  | { kind: 'instruction_refused'; reason: string }
  | { kind: 'already_chosen' }
  | { kind: 'stale' };

/** What replaces the buttons once a choice was made (or why none could be). */
export function stopChoiceMessage(outcome: StopChoiceOutcome): SlackMessage {
  // No job id in these lines (issue 46): the thread says which job.
  let text: string;
  switch (outcome.kind) {
    case 'instructed':
      text = `:octagonal_sign: <@${safeId(outcome.userId)}> sent the agent a stop instruction for this job. I'll post here what it does with it.`;
      break;
    case 'following':
      text = `:eyes: <@${safeId(outcome.userId)}> chose to keep following this job: its result will be posted here.`;
      break;
    case 'instruction_refused':
      text = `:warning: The stop instruction did not reach the agent: ${outcome.reason}`;
      break;
    case 'already_chosen':
      text = ':information_source: A choice was already made for this stop.';
      break;
    case 'stale':
      text = `:information_source: This job has moved on since this Stop (a later run, or it is followed again), so this choice no longer applies.`;
      break;
  }
  return {
    text: truncate(text, LIMITS.messageText),
    blocks: [{ type: 'section', text: { type: 'mrkdwn', text: truncate(text, LIMITS.sectionText) } }],
  };
}
