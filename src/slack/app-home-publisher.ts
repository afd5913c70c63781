import type { HomeView } from '@slack/types';
import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { type CacheView, ProcessLru } from '../common/process-lru.js';
import type { JobRecord } from '../jobs/domain/job.js';
import type { MonthFeedback } from '../jobs/job-feedback.js';
import type { JobStore } from '../jobs/ports.js';
import {
  appHomeUnavailableView,
  appHomeView,
  type HomeAlertChannel,
  type HomeBudget,
  type HomeSchedule,
} from './messages/app-home.js';
import type { HomeUsage } from './messages/home-jobs.js';
import type { HomeThisWeek } from './messages/home-this-week.js';
import type { HomeSettings } from './messages/project-settings.js';

/** Home is kept current only for people who opened it within this time (a mark in the store, any replica). */
export const HOME_OPENED_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Changes to one person's jobs within this time are published together, once. */
export const HOME_DEBOUNCE_MS = 2_000;
/** Jobs read per publish: Home shows 50, and "…and N more" counts the rest the store keeps (100). */
const JOBS_READ = 100;
/** Jobs whose last-seen state is remembered, to tell a change from a repeated card refresh. */
const SEEN_JOBS_MAX = 10_000;
/**
 * One publish per user at a time, across replicas: read and publish under a claim in the store. Long enough
 * for a publish waiting its turn in views.publish's pace; a holder that outlives it is caught by the hash.
 */
export const HOME_PUBLISH_LOCK_MS = 60_000;
/** Users whose last publish's hash this process remembers. */
const HASHES_MAX = 10_000;

export interface AppHomeSources {
  store: Pick<JobStore, 'listByRequester' | 'mark' | 'isMarked' | 'claim' | 'release'>;
  /** The user's own weekly schedules. */
  schedules(userId: string): Promise<HomeSchedule[]>;
  /** The channels the user subscribed to docs-health alerts. */
  alerts?(userId: string): Promise<HomeAlertChannel[]>;
  /** The hourly budgets left, as Home shows them to managers; undefined for everyone else. */
  budgets(userId: string): Promise<HomeBudget[] | undefined>;
  /**
   * views.publish; with `hash`, Slack refuses (`hash_conflict`) when the view changed since the publish
   * that returned it. Resolves the new view's hash.
   */
  publish(userId: string, view: HomeView, hash?: string): Promise<string | undefined>;
  /** This month's rated pull requests (everyone's votes). */
  feedback?(): Promise<MonthFeedback>;
  /** OAuth mode: the Settings section (docs projects) for admins, or the connect prompt. */
  settings?(userId: string): Promise<HomeSettings | undefined>;
  /** Agent jobs started this hour of the hourly limit (everyone sees it); absent: no usage line. */
  usage?(): Promise<HomeUsage | undefined>;
  /** "This week in your docs", from the analytics cache only (never an analytics request of its own). */
  thisWeek?(): Promise<HomeThisWeek | undefined>;
  /** A job's page on the docs dashboard (DOCS_JOB_URL_PATTERN), for its ⋯ menu. */
  jobPage?: ((job: JobRecord) => string | undefined) | undefined;
  logger: Logger;
  debounceMs?: number;
  /** The process's cache for this tenant (OAuth mode: one bound for every tenant's caches). */
  hashes?: CacheView<string> | undefined;
  /**
   * Jobs' states last shown, there too: a tenant whose job has ended keeps no table of its own for it
   * (issue 43 §2); an entry the bound evicts costs at most one more publish of the same view.
   */
  seen?: CacheView<string> | undefined;
}

const homeMark = (userId: string) => `home-opened:${userId}`;
const publishLock = (userId: string) => `home-publish:${userId}`;

/** What of a job Home shows: a card refresh that changes none of it publishes nothing. */
function shownState(record: JobRecord): string {
  return [record.status, record.prLink, record.watching, record.watchEnded, record.generation].join('|');
}

/**
 * Each user's own Home tab: published when they open it (and read again once after the debounce, for a
 * job saved just after that first read), and again (debounced per user) when one of their jobs changes
 * state, as long as they opened Home within the last 30 days. `views.publish` goes through the gateway,
 * which paces it to the method's tier.
 *
 * Versioned: a view built from an older read never replaces a newer one. Each publish reads and publishes
 * under a per-user claim in the store (any replica), so publishes follow their reads in order; one that
 * finds the claim taken publishes again after the debounce, reading what the holder may have missed. Each
 * publish also carries the hash of this process's last one: Slack refuses it if the view changed since
 * (another replica, or a holder whose claim ran out), and the view is read and published again.
 */
export class AppHomePublisher {
  // Refreshes waiting and running: made when needed and dropped once empty (each table costs about 150
  // bytes), so a tenant whose job ended keeps none of them (issue 43 §2).
  private pending: Map<string, { teamId: string | null; timer: NodeJS.Timeout }> | undefined;
  /** Per job: the state Home last showed of it (OAuth mode: in the process's one bounded cache). */
  private readonly seen: CacheView<string>;
  private running: Set<Promise<void>> | undefined;
  /** Per user: the hash Slack answered this process's last publish with. */
  private readonly hashes: CacheView<string>;
  private closed = false;

