import type { JobRecord } from '../domain/job.js';
import { keyOf } from './doorbell-rules.js';

/**
 * A new PR nobody can tie to a job (the platform reports no job branch, or GitHub numbered something in
 * between) rings its candidate jobs in turn, oldest first, one at a time, and stops once a read shows the
 * job that opened it: jobs end in no particular order, but ringing all of them at once costs one read per
 * active job for every PR (issue 37: 51% of a fixed 5 s poller's reads on the drill; in turn, 38%).
 * The turn lives in the repository's shared doorbell state, so the replica that takes the lease over goes on
 * with it.
 */
export interface RingTurn {
  /** The PR numbers the turn is for (the newest, and any skipped since the last read). */
  numbers: number[];
  /** Candidates still to ring, in order. */
  queue: string[];
  /** The job rung last and not yet seen read (null: ring the next one). */
  current: string | null;
  /** The current job's `updatedAt` when it was rung: a poll saves the record, so a change means it was read. */
  stamp: number | null;
  /** When the current job was rung (this replica's clock). */
  rungAt: number;
}

/** A job rung less than this ago (by another turn) goes to the back of the queue, if any other can go first. */
export const TURN_SPACING_MS = 3_000;
/** A rung job not read by then (its poll failed, the queue is behind): the turn moves on. */
export const TURN_STEP_TIMEOUT_MS = 15_000;
/** Open turns per repository at most (the oldest is dropped; its candidates' own polls still come). */
export const MAX_TURNS = 10;
/** Candidates kept per turn at most. */
const MAX_QUEUE = 100;
/**
 * Numbers skipped since the last read (GitHub numbers issues and PRs alike) that a turn also looks for. A
 * wider gap (a first read, a long pause) is not chased: an issue's number would never be found, and the turn
 * would read every candidate; a PR's job left out is still read by its own poll.
 */
const MAX_SKIPPED = 2;

/** A turn for PR numbers `from`..`to` over `candidates` (ordered oldest first). */
export function openTurn(candidates: JobRecord[], from: number, to: number): RingTurn {
  const numbers: number[] = [];
  for (let n = to - from > MAX_SKIPPED ? to : from; n <= to; n++) numbers.push(n);
  const queue = [...candidates]
    .sort((a, b) => a.activeSince - b.activeSince)
    .slice(0, MAX_QUEUE)
    .map((record) => record.jobId);
  return { numbers, queue, current: null, stamp: null, rungAt: 0 };
}

/** The number of the PR a `prLink` names (`…/pull/<n>`), or undefined. Linear: no backtracking on its text. */
export function pullNumberOf(prLink: string | null | undefined): number | undefined {
  if (!prLink) return undefined;
  const link = prLink.slice(0, 2_000);
  const at = link.lastIndexOf('/pull/');
  if (at < 0) return undefined;
  let digits = '';
  for (const ch of link.slice(at + 6)) {
    if (ch >= '0' && ch <= '9' && digits.length < 10) digits += ch;
    else if (ch === '/' || ch === '?' || ch === '#') break;
    else return undefined;
  }
  return digits ? Number(digits) : undefined;
}

/**
 * The number of the PR a job's `prLink` names in the repository `key` (on `webUrl`'s host), or undefined: a
 * job's PR in another repository says nothing about this one's numbers.
 */
export function pullNumberIn(
  prLink: string | null | undefined,
  key: string,
  webUrl: string,
): number | undefined {
  const number = pullNumberOf(prLink);
  if (number === undefined || !prLink) return undefined;
  return keyOf(prLink.slice(0, prLink.lastIndexOf('/pull/')), webUrl) === key ? number : undefined;
}

/** What reading the current job's record says about the turn. */
export type TurnCheck =
  /** Still waiting for the rung job's poll. */
  | { kind: 'waiting' }
  /** The rung job was read (still running, or ended): ring the next one; `opened` is the PR it owns. */
  | { kind: 'next'; opened?: number };

/**
 * Whether the turn's current job has been read since it was rung (`record`: its record now; `opened`: the
 * number of the PR a link names in the turn's repository).
 */
export function checkTurn(
  turn: RingTurn,
  record: JobRecord | undefined,
  now: number,
  openedBy: (prLink: string | null | undefined) => number | undefined,
): TurnCheck {
  if (turn.current === null) return { kind: 'next' };
  if (!record?.watching) {
    const opened = openedBy(record?.prLink);
    return opened === undefined ? { kind: 'next' } : { kind: 'next', opened };
  }
  if (record.updatedAt !== turn.stamp) return { kind: 'next' };
  return now - turn.rungAt >= TURN_STEP_TIMEOUT_MS ? { kind: 'next' } : { kind: 'waiting' };
}

/** Takes a PR number out of every turn: its job has been found. Resolves the turns still open. */
export function settle(turns: RingTurn[], opened: number | undefined): RingTurn[] {
  if (opened === undefined) return turns;
  return turns
    .map((turn) => ({ ...turn, numbers: turn.numbers.filter((n) => n !== opened) }))
    .filter((turn) => turn.numbers.length > 0);
}

/**
 * The next candidate to ring: the first not rung within TURN_SPACING_MS, else the first (rung once the
 * spacing has passed). Resolves the job and the delay, and the queue left, or undefined when it is empty.
 */
export function nextInTurn(
  queue: string[],
  lastRungAt: (jobId: string) => number | undefined,
  now: number,
): { jobId: string; delayMs: number; queue: string[] } | undefined {
  if (queue.length === 0) return undefined;
  const spaced = (jobId: string) => Math.max(0, (lastRungAt(jobId) ?? -Infinity) + TURN_SPACING_MS - now);
  const free = queue.findIndex((jobId) => spaced(jobId) === 0);
  const at = free < 0 ? 0 : free;
  const jobId = queue[at]!;
  return { jobId, delayMs: spaced(jobId), queue: queue.filter((_, i) => i !== at) };
}

/** A stored list of turns, or [] when it is not one (a state from before turns, or damaged). */
export function parseTurns(value: unknown): RingTurn[] {
  if (!Array.isArray(value)) return [];
  const ints = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => Number.isSafeInteger(n));
  const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
  const turns: RingTurn[] = [];
  for (const raw of value.slice(0, MAX_TURNS)) {
    const t = raw as Partial<RingTurn> | null;
    if (!t || !ints(t.numbers) || !strings(t.queue) || typeof t.rungAt !== 'number') continue;
    const current = typeof t.current === 'string' ? t.current : null;
    const stamp = typeof t.stamp === 'number' ? t.stamp : null;
    const numbers = t.numbers.slice(0, MAX_SKIPPED + 1);
    turns.push({ numbers, queue: t.queue.slice(0, MAX_QUEUE), current, stamp, rungAt: t.rungAt });
  }
  return turns;
}
