import type { Clock } from '../../common/clock.js';
import { describeError, errorCode } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { HealthReports } from '../health/health-reports.js';
import type { PageViewsReports } from '../page-views/page-views-reports.js';
import {
  kindOf,
  type ScheduleKind,
  type ScheduleStore,
  scheduleKey,
  type WeeklyReportScheduler,
  type WeeklySchedule,
} from '../ports.js';
import { cronProblem, nextOccurrence, previousOccurrence, weeklyCron } from '../ranges/cron-times.js';
import { isValidTimeZone } from '../ranges/dates.js';
import { DEFAULT_TOP, type Weekday } from '../ranges/grammar.js';

/** A post missed while the bot was down is still sent when it is at most this late. */
export const MISSED_POST_GRACE_MS = 3 * 60 * 60 * 1000;
/**
 * A failed post is tried again within the grace: after as long as it is already late (so 1, 1, 2, 4, … min,
 * doubling without counting attempts, which works across replicas), capped, until the grace is over.
 */
const RETRY_MIN_MS = 60_000;
const RETRY_MAX_MS = 30 * 60_000;
/** How long an occurrence's claim lives: longer than the week between occurrences. */
const CLAIM_TTL_MS = 8 * 24 * 60 * 60 * 1000;
/** How long one replica may compute an occurrence before another may (its holder died or froze). */
const IN_PROGRESS_MS = 2 * 60 * 1000;

export interface WeeklyReportsOptions {
  analytics: PageViewsReports;
  /** Weekly `/docs-health` posts. */
  health: Pick<HealthReports, 'publishWeekly'>;
  store: ScheduleStore;
  scheduler: WeeklyReportScheduler;
  clock: Clock;
  logger: Logger;
  /** First retry delay of a failed post (tests shorten it); default one minute. */
  retryMinMs?: number;
  /** From WEEKLY_REPORT_CHANNEL / _CRON / _TZ. */
  envDefault?: { channel: string | undefined; cron: string | undefined; timeZone: string | undefined };
}

/**
 * Weekly channel posts of two kinds (page views, docs health): one schedule per kind per channel, kept in the
 * store. Each occurrence is claimed in the store before posting, so it is posted once even with restarts or
 * several instances; firing, catch-up and claims are the same for both kinds, only the post differs.
 */
export class WeeklyReports {
  constructor(private readonly o: WeeklyReportsOptions) {}

  async start(): Promise<void> {
    await this.seedFromEnv();
    const schedules = await this.o.store.list();
    const now = this.o.clock.now();
    for (const schedule of schedules) await this.catchUp(schedule, now);
    await this.o.scheduler.start(async (schedule, occurrence) => {
      await this.fireOnTime(schedule, occurrence);
    });
    for (const schedule of schedules) await this.o.scheduler.upsert(schedule);
  }

  async stop(): Promise<void> {
    await this.o.scheduler.stop();
  }

  async schedule(input: {
    kind?: ScheduleKind;
    channelId: string;
    userId: string;
    weekday: Weekday;
    hour: number;
    minute: number;
    timeZone: string;
  }): Promise<{ schedule: WeeklySchedule; nextRun: number | undefined; replaced: boolean }> {
    const schedule: WeeklySchedule = {
      kind: input.kind ?? 'page_views',
      channelId: input.channelId,
      cron: weeklyCron(input.weekday, input.hour, input.minute),
      timeZone: input.timeZone,
      createdBy: input.userId,
      createdAt: this.o.clock.now(),
      source: 'command',
    };
    const replaced = (await this.o.store.get(scheduleKey(schedule))) !== undefined;
    await this.o.store.put(schedule);
    await this.o.scheduler.upsert(schedule);
    return { schedule, nextRun: this.nextRun(schedule), replaced };
  }

  async unschedule(channelId: string, kind: ScheduleKind = 'page_views'): Promise<boolean> {
    return (await this.removeSchedule(channelId, kind)).removed;
  }

