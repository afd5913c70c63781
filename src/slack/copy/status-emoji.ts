/**
 * ONE table of what a job's state looks like (issue 46 §3), shared by the job card, `/docs-agent list` and
 * `status`, the Home tab, the link preview of a job's pull request, and the reaction on the message that
 * started a job. The reaction has three signals only (one at a time on a message, the others removed by
 * name): running, pull request and problem, each shown with its state's emoji here.
 */

export type JobState =
  | 'starting'
  | 'not_started'
  | 'working'
  | 'pull_request'
  | 'no_changes'
  | 'failed'
  | 'archived'
  | 'gone'
  | 'expired'
  | 'stopped';

/** Emoji names (no colons: reactions take them so; `emoji()` writes them for text). */
export const JOB_STATE_EMOJI: Readonly<Record<JobState, string>> = {
  starting: 'hourglass_flowing_sand',
  not_started: 'warning',
  working: 'eyes',
  pull_request: 'white_check_mark',
  no_changes: 'warning',
  failed: 'warning',
  archived: 'file_cabinet',
  gone: 'grey_question',
  expired: 'zzz',
  stopped: 'octagonal_sign',
};

/** The reaction signals' emoji, from the same table: running, a pull request, a problem. */
export const SIGNAL_EMOJI = {
  running: JOB_STATE_EMOJI.working,
  pull_request: JOB_STATE_EMOJI.pull_request,
  problem: JOB_STATE_EMOJI.failed,
} as const;

/** `:eyes:`: a state's emoji for text. */
export function stateEmoji(state: JobState): string {
  return `:${JOB_STATE_EMOJI[state]}:`;
}

/** The state a platform status stands for (a status the platform adds later reads as working). */
export function platformState(status: string, prLink: string | null): JobState {
  switch (status) {
    case 'completed':
      return prLink ? 'pull_request' : 'no_changes';
    case 'failed':
      return 'failed';
    case 'archived':
      return 'archived';
    default:
      return 'working';
  }
}

/**
 * Emoji of notices that are not a job's state: a docs-health alert is news about readers (a search that
 * finds nothing, a page readers dislike), never an emergency, so never 🚨.
 */
export const NOTICE_EMOJI = {
  alert: ':bell:',
  info: ':information_source:',
  problem: ':warning:',
} as const;
