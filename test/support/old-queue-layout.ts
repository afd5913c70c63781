import { Queue } from 'bullmq';
import type { ImpactCheck } from '../../src/insights/health/ports.js';
import { scheduleKey, type WeeklySchedule } from '../../src/insights/ports.js';
import { cronerRepeatStrategy } from '../../src/state/redis/bullmq-weekly-scheduler.js';
import { bullConnectionOf, type RedisClient } from '../../src/state/redis/redis-client.js';

/*
 * A key space's queues as the code before the migration wrote them, through the raw BullMQ API: each key
 * space (single-workspace mode's `docs-agent`, or a tenant's before issue 34) had its own queue per kind
 * under `<ns>:bull:<name>`, jobs without a tenant in their data. Written from the removed own-queue paths
 * of BullmqPollQueue (ownPollQueue), BullmqImpactQueue, BullmqWeeklyScheduler and BullmqAlertScheduler.
 */

const POLL_DEFAULTS = {
  removeOnComplete: true,
  removeOnFail: true,
  attempts: 1_000_000,
  backoff: { type: 'poll-retry' },
};
const KEEP_DONE_S = 180 * 24 * 60 * 60;
const CHECK_DEFAULTS = {
  removeOnComplete: { age: KEEP_DONE_S },
  removeOnFail: { age: KEEP_DONE_S },
  attempts: 10_000,
  backoff: { type: 'fixed' as const, delay: 60_000 },
};

export class OldQueueLayout {
  private readonly queues = new Map<string, Queue>();

  constructor(
    private readonly client: RedisClient,
    readonly namespace: string,
  ) {}

  private queue(name: string, options: Record<string, unknown> = {}): Queue {
    let queue = this.queues.get(name);
    if (!queue) {
      queue = new Queue(name, {
        connection: bullConnectionOf(this.client),
        prefix: `${this.namespace}:bull`,
        ...options,
      });
      this.queues.set(name, queue);
    }
    return queue;
  }

  /** A watched job's pending poll (or a followed PR's: `pr-follow`), due at `dueAt`. */
  async poll(jobId: string, dueAt: number, name: 'polls' | 'pr-follow' = 'polls'): Promise<void> {
    await this.queue(name, { defaultJobOptions: POLL_DEFAULTS }).add(
      'poll',
      { jobId, dueAt },
      { jobId: `poll-${encodeURIComponent(jobId)}`, delay: Math.max(0, dueAt - Date.now()) },
    );
  }

  /** A channel's weekly schedule: one job scheduler keeping the next occurrence's delayed job. */
  async weekly(schedule: WeeklySchedule): Promise<void> {
    await this.queue('weekly-reports', {
      settings: { repeatStrategy: cronerRepeatStrategy },
    }).upsertJobScheduler(
      `weekly-${encodeURIComponent(scheduleKey(schedule))}`,
      { pattern: schedule.cron, tz: schedule.timeZone },
      {
        name: 'weekly-report',
        data: { schedule },
        opts: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
      },
    );
  }

  /** The retry of a failed weekly occurrence. */
  async weeklyRetry(schedule: WeeklySchedule, occurrence: number, atMs: number): Promise<void> {
    await this.queue('weekly-reports', { settings: { repeatStrategy: cronerRepeatStrategy } }).add(
      'weekly-report-retry',
      { schedule, occurrence },
      {
        jobId: `weekly-retry-${encodeURIComponent(scheduleKey(schedule))}-${occurrence}-${atMs}`,
        delay: Math.max(0, atMs - Date.now()),
        removeOnComplete: true,
        removeOnFail: true,
        attempts: 1,
      },
    );
  }

  /** A "did it work?" check, with `attempt` tries behind it. */
  async impact(check: ImpactCheck, dueAt: number, attempt = 0): Promise<void> {
    await this.queue('health-impact', { defaultJobOptions: CHECK_DEFAULTS }).add(
      'impact',
      { check, attempt },
      {
        ...CHECK_DEFAULTS,
        jobId: `impact-${encodeURIComponent(check.jobId)}`,
        delay: Math.max(0, dueAt - Date.now()),
      },
    );
  }

  /** The docs-health alert check, armed every `everyMs`. */
  async alerts(everyMs: number): Promise<void> {
    await this.queue('health-alerts').upsertJobScheduler(
      'health-alert-check',
      { every: everyMs },
      {
        name: 'health-alert-check',
        data: {},
        opts: { removeOnComplete: true, removeOnFail: true, attempts: 1 },
      },
    );
  }

  /** The next run of each weekly schedule, by schedule key (as the old scheduler's `nextRuns` read it). */
  async weeklyNextRuns(): Promise<Map<string, number>> {
    const schedulers = await this.queue('weekly-reports').getJobSchedulers(0, -1, true);
    return new Map(
      schedulers
        .filter((s) => s.template?.data?.schedule && s.next !== undefined)
        .map((s) => [scheduleKey(s.template!.data!.schedule as WeeklySchedule), s.next!]),
    );
  }

  async close(): Promise<void> {
    for (const queue of this.queues.values()) await queue.close();
    this.queues.clear();
  }
}

/** Every key of the key space's old queues (none once migrated). */
export function oldQueueKeys(client: RedisClient, namespace: string): Promise<string[]> {
  return client.keys(`${namespace}:bull:*`);
}