  /** Removes the channel's schedule of `kind`: whether it did, and the schedule as it was (for an Undo). */
  async removeSchedule(channelId: string, kind: ScheduleKind) {
    const key = scheduleKey({ kind, channelId });
    const schedule = await this.o.store.get(key);
    const removed = await this.o.store.remove(key);
    await this.o.scheduler.remove(key);
    return removed && schedule ? { removed, schedule } : { removed };
  }

  /** Puts back a removed schedule unless one of its kind was set up meanwhile (it stands); true if put back. */
  async restore(schedule: WeeklySchedule): Promise<boolean> {
    if ((await this.o.store.get(scheduleKey(schedule))) !== undefined) return false;
    await this.o.store.put(schedule);
    await this.o.scheduler.upsert(schedule);
    return true;
  }

  /** Every channel's schedules, or only `channelId`'s (what a non-admin may see); of one kind, or both. */
  async list(
    channelId?: string,
    kind?: ScheduleKind,
  ): Promise<Array<WeeklySchedule & { nextRun: number | undefined }>> {
    const all = await this.o.store.list();
    const schedules = all.filter(
      (s) =>
        (channelId === undefined || s.channelId === channelId) && (kind === undefined || kindOf(s) === kind),
    );
    return schedules.map((s) => ({ ...s, nextRun: this.nextRun(s) }));
  }

  nextRun(schedule: WeeklySchedule): number | undefined {
    return nextOccurrence(schedule.cron, schedule.timeZone, this.o.clock.now());
  }

  /**
   * One occurrence: the last 7 full days before it, in the schedule's time zone, owed once under the
   * occurrence's key (the outbox posts it once whoever owes it). A short claim keeps two replicas from
   * computing it at the same time; one that finds it held looks again once the hold lapses (its holder may
   * have died), and one that finds it owed does nothing.
   */
  async fire(
    schedule: WeeklySchedule,
    occurrenceMs: number,
  ): Promise<'posted' | 'already_posted' | 'failed'> {
    const key = scheduleKey(schedule);
    const current = await this.o.store.get(key);
    if (!current || current.cron !== schedule.cron || current.timeZone !== schedule.timeZone) {
      return 'already_posted';
    }
    const claimKey = `weekly:${key}:${occurrenceMs}`;
    if (await this.o.store.isMarked(claimKey)) return 'already_posted';
    if (!(await this.o.store.claim(claimKey, IN_PROGRESS_MS))) {
      const at = this.o.clock.now() + IN_PROGRESS_MS;
      if (at - occurrenceMs <= MISSED_POST_GRACE_MS)
        await this.o.scheduler.retry(schedule, occurrenceMs, at).catch(() => undefined);
      return 'already_posted';
    }
    const what = kindOf(schedule) === 'health' ? 'docs-health' : 'page-view';
    const log = this.o.logger.child({
      channelId: schedule.channelId,
      kind: kindOf(schedule),
      occurrence: new Date(occurrenceMs).toISOString(),
    });
    try {
      await this.post(schedule, occurrenceMs, claimKey);
      await this.o.store.mark(claimKey, CLAIM_TTL_MS);
      log.info(`weekly ${what} report owed (posted by the outbox)`);
      return 'posted';
    } catch (error) {
      // Let a retry (or a restart) inside the grace period try this occurrence again.
      await this.o.store.release(claimKey).catch(() => undefined);
      const retryAt = this.retryTime(occurrenceMs);
      log.error(
        {
          error: describeError(error),
          code: errorCode(error),
          retryAt: retryAt === undefined ? null : new Date(retryAt).toISOString(),
        },
        retryAt === undefined
          ? `weekly ${what} report failed; its grace period is over, so this week's post is skipped`
          : `weekly ${what} report failed; retrying`,
      );
      if (retryAt !== undefined) {
        await this.o.scheduler
          .retry(schedule, occurrenceMs, retryAt)
          .catch((retryError: unknown) =>
            log.error(
              { error: describeError(retryError) },
              'could not schedule the retry of a weekly report',
            ),
          );
      }
      return 'failed';
    }
  }

