import type { HomeView } from '@slack/types';
import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { JobRecord } from '../jobs/domain/job.js';
import type { MonthFeedback } from '../jobs/job-feedback.js';
import type { JobStore } from '../jobs/ports.js';
import {
  type AppHomeInput,
  appHomeUnavailableView,
  appHomeView,
  type HomeBudget,
  type HomeSchedule,
} from './messages/app-home.js';

/** Home is kept current only for people who opened it within this time (a mark in the store, any replica). */
export const HOME_OPENED_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Changes to one person's jobs within this time are published together, once. */
export const HOME_DEBOUNCE_MS = 2_000;
/** Jobs read per publish: Home shows 50, and "…and N more" counts the rest the store keeps (100). */
const JOBS_READ = 100;
/** Jobs whose last-seen state is remembered, to tell a change from a repeated card refresh. */
const SEEN_JOBS_MAX = 10_000;

export interface AppHomeSources {
  store: Pick<JobStore, 'listByRequester' | 'mark' | 'isMarked'>;
  /** The user's own weekly schedules. */
  schedules(userId: string): Promise<HomeSchedule[]>;
  /** The hourly budgets left, as Home shows them. */
  budgets(): Promise<HomeBudget[]>;
  publish(userId: string, view: HomeView): Promise<void>;
  /** This month's rated pull requests (everyone's votes). */
  feedback?(): Promise<MonthFeedback>;
  projectOf?: AppHomeInput['projectOf'];
  logger: Logger;
  debounceMs?: number;
}

const homeMark = (userId: string) => `home-opened:${userId}`;

/** What of a job Home shows: a card refresh that changes none of it publishes nothing. */
function shownState(record: JobRecord): string {
  return [record.status, record.prLink, record.watching, record.watchEnded, record.generation].join('|');
}

/**
 * Each user's own Home tab: published when they open it, and again (debounced per user) when one of their
 * jobs changes state, as long as they opened Home within the last 30 days. `views.publish` goes through
 * the gateway, which paces it to the method's tier.
 */
export class AppHomePublisher {
  private readonly pending = new Map<string, { teamId: string | null; timer: NodeJS.Timeout }>();
  private readonly seen = new Map<string, string>();
  private readonly running = new Set<Promise<void>>();
  private closed = false;

  constructor(private readonly sources: AppHomeSources) {}

  /**
   * `app_home_opened`: remembers that the user uses Home, then publishes their view. With the state store
   * down, Home says so (and when to look again) instead of showing no jobs.
   */
  async opened(teamId: string | null, userId: string): Promise<void> {
    try {
      await this.sources.store.mark(homeMark(userId), HOME_OPENED_TTL_MS);
      await this.publishNow(teamId, userId);
    } catch (error) {
      if ((error as { code?: string }).code !== 'state_unavailable') throw error;
      this.sources.logger.warn({ userId, error: describeError(error) }, 'Home: state store unavailable');
      await this.sources.publish(userId, appHomeUnavailableView());
    }
  }

  /** Builds and publishes the user's view now. Rejects when the store or Slack fails. */
  async publishNow(teamId: string | null, userId: string): Promise<void> {
    const [jobs, schedules, budgets, feedback] = await Promise.all([
      this.sources.store.listByRequester(teamId, userId, JOBS_READ),
      this.sources.schedules(userId),
      this.sources.budgets(),
      this.sources.feedback?.(),
    ]);
    const view = appHomeView({
      userId,
      teamId,
      jobs,
      schedules,
      budgets,
      ...(feedback ? { feedback } : {}),
      ...(this.sources.projectOf ? { projectOf: this.sources.projectOf } : {}),
    });
    await this.sources.publish(userId, view);
  }

  /** A job's card or reply changed: republish its requester's Home soon, if they use Home. Never throws. */
  jobChanged(record: JobRecord): void {
    if (this.closed) return;
    const state = shownState(record);
    if (this.seen.get(record.jobId) === state) return;
    this.seen.delete(record.jobId);
    this.seen.set(record.jobId, state);
    if (this.seen.size > SEEN_JOBS_MAX) this.seen.delete(this.seen.keys().next().value!);
    const userId = record.requesterId;
    if (this.pending.has(userId)) return;
    const timer = setTimeout(() => {
      this.pending.delete(userId);
      const run = this.republish(record.teamId, userId).finally(() => this.running.delete(run));
      this.running.add(run);
    }, this.sources.debounceMs ?? HOME_DEBOUNCE_MS);
    timer.unref();
    this.pending.set(userId, { teamId: record.teamId, timer });
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
    for (const { timer } of this.pending.values()) clearTimeout(timer);
    this.pending.clear();
    await Promise.allSettled([...this.running]);
  }
}