  constructor(private readonly sources: AppHomeSources) {
    this.hashes = sources.hashes ?? new ProcessLru(HASHES_MAX).view('home-hashes');
    this.seen = sources.seen ?? new ProcessLru(SEEN_JOBS_MAX).view('home-seen');
  }

  /**
   * `app_home_opened`: remembers that the user uses Home, then publishes their view. With the state store
   * down, Home says so (and when to look again) instead of showing no jobs.
   */
  async opened(teamId: string | null, userId: string): Promise<void> {
    try {
      await this.sources.store.mark(homeMark(userId), HOME_OPENED_TTL_MS);
      await this.publishNow(teamId, userId);
      // A job started just before the open may be saved just after this read: read once more.
      this.schedule(teamId, userId);
    } catch (error) {
      if ((error as { code?: string }).code !== 'state_unavailable') throw error;
      this.sources.logger.warn({ userId, error: describeError(error) }, 'Home: state store unavailable');
      await this.sources.publish(userId, appHomeUnavailableView());
    }
  }

  /**
   * Builds and publishes the user's view now, under the user's publish claim; with the claim taken
   * elsewhere, publishes after the debounce instead. Rejects when the store or Slack fails.
   */
  async publishNow(teamId: string | null, userId: string): Promise<void> {
    if (!(await this.sources.store.claim(publishLock(userId), HOME_PUBLISH_LOCK_MS))) {
      this.schedule(teamId, userId);
      return;
    }
    try {
      const view = await this.build(teamId, userId);
      let hash: string | undefined;
      try {
        hash = await this.sources.publish(userId, view, this.hashes.get(userId));
      } catch (error) {
        if ((error as { code?: string }).code !== 'hash_conflict') throw error;
        // Published since by another replica, or by a holder whose claim ran out (it may have read before
        // this read began): read again and publish what is there now.
        hash = await this.sources.publish(userId, await this.build(teamId, userId));
      }
      this.remember(userId, hash);
    } finally {
      await this.sources.store.release(publishLock(userId));
    }
  }

  private remember(userId: string, hash: string | undefined): void {
    if (hash === undefined) this.hashes.delete(userId);
    else this.hashes.set(userId, hash);
  }

  private async build(teamId: string | null, userId: string): Promise<HomeView> {
    const [jobs, schedules, budgets, feedback, alerts, settings, usage, thisWeek] = await Promise.all([
      this.sources.store.listByRequester(teamId, userId, JOBS_READ),
      this.sources.schedules(userId),
      this.sources.budgets(userId),
      this.sources.feedback?.(),
      this.sources.alerts?.(userId),
      this.sources.settings?.(userId),
      this.sources.usage?.(),
      this.sources.thisWeek?.(),
    ]);
    return appHomeView({
      userId,
      teamId,
      jobs,
      schedules,
      budgets,
      ...(feedback ? { feedback } : {}),
      ...(alerts ? { alerts } : {}),
      ...(settings ? { settings } : {}),
      usage,
      thisWeek,
      jobPage: this.sources.jobPage,
    });
  }

  /** A job's card or reply changed: republish its requester's Home soon, if they use Home. Never throws. */
  jobChanged(record: JobRecord): void {
    if (this.closed) return;
    const state = shownState(record);
    if (this.seen.get(record.jobId) === state) return;
    this.seen.set(record.jobId, state);
    this.schedule(record.teamId, record.requesterId);
  }

  /** Republishes the user's Home after the debounce (once, however often asked meanwhile). */
  private schedule(teamId: string | null, userId: string): void {
    if (this.closed || this.pending?.has(userId)) return;
    const timer = setTimeout(() => {
      this.pending?.delete(userId);
      if (this.pending?.size === 0) this.pending = undefined;
      const run = this.republish(teamId, userId).finally(() => {
        this.running?.delete(run);
        if (this.running?.size === 0) this.running = undefined;
      });
      this.running ??= new Set();
      this.running.add(run);
    }, this.sources.debounceMs ?? HOME_DEBOUNCE_MS);
    timer.unref();
    this.pending ??= new Map();
    this.pending.set(userId, { teamId, timer });
  }

  /** Refreshes waiting or running (for tests: none is kept once they are over). */
  inFlight(): { pending: number; running: number; tables: number } {
    const tables = Number(this.pending !== undefined) + Number(this.running !== undefined);
    return { pending: this.pending?.size ?? 0, running: this.running?.size ?? 0, tables };
  }

  private async republish(teamId: string | null, userId: string): Promise<void> {
    try {
      if (!(await this.sources.store.isMarked(homeMark(userId)))) return;
      await this.publishNow(teamId, userId);
    } catch (error) {
      this.sources.logger.warn({ userId, error: describeError(error) }, 'could not refresh the Home tab');
    }
  }

  /** Shutdown: pending refreshes are dropped (Home is refreshed again when opened); running ones finish. */
  async close(): Promise<void> {
    this.closed = true;
    for (const { timer } of this.pending?.values() ?? []) clearTimeout(timer);
    this.pending = undefined;
    await Promise.allSettled([...(this.running ?? [])]);
  }
}
