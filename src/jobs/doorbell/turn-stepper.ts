import type { JobRecord } from '../domain/job.js';
import { checkTurn, nextInTurn, pullNumberIn, type RingTurn, settle } from './ring-turns.js';

export interface TurnStepDeps {
  getJob(jobId: string): Promise<JobRecord | undefined>;
  lastRungAt(jobId: string): number | undefined;
  now: number;
  /** The turns' repository: a job's PR elsewhere does not answer them. */
  repository: { key: string; webUrl: string };
}

/**
 * One step of a repository's turns: each turn whose rung job has been read moves on (a job that ended
 * with its PR takes that number out of every turn), and each turn with nobody rung rings its next candidate
 * still watched. Turns with no number left or no candidate left are closed. Resolves the turns, whether
 * anything changed and the jobs to ring: the caller saves the turns (fenced) and rings only if that worked.
 */
export async function stepTurns(
  turns: RingTurn[],
  deps: TurnStepDeps,
): Promise<{ turns: RingTurn[]; changed: boolean; rings: Array<{ jobId: string; delayMs: number }> }> {
  const rings: Array<{ jobId: string; delayMs: number }> = [];
  if (turns.length === 0) return { turns, changed: false, rings };
  // A job rung by one turn in this step counts as just rung for the next turn.
  const rungNow = new Map<string, number>();
  const lastRungAt = (jobId: string) => rungNow.get(jobId) ?? deps.lastRungAt(jobId);
  const { key, webUrl } = deps.repository;
  const opened = (prLink: string | null | undefined) => pullNumberIn(prLink, key, webUrl);
  let changed = false;
  // One read per job a step, however many turns rang it.
  const records = new Map<string, Promise<JobRecord | undefined>>();
  const recordOf = (jobId: string) => {
    const record = records.get(jobId) ?? deps.getJob(jobId);
    records.set(jobId, record);
    return record;
  };
  const checks = await Promise.all(
    turns.map(async (turn) =>
      turn.current === null ? undefined : checkTurn(turn, await recordOf(turn.current), deps.now, opened),
    ),
  );
  let open = turns.map((turn, i) => {
    if (checks[i]?.kind !== 'next') return turn;
    changed = true;
    return { ...turn, current: null, stamp: null };
  });
  for (const check of checks) if (check?.kind === 'next') open = settle(open, check.opened);

  const stepped: RingTurn[] = [];
  for (const turn of open) {
    if (turn.current !== null) {
      stepped.push(turn);
      continue;
    }
    changed = true;
    let queue = turn.queue;
    let rung: RingTurn | undefined;
    for (let next = nextInTurn(queue, lastRungAt, deps.now); next; ) {
      queue = next.queue;
      const record = await deps.getJob(next.jobId);
      if (record?.watching) {
        rings.push({ jobId: next.jobId, delayMs: next.delayMs });
        rungNow.set(next.jobId, deps.now + next.delayMs);
        rung = {
          ...turn,
          queue,
          current: next.jobId,
          stamp: record.updatedAt,
          rungAt: deps.now + next.delayMs,
        };
        break;
      }
      next = nextInTurn(queue, lastRungAt, deps.now);
    }
    // No candidate left: the PR is someone else's (or an issue's number); the jobs' own polls go on.
    if (rung) stepped.push(rung);
  }
  return { turns: stepped, changed, rings };
}
