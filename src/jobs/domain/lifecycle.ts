import type { TerminalOutcome } from '../ports.js';
import type { AgentJob, JobRecord, WatchEnd } from './job.js';

/**
 * How long after a follow-up a terminal status is distrusted unless the job was seen running again in the
 * new generation: right after send-message the platform may still report the previous run's `completed`.
 */
export const FOLLOW_UP_GRACE_MIN_MS = 30_000;

/** Copies what the platform reports onto the record; true when anything shown on the card changed. */
export function applyJob(record: JobRecord, job: AgentJob): boolean {
  const before = [record.status, record.repository, record.ref, record.model, record.prLink].join('\u0000');
  record.status = job.status;
  record.repository = job.repository ?? record.repository;
  record.ref = job.ref ?? record.ref;
  record.model = job.model ?? record.model;
  // A pull request, once opened, stays the job's PR even if a later run changes nothing.
  record.prLink = job.prLink ?? record.prLink;
  const after = [record.status, record.repository, record.ref, record.model, record.prLink].join('\u0000');
  return before !== after;
}

/** What the terminal reply says: a PR, no changes (pointing at an earlier PR if any), failed or archived. */
export function outcomeOf(job: AgentJob, previousPrLink: string | null): TerminalOutcome {
  if (job.status === 'failed') return { kind: 'failed' };
  if (job.status === 'archived') return { kind: 'archived' };
  return job.prLink ? { kind: 'pull_request', prLink: job.prLink } : { kind: 'no_changes', previousPrLink };
}

/** Starts the generation a follow-up opens: active again, watched again, failures forgotten. */
export function startGeneration(record: JobRecord, job: AgentJob, now: number): void {
  applyJob(record, job);
  record.generation += 1;
  record.activeSince = now;
  record.watching = true;
  record.watchEnded = null;
  record.consecutiveFailures = 0;
  record.updatedAt = now;
}

/** Stops watching a job early and says why. */
export function endWatch(record: JobRecord, why: WatchEnd, now: number): void {
  record.watching = false;
  record.watchEnded = why;
  record.updatedAt = now;
}

/** The distrust window after a follow-up: the configured one, else max(30 s, 6 fast polls). */
export function followUpGraceMs(configured: number | undefined, pollMinMs: number): number {
  return configured ?? Math.max(FOLLOW_UP_GRACE_MIN_MS, 6 * pollMinMs);
}

/**
 * A terminal status ends a follow-up generation only once the job was seen running in it, or after a
 * grace period (a very quick run may finish between two polls).
 */
export function trustsTerminal(record: JobRecord, now: number, graceMs: number): boolean {
  if (record.generation <= 1) return true;
  if (record.seenRunningGeneration === record.generation) return true;
  return now - record.activeSince >= graceMs;
}
