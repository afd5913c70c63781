import type { JobRecord } from '../../jobs/domain/job.js';
import type { TerminalOutcome } from '../../jobs/ports.js';
import type { StreamStep } from '../assistant-calls.js';

/** The status line under an assistant thread while the bot works ("docs-agent is …"). */
export const ASSISTANT_STATUS = {
  starting: 'is starting the agent…',
  followUp: 'is sending your follow-up to the agent…',
  waiting: 'is waiting for the agent…',
  reading: 'is reading the docs analytics…',
  /** Clears the status line. */
  clear: '',
} as const;

/**
 * The status line of a running job whose stream is over: after a handover (the first run), what the platform
 * last said; a later run (a follow-up) simply waits. The branch is text from outside: one plain line.
 */
export function runningStatus(record: Pick<JobRecord, 'ref' | 'generation'>): string {
  if (record.generation > 1) return ASSISTANT_STATUS.waiting;
  // No branch name in people's view (issue 46): `/docs-agent status` has it.
  return record.ref ? 'is still working: the agent is editing the docs…' : 'is still working…';
}

/**
 * The steps of a streamed job message: one per thing the platform (or GitHub) told us, in the order it
 * happens, never a placeholder: created, the agent editing, pull request opened, its checks, merged.
 * The same id updates a step in place. Pure.
 */
export function startingSteps(): StreamStep[] {
  return [{ id: 'created', title: 'Creating the agent job', status: 'in_progress' }];
}

/** What is known of a job so far; `done` marks the run over (no step stays in progress). Pure. */
export function knownSteps(record: JobRecord, done: boolean): StreamStep[] {
  const steps: StreamStep[] = [
    // No job id nor branch here (issue 46): they stay in `/docs-agent status`.
    { id: 'created', title: 'Agent job created', status: 'complete' },
  ];
  if (record.ref)
    steps.push({
      id: 'branch',
      title: 'The agent is editing the docs',
      status: done || record.prLink ? 'complete' : 'in_progress',
    });
  if (record.prLink) steps.push({ id: 'pr', title: 'Pull request opened', status: 'complete' });
  const pr = record.pullRequest?.last;
  if (pr && pr.checks !== 'none')
    steps.push({
      id: 'checks',
      title: `Pull request checks ${pr.checks}`,
      status: pr.checks === 'passing' ? 'complete' : pr.checks === 'failing' ? 'error' : 'in_progress',
    });
  if (pr?.state === 'merged') steps.push({ id: 'merged', title: 'Pull request merged', status: 'complete' });
  return steps;
}

/** The steps of a running job (each poll that changed something). Pure. */
export function runningSteps(record: JobRecord): StreamStep[] {
  return knownSteps(record, false);
}

/**
 * The last steps of a run whose result (text, link and feedback buttons) ends the same message: the steps
 * say what happened, the result below them carries the link once. Pure.
 */
export function finishedSteps(record: JobRecord, outcome: TerminalOutcome): StreamStep[] {
  const steps = knownSteps({ ...record, prLink: null }, true);
  switch (outcome.kind) {
    case 'pull_request':
      return [...steps, { id: 'pr', title: 'Pull request opened', status: 'complete' }];
    case 'no_changes':
      return [
        ...steps,
        {
          id: 'pr',
          title: outcome.previousPrLink ? 'Pull request unchanged' : 'No pull request: nothing changed',
          status: 'complete',
        },
      ];
    case 'failed':
      return [...steps, { id: 'failed', title: 'The agent job failed', status: 'error' }];
    case 'archived':
      return [...steps, { id: 'failed', title: 'The job was archived', status: 'error' }];
  }
}

/** The steps a stream ends with when it is handed over before Slack closes it. Pure. */
export function handoverSteps(record: JobRecord): StreamStep[] {
  return [
    ...knownSteps(record, false),
    {
      id: 'handover',
      title: 'Still working…',
      status: 'in_progress',
      details:
        'Slack ends a streamed message after a few minutes: progress goes on in the status line, and the result will be posted in this thread.',
    },
  ];
}

/** The steps a stream ends with when the person pressed Stop. Pure. */
export function stoppedSteps(record: JobRecord): StreamStep[] {
  return [
    ...knownSteps(record, true),
    { id: 'stopped', title: 'Stopped following this job at your request', status: 'complete' },
  ];
}

/** The steps of a job that could not be created: the reason, in the words of the card. Pure. */
export function notStartedSteps(reason: string): StreamStep[] {
  return [{ id: 'created', title: 'The agent job was not created', status: 'error', details: reason }];
}
