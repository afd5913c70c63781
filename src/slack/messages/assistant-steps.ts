import type { JobRecord } from '../../jobs/domain/job.js';
import type { TerminalOutcome } from '../../jobs/ports.js';
import type { StreamStep } from '../assistant-calls.js';

/** The status line under an assistant thread while the bot works ("docs-agent is …"). */
export const ASSISTANT_STATUS = {
  starting: 'is starting the agent…',
  followUp: 'is sending your follow-up to the agent…',
  waiting: 'is waiting for the agent…',
  posting: 'is posting the pull request…',
  reading: 'is reading the docs analytics…',
  /** Clears the status line. */
  clear: '',
} as const;

/** The first steps of a job's streamed message, before the job exists. Pure. */
export function startingSteps(): StreamStep[] {
  return [
    { id: 'created', title: 'Creating the agent job', status: 'in_progress' },
    { id: 'agent', title: 'Agent working', status: 'pending' },
    { id: 'pr', title: 'Pull request', status: 'pending' },
  ];
}

/** The steps of a running job (each poll that changed something): created, agent working. Pure. */
export function runningSteps(record: JobRecord): StreamStep[] {
  const branch = record.ref ? `, branch ${record.ref}` : '';
  return [
    { id: 'created', title: 'Agent job created', status: 'complete', details: `Job ${record.jobId}` },
    {
      id: 'agent',
      title: `Agent working (${record.status}${branch})`,
      status: 'in_progress',
    },
  ];
}

/** The last steps of a run: the pull request opened, or why there is none. Pure. */
export function finishedSteps(record: JobRecord, outcome: TerminalOutcome): StreamStep[] {
  const created: StreamStep = { id: 'created', title: 'Agent job created', status: 'complete' };
  switch (outcome.kind) {
    case 'pull_request':
      return [
        created,
        { id: 'agent', title: 'Agent finished', status: 'complete' },
        { id: 'pr', title: 'Pull request opened', status: 'complete', output: outcome.prLink },
      ];
    case 'no_changes':
      return [
        created,
        { id: 'agent', title: 'Agent finished', status: 'complete' },
        {
          id: 'pr',
          title: outcome.previousPrLink ? 'Pull request unchanged' : 'No pull request: nothing changed',
          status: 'complete',
          ...(outcome.previousPrLink ? { output: outcome.previousPrLink } : {}),
        },
      ];
    case 'failed':
      return [
        created,
        { id: 'agent', title: 'Agent failed', status: 'error', details: `Job ${record.jobId}` },
        { id: 'pr', title: 'Pull request failed: the job stopped', status: 'error' },
      ];
    case 'archived':
      return [
        created,
        { id: 'agent', title: 'Job archived', status: 'error' },
        { id: 'pr', title: 'No pull request: the job was archived', status: 'error' },
      ];
  }
}

/** The steps of a job that could not be created: the reason, in the words of the card. Pure. */
export function notStartedSteps(reason: string): StreamStep[] {
  return [
    { id: 'created', title: 'The agent job was not created', status: 'error', details: reason },
    { id: 'agent', title: 'Agent working', status: 'error' },
    { id: 'pr', title: 'Pull request', status: 'error' },
  ];
}
