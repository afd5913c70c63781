import type { JobRecord } from '../src/jobs/domain/job.js';
import { nextPollDelay, type PollTiming, watchedPollDelay } from '../src/jobs/domain/poll-timing.js';
import {
  CLOCK_SKEW_MS,
  jobsToRing,
  ringDelayMs,
  ringFor,
  rings,
} from '../src/jobs/doorbell/doorbell-rules.js';
import { MAX_TURNS, openTurn, type RingTurn } from '../src/jobs/doorbell/ring-turns.js';
import { stepTurns } from '../src/jobs/doorbell/turn-stepper.js';

/**
 * One repository on a simulated clock: jobs start and end (each opening its PR as the platform completes
 * it), other people open PRs too; each job is polled with the production schedule (`nextPollDelay`) and,
 * with the doorbell, GitHub is read every `doorbellMs` and a new PR rings the production way (`rings`,
 * `jobsToRing`): the jobs on the PR's branch are polled at once, or else its candidates in turn (`openTurn`,
 * `stepTurns`, stepped on the doorbell's 100 ms tick). A poll sees a job once the platform reports it ended.
 * Latencies: a GitHub read and a docs poll take `rttMs` each.
 */
export interface SimJob {
  start: number;
  end: number;
}

export interface SimInput {
  jobs: SimJob[];
  /** When other people's PRs are opened (ms). */
  otherPrs: number[];
  timing: PollTiming;
  /** 0: polling alone. */
  doorbellMs: number;
  rttMs: number;
  random: () => number;
  /**
   * The platform reports a job's branch a second into the job: from its first poll on, a PR rings only its
   * own job (`jobsToRing`). Off: the worst case, every PR rings every active job of the repository.
   */
  branches?: boolean;
  /**
   * Watched jobs poll on the doorbell's longer backoff (`watchedPollDelay`) once the repository has been
   * read (production: `PullRequestDoorbell.watches`). Off: `nextPollDelay` as without the doorbell.
   */
  watchedBackoff?: boolean;
}

export interface SimResult {
  /** Per job: from its PR's creation to the poll that saw it (ms). */
  delays: number[];
  docsCalls: number;
  githubReads: number;
  /** Full answers (a PR opened since the last read): the calls GitHub counts against the rate limit. */
  githubCounted: number;
  newPrs: number;
}

type Event =
  | { t: number; kind: 'start'; job: number }
  | { t: number; kind: 'poll'; job: number; gen: number }
  | { t: number; kind: 'read' }
  | { t: number; kind: 'tick' }
  | { t: number; kind: 'ring'; number: number; createdAt: number; headRef: string };

/** A binary min-heap on `t` (ties: insertion order). */
class Events {
  private readonly heap: Array<{ e: Event; seq: number }> = [];
  private seq = 0;
  push(e: Event): void {
    const h = this.heap;
    h.push({ e, seq: this.seq++ });
    for (let i = h.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (this.less(h[p]!, h[i]!)) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  }
  pop(): Event | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l]!, h[m]!)) m = l;
        if (r < h.length && this.less(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[m], h[i]] = [h[i]!, h[m]!];
        i = m;
      }
    }
    return top?.e;
  }
  private less(a: { e: Event; seq: number }, b: { e: Event; seq: number }): boolean {
    return a.e.t < b.e.t || (a.e.t === b.e.t && a.seq < b.seq);
  }
}

