import type { Clock } from '../../common/clock.js';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { JobRecord } from '../domain/job.js';
import type { JobStore, PollQueue } from '../ports.js';
import {
  type DoorbellTiming,
  failedReadDelay,
  jobsToRing,
  keyOf,
  leaseMs,
  RING_SPACING_MS,
  readIntervalMs,
  ringDelayMs,
  ringFor,
  rings,
} from './doorbell-rules.js';
import { type DoorbellPeriodic, DoorbellTicks } from './doorbell-ticks.js';
import type { DoorbellLeases, DoorbellState, NewestPullRequest, NewestPullRequestsFeed } from './ports.js';
import { type WatchedRepository as Watched, watchedRepositories } from './repository.js';
import { MAX_TURNS, openTurn } from './ring-turns.js';
import { stepTurns } from './turn-stepper.js';

export interface DoorbellDeps {
  feed: NewestPullRequestsFeed;
  leases: DoorbellLeases;
  store: Pick<JobStore, 'listWatched' | 'getJob'>;
  /** The jobs' poll queue: a ring asks for a poll now (the earlier due time wins; the queue paces them). */
  queue: Pick<PollQueue, 'schedule'>;
  clock: Clock;
  logger: Logger;
  timing: DoorbellTiming;
  /** GITHUB_WEB_URL: only repositories on this host are read. */
  webUrl: string;
  /** This replica's name on the leases. */
  holder: string;
  /** OAuth mode: the replica's one timer, shared by every scope (ticks only while a repository is watched). */
  periodic?: DoorbellPeriodic | undefined;
}

/**
 * The GitHub doorbell (issue 28): for each repository with watched jobs, one reader across replicas (a
 * fenced lease in the shared store) asks GitHub for its newest pull request conditionally every few seconds
 * (a 304 is free); a new one polls the repository's active jobs at once through the poll queue. GitHub only
 * says "look now": the platform's answer (its prLink) stays the truth, so a PR that is not a job's own is
 * never posted, and without the doorbell (no token, GitHub down) jobs are polled exactly as before.
 */
export class PullRequestDoorbell {
  private repositories = new Map<string, Watched>();
  private refreshedAt = Number.NEGATIVE_INFINITY;
  private readonly nextReadAt = new Map<string, number>();
  /** Leases this replica holds: repository key → fencing token. */
  private readonly held = new Map<string, number>();
  private readonly failures = new Map<string, number>();
  /** The state of each repository this replica reads, as last read or saved (its turns are stepped here). */
  private readonly known = new Map<string, DoorbellState>();
  /** When each job was last rung (one replica rings for a repository); forgotten after RING_SPACING_MS. */
  private readonly rungAt = new Map<string, number>();
  private readonly ticks: DoorbellTicks;
  private started = false;
  private stopped = false;

  constructor(private readonly deps: DoorbellDeps) {
    // Ticks are cheap (no request unless a repository is due): small ones keep each read close to its turn.
    // A turn's next ring waits for a tick too: 100 ms keeps a turn of six jobs under a second and a half.
    const tickMs = Math.min(100, Math.max(50, Math.round(deps.timing.intervalMs / 8)));
    this.ticks = new DoorbellTicks(tickMs, () => this.tick(), deps.periodic);
  }

  /**
   * Reads on a timer from now on (each repository when its turn comes). On the replica's one timer (OAuth
   * mode) the tick is registered only while the tenant has a watched repository: a poll's `watches` arms
   * it, a tick that finds none unregisters it, so a tenant with no job on GitHub costs no tick (issue 43).
   */
  start(): void {
    this.stopped = false;
    this.started = true;
    this.ticks.start();
  }