  /** When to try a failed occurrence again; undefined once that would be past the grace. */
  private retryTime(occurrenceMs: number): number | undefined {
    const now = this.o.clock.now();
    const delay = Math.min(RETRY_MAX_MS, Math.max(this.o.retryMinMs ?? RETRY_MIN_MS, now - occurrenceMs));
    const at = now + delay;
    return at - occurrenceMs > MISSED_POST_GRACE_MS ? undefined : at;
  }

  /** The last 7 full days before the occurrence in the schedule's zone, of the channel's project at fire time. */
  private async post(schedule: WeeklySchedule, occurrenceMs: number, once: string): Promise<void> {
    // Set up from the environment: the footer names whoever runs docs-agent rather than a person.
    const setUpBy = schedule.source === 'command' ? schedule.createdBy : undefined;
    if (kindOf(schedule) === 'health') {
      await this.o.health.publishWeekly(schedule.channelId, schedule.timeZone, occurrenceMs, once, setUpBy);
      return;
    }
    const request = this.o.analytics.requestFor(
      { range: { kind: 'days', days: 7 }, top: DEFAULT_TOP, prefix: undefined },
      schedule.timeZone,
      occurrenceMs,
      // A changed DOCS_CHANNEL_PROJECTS applies to the next post.
      schedule.channelId,
    );
    await this.o.analytics.publish(schedule.channelId, request, undefined, once, { setUpBy });
  }

  /**
   * A scheduler's fire. It can be late (a queued BullMQ occurrence found when the first replica starts after
   * an outage, a suspended machine): the same grace as the start-up catch-up applies, so a stale week is
   * skipped with a log line rather than posted hours late.
   */
  async fireOnTime(schedule: WeeklySchedule, occurrenceMs: number): Promise<void> {
    const lateMs = this.o.clock.now() - occurrenceMs;
    if (lateMs > MISSED_POST_GRACE_MS) {
      this.logSkipped(schedule, occurrenceMs, lateMs);
      return;
    }
    await this.fire(schedule, occurrenceMs);
  }

  private logSkipped(schedule: WeeklySchedule, occurrenceMs: number, lateMs: number): void {
    this.o.logger.info(
      {
        channelId: schedule.channelId,
        kind: kindOf(schedule),
        occurrence: new Date(occurrenceMs).toISOString(),
        lateMinutes: Math.round(lateMs / 60_000),
      },
      'skipping a weekly report missed while the bot was down: too late to post',
    );
  }

  private async catchUp(schedule: WeeklySchedule, now: number): Promise<void> {
    const missed = previousOccurrence(schedule.cron, schedule.timeZone, now);
    if (missed === undefined || missed < schedule.createdAt) return;
    const lateMs = now - missed;
    if (lateMs > MISSED_POST_GRACE_MS) {
      this.logSkipped(schedule, missed, lateMs);
      return;
    }
    const outcome = await this.fire(schedule, missed);
    if (outcome === 'posted') {
      this.o.logger.info(
        { channelId: schedule.channelId, lateMinutes: Math.round(lateMs / 60_000) },
        'sent a missed weekly report',
      );
    }
  }

  private async seedFromEnv(): Promise<void> {
    const env = this.o.envDefault;
    if (!env?.channel && !env?.cron) return;
    if (!env.channel || !env.cron) {
      this.o.logger.error(
        'WEEKLY_REPORT_CHANNEL and WEEKLY_REPORT_CRON must be set together; no default weekly report',
      );
      return;
    }
    const timeZone = env.timeZone ?? 'UTC';
    const problem = isValidTimeZone(timeZone)
      ? cronProblem(env.cron, timeZone)
      : `unknown time zone ${timeZone}`;
    if (problem) {
      this.o.logger.error(
        { problem },
        'WEEKLY_REPORT_CRON / WEEKLY_REPORT_TZ are invalid; no default weekly report',
      );
      return;
    }
    const existing = await this.o.store.get(env.channel);
    if (existing && existing.source === 'command') return;
    if (existing && existing.cron === env.cron && existing.timeZone === timeZone) return;
    await this.o.store.put({
      channelId: env.channel,
      cron: env.cron,
      timeZone,
      createdBy: 'environment',
      createdAt: existing?.createdAt ?? this.o.clock.now(),
      source: 'env',
    });
  }
}
