import type { JobRecord } from './job.js';

/**
 * What the message that started a job shows about it: running, a pull request open, or a problem (failed,
 * changed nothing, archived, gone, no longer watched without a result). Absent when the job has no source
 * message (its card is the bot's own).
 */
export type JobSignal = 'running' | 'pull_request' | 'problem';

/** Every signal, in the order they may be shown; one at a time on a message. */
export const JOB_SIGNALS: readonly JobSignal[] = ['running', 'pull_request', 'problem'];

/**
 * The signal a record asks for, from its latest state alone (never from the event that reported it), so
 * whichever replica acts last on the newest record leaves the right one. A PR, once opened, stays the
 * job's PR: a follow-up that changes nothing keeps ✅; a failed run shows the problem whatever came before.
 */
export function wantedSignal(
  record: Pick<JobRecord, 'sourceTs' | 'watching' | 'status' | 'prLink'>,
): JobSignal | null {
  if (!record.sourceTs) return null;
  if (record.watching) return 'running';
  if (record.status === 'failed' || record.status === 'archived') return 'problem';
  return record.prLink ? 'pull_request' : 'problem';
}