export async function simulateRepository(input: SimInput): Promise<SimResult> {
  const { jobs, timing, doorbellMs, rttMs, random } = input;
  // Every PR of the repository in creation order: numbers grow with time, as GitHub numbers them.
  const prs = [
    ...jobs.map((j, i) => ({ t: j.end, head: `job-${i}` })),
    ...input.otherPrs.map((t) => ({ t, head: 'someone-else' })),
  ].sort((a, b) => a.t - b.t);
  const numberAt = (t: number) => {
    let lo = 0;
    let hi = prs.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (prs[mid]!.t <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo; // PRs opened at or before t = the newest number
  };
  const events = new Events();
  const watching = new Array<boolean>(jobs.length).fill(false);
  const pending = new Array<number>(jobs.length).fill(Number.POSITIVE_INFINITY);
  const gen = new Array<number>(jobs.length).fill(0);
  const lastRing = new Array<number | undefined>(jobs.length).fill(undefined);
  const delays = new Array<number>(jobs.length).fill(Number.NaN);
  let docsCalls = 0;
  let githubReads = 0;
  let githubCounted = 0;
  let seenNumber = 0;
  let readPending = false;
  const records = new Map<number, JobRecord>();
  const ended = new Map<number, JobRecord>();
  let turns: RingTurn[] = [];
  let tickPending = false;
  const TICK_MS = 100;
  const tickAfter = (t: number) => {
    if (tickPending || turns.length === 0) return;
    tickPending = true;
    events.push({ t: Math.ceil((t + 1) / TICK_MS) * TICK_MS, kind: 'tick' });
  };
  const step = async (t: number) => {
    const stepped = await stepTurns(turns, {
      getJob: async (jobId) => records.get(Number(jobId)) ?? ended.get(Number(jobId)),
      lastRungAt: (jobId) => lastRing[Number(jobId)],
      now: t,
      repository: { key: 'acme/docs', webUrl: 'https://github.com' },
    });
    turns = stepped.turns;
    for (const { jobId, delayMs } of stepped.rings) ringJob(Number(jobId), t + delayMs);
    tickAfter(t);
  };
  const ringJob = (job: number, at: number) => {
    lastRing[job] = at;
    if (pending[job]! > at) schedulePoll(job, at);
  };
  const schedulePoll = (job: number, t: number) => {
    gen[job]! += 1;
    pending[job] = t;
    events.push({ t, kind: 'poll', job, gen: gen[job]! });
  };
  for (const [i, job] of jobs.entries()) events.push({ t: job.start, kind: 'start', job: i });
  const phase = Math.round(random() * Math.max(1, doorbellMs));

  for (let e = events.pop(); e; e = events.pop()) {
    if (e.kind === 'start') {
      watching[e.job] = true;
      records.set(e.job, record(e.job, jobs[e.job]!.start));
      schedulePoll(e.job, e.t + timing.minMs);
      if (doorbellMs > 0 && !readPending) {
        // The next read on the doorbell's grid (the repository list is refreshed every few seconds).
        readPending = true;
        events.push({ t: phase + Math.ceil((e.t - phase + 1) / doorbellMs) * doorbellMs, kind: 'read' });
      }
    } else if (e.kind === 'poll') {
      if (!watching[e.job] || e.gen !== gen[e.job]) continue;
      docsCalls += 1;
      const job = jobs[e.job]!;
      const record = records.get(e.job)!;
      record.updatedAt = e.t + rttMs; // a poll saves the record
      if (e.t + rttMs >= job.end) {
        watching[e.job] = false;
        records.delete(e.job);
        const number = prs.findIndex((pr) => pr.head === `job-${e.job}`) + 1;
        ended.set(e.job, {
          ...record,
          watching: false,
          prLink: `https://github.com/acme/docs/pull/${number}`,
        });
        delays[e.job] = e.t + rttMs - job.end;
      } else {
        if (input.branches && e.t - job.start >= 1_000) records.get(e.job)!.ref = `job-${e.job}`;
        const schedule = input.watchedBackoff && githubReads > 0 ? watchedPollDelay : nextPollDelay;
        schedulePoll(e.job, e.t + schedule(e.t - job.start, timing, random));
      }
    } else if (e.kind === 'read') {
      githubReads += 1;
      const number = numberAt(e.t);
      if (number > seenNumber) {
        githubCounted += 1;
        const pr = prs[number - 1]!;
        events.push({ t: e.t + rttMs, kind: 'ring', number, createdAt: pr.t, headRef: pr.head });
      }
      if (records.size > 0) events.push({ t: e.t + doorbellMs, kind: 'read' });
      else readPending = false;
    } else if (e.kind === 'tick') {
      tickPending = false;
      await step(e.t);
    } else {
      const watched = [...records.values()];
      const earliest = Math.min(...watched.map((r) => r.activeSince));
      const newest = { number: e.number, createdAt: e.createdAt, headRef: input.branches ? e.headRef : null };
      const state = { etag: null, newestNumber: seenNumber, notBefore: 0 };
      if (rings(state, newest, earliest)) {
        const pr = ringFor(state, newest);
        const jobs = jobsToRing(watched, 'acme/docs', 'https://github.com', pr);
        if (pr.headRef !== null && jobs.length > 0 && jobs.every((r) => r.ref === pr.headRef))
          for (const r of jobs) ringJob(Number(r.jobId), e.t + ringDelayMs(lastRing[Number(r.jobId)], e.t));
        else if (jobs.length > 0) {
          turns = [...turns, openTurn(jobs, seenNumber + 1, e.number)].slice(-MAX_TURNS);
          await step(e.t);
        }
      }
      seenNumber = Math.max(seenNumber, e.number);
    }
  }
  return { delays, docsCalls, githubReads, githubCounted, newPrs: prs.length };
}

function record(job: number, activeSince: number): JobRecord {
  return {
    ...{ jobId: String(job), watching: true, activeSince, repository: 'acme/docs', ref: null },
    ...{ updatedAt: activeSince, prLink: null },
  } as JobRecord;
}

/** A fixed poller's calls for one job: every `everyMs` from its start until it sees the end. */
export function fixedCalls(job: SimJob, everyMs: number): number {
  return Math.ceil((job.end - job.start) / everyMs);
}

export { CLOCK_SKEW_MS };