  /**
   * Stops reading and hands the leases back at once, for the replicas that stay (a read still under way
   * then finds its save refused: it neither moves the state nor rings), then waits for that read.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    const ticking = this.ticks.stop(); // no tick starts from here on
    const held = [...this.held];
    this.held.clear();
    this.known.clear();
    await Promise.all(
      held.map(([key, token]) => this.deps.leases.release(key, token).catch(() => undefined)),
    );
    await ticking;
  }

  /**
   * Whether a new PR in the job's repository will ring it: this replica runs the doorbell (so the repository
   * is read, by whichever replica holds its lease) and the repository's last read did not fail (the shared
   * state has been read and is not backing off). The job's own polls may then back off further
   * (`watchedPollDelay`); otherwise they keep the usual schedule.
   */
  async watches(record: Pick<JobRecord, 'repository'>): Promise<boolean> {
    if (!this.started || this.stopped) return false;
    const key = keyOf(record.repository, this.deps.webUrl);
    if (!key) return false;
    // Armed afresh: its first tick lists the watched jobs (this one among them) at once.
    if (this.ticks.arm()) this.refreshedAt = Number.NEGATIVE_INFINITY;
    const state = await this.deps.leases.state(key);
    return state !== undefined && state.notBefore <= this.deps.clock.now();
  }

  /** Repositories this replica reads now (holds the lease of). */
  reading(): string[] {
    return [...this.held.keys()];
  }

  /** One pass: every repository whose turn has come is read (by whoever holds its lease). Never throws. */
  async tick(): Promise<void> {
    const { clock, logger, timing } = this.deps;
    const now = clock.now();
    try {
      if (now - this.refreshedAt >= timing.refreshMs) this.remember(await this.deps.store.listWatched(), now);
    } catch (error) {
      logger.warn({ error: describeError(error) }, 'doorbell: could not list watched jobs; will retry');
      return;
    }
    for (const key of this.held.keys()) if (!this.repositories.has(key)) this.forget(key);
    // No watched job on the GitHub host: nothing to read or ring until a poll arms it again.
    if (this.repositories.size === 0 && this.known.size === 0) return this.ticks.disarm();
    const interval = readIntervalMs(this.repositories.size, timing);
    const due = [...this.repositories].filter(([key]) => (this.nextReadAt.get(key) ?? 0) <= now);
    await Promise.all(
      due.map(async ([key, watched]) => {
        // On the repository's own beat (a late tick does not push every later read back).
        const turn = (this.nextReadAt.get(key) ?? now) + interval;
        this.nextReadAt.set(key, turn > now ? turn : now + interval);
        try {
          await this.read(key, watched, interval);
        } catch (error) {
          logger.warn({ repository: key, error: describeError(error) }, 'doorbell: read failed; will retry');
        }
      }),
    );
    await Promise.all(
      [...this.known.keys()].map((key) =>
        this.stepTurns(key).catch((error: unknown) =>
          logger.warn({ repository: key, error: describeError(error) }, 'doorbell: could not ring in turn'),
        ),
      ),
    );
  }

  /** Moves the repository's turns on (see `ring-turns.ts`); saved only while this replica holds the lease. */
  private async stepTurns(key: string): Promise<void> {
    const state = this.known.get(key);
    const token = this.held.get(key);
    if (!state?.turns?.length || token === undefined) return;
    const now = this.deps.clock.now();
    const { turns, changed, rings } = await stepTurns(state.turns, {
      getJob: (jobId) => this.deps.store.getJob(jobId),
      lastRungAt: (jobId) => this.rungAt.get(jobId),
      now,
      repository: { key, webUrl: this.deps.webUrl },
    });
    // Rung only once the turns are saved: a replica that lost the lease rings nothing.
    if (!changed || !(await this.saveFenced(key, token, { ...state, turns }))) return;
    for (const { jobId, delayMs } of rings) await this.ringJob(jobId, delayMs, now);
  }

  private async ringJob(jobId: string, delayMs: number, now: number): Promise<void> {
    this.rungAt.set(jobId, now + delayMs);
    await this.deps.queue.schedule(jobId, delayMs);
  }

  private forget(key: string): void {
    this.held.delete(key);
    this.known.delete(key);
  }

  private remember(watched: JobRecord[], now: number): void {
    const repositories = watchedRepositories(watched, this.deps.webUrl);
    for (const key of this.nextReadAt.keys()) if (!repositories.has(key)) this.nextReadAt.delete(key);
    this.repositories = repositories;
    this.refreshedAt = now;
  }

  private async read(key: string, watched: Watched, interval: number): Promise<void> {
    const { leases, clock, logger } = this.deps;
    const token = await leases.acquire(key, this.deps.holder, leaseMs(interval));
    if (token === null) {
      this.forget(key);
      return;
    }
    if (this.stopped) {
      await leases.release(key, token);
      return;
    }
    if (!this.held.has(key)) logger.debug({ repository: key, token }, 'doorbell: reading this repository');
    this.held.set(key, token);
    const state = await leases.state(key);
    if (state) this.known.set(key, state);
    const now = clock.now();
    if (state && state.notBefore > now) {
      this.nextReadAt.set(key, state.notBefore);
      return;
    }
    let answer: Awaited<ReturnType<NewestPullRequestsFeed['newest']>>;
    try {
      answer = await this.deps.feed.newest(watched.ref, state?.etag ?? null);
    } catch (error) {
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      const notBefore = now + failedReadDelay(error, failures, interval);
      this.nextReadAt.set(key, notBefore);
      logger[failures === 1 ? 'warn' : 'debug'](
        { repository: key, failures, error: describeError(error) },
        'doorbell: GitHub did not list the pull requests; jobs are polled as usual meanwhile',
      );
      await this.saveFenced(key, token, { ...this.base(state), notBefore });
      return;
    }
    this.failures.delete(key);
    if (!answer.changed) return;
    const newest = answer.newest[0];
    const ring = rings(state, newest, watched.since);
    const next: DoorbellState = {
      etag: answer.etag,
      newestNumber: Math.max(state?.newestNumber ?? 0, newest?.number ?? 0),
      notBefore: 0,
      turns: state?.turns ?? [],
    };
    const plan = ring ? await this.plan(key, ringFor(state, newest), state?.newestNumber) : undefined;
    if (plan?.turn) next.turns = [...(next.turns ?? []), plan.turn].slice(-MAX_TURNS);
    // The fencing check comes before any job is rung: a reader whose lease lapsed (another replica took
    // over) neither moves the state back nor rings. A crash between the save and the ring loses only the
    // speed-up.
    if (!(await this.saveFenced(key, token, next))) return;
    const at = clock.now();
    for (const jobId of plan?.owners ?? [])
      await this.ringJob(jobId, ringDelayMs(this.rungAt.get(jobId), at), at);
    await this.stepTurns(key);
  }

  private base(state: DoorbellState | undefined): DoorbellState {
    return {
      etag: state?.etag ?? null,
      newestNumber: state?.newestNumber ?? 0,
      notBefore: 0,
      turns: state?.turns ?? [],
    };
  }

  private async saveFenced(key: string, token: number, state: DoorbellState): Promise<boolean> {
    if (await this.deps.leases.save(key, token, state)) {
      this.known.set(key, state);
      return true;
    }
    this.forget(key);
    this.deps.logger.info({ repository: key, token }, 'doorbell: lease taken over by another replica');
    return false;
  }

  /**
   * Whom a new PR rings. When it comes from a branch a job reported, those jobs, now: it is theirs.
   * Otherwise its candidates (every active job of the repository that may own it), in turn.
   */
  private async plan(key: string, pr: NewestPullRequest, lastSeen: number | undefined) {
    const { store, logger, clock, webUrl } = this.deps;
    const watched = await store.listWatched();
    const now = clock.now();
    this.remember(watched, now);
    const jobs = jobsToRing(watched, key, webUrl, pr);
    for (const [jobId, at] of this.rungAt) if (at + RING_SPACING_MS <= now) this.rungAt.delete(jobId);
    const owned = pr.headRef !== null && jobs.length > 0 && jobs.every((r) => r.ref === pr.headRef);
    const jobIds = jobs.map((r) => r.jobId);
    logger.info(
      { repository: key, pullRequest: pr.number, jobs: jobIds, inTurn: !owned },
      'doorbell: new pull request on GitHub; polling the jobs that may own it',
    );
    if (owned) return { owners: jobIds };
    return jobs.length > 0 ? { turn: openTurn(jobs, (lastSeen ?? pr.number - 1) + 1, pr.number) } : undefined;
  }
}
