import { type Job, Queue } from 'bullmq';
import type { Logger } from '../../../common/logger.js';
import type { ImpactCheck } from '../../../insights/health/ports.js';
import type { WeeklySchedule } from '../../../insights/ports.js';
import { BullmqAlertScheduler } from '../bullmq-alert-scheduler.js';
import { BullmqImpactQueue } from '../bullmq-impact-queue.js';
import { BullmqPollQueue } from '../bullmq-poll-queue.js';
import { BullmqWeeklyScheduler, cronerRepeatStrategy } from '../bullmq-weekly-scheduler.js';
import { oldJobDueAt } from '../plane-old-jobs.js';
import type { QueuePlane } from '../queue-plane.js';
import { bullConnectionOf, type RedisClient } from '../redis-client.js';

/**
 * Before the shared plane (issue 34) each tenant had its own BullMQ queues under its key space,
 * `<tenant ns>:bull:<name>:*`. Their names, as they were.
 */
export const OLD_QUEUE_NAMES = [
  'polls',
  'pr-follow',
  'health-impact',
  'weekly-reports',
  'health-alerts',
] as const;
type OldQueueName = (typeof OLD_QUEUE_NAMES)[number];

/** Keys any used BullMQ queue leaves behind: one of them means the old queue is still there. */
const QUEUE_KEYS = ['meta', 'id', 'delayed', 'wait', 'active', 'prioritized', 'paused', 'repeat'];
const PENDING = ['delayed', 'waiting', 'prioritized', 'active'] as const;

export async function oldQueueExists(client: RedisClient, prefix: string, name: string): Promise<boolean> {
  return (await client.exists(QUEUE_KEYS.map((key) => `${prefix}:${name}:${key}`))) > 0;
}

/** A key space that may hold old queues, and the tenant its jobs belong to on the plane. */
export interface OldKeySpace {
  namespace: string;
  tenant: string;
}

export interface MovedCounts {
  keySpaces: number;
  jobs: number;
  schedulers: number;
  [name: string]: number;
}

/**
 * Moves every pending job and schedule of a key space's old queues onto the plane, through the tenant's
 * plane views (the ids and options they use): polls keep their due times, impact checks their due times
 * and attempts, weekly schedules their cron and zone (so their next run is the same instant), retries
 * their times, the alert check its interval. Each job leaves its old queue once it is on the plane; the
 * emptied queue is removed. Run twice, the second run finds no old queue and moves nothing.
 */
export async function moveOldQueues(o: {
  client: RedisClient;
  plane: QueuePlane;
  logger: Logger;
  space: OldKeySpace;
}): Promise<{ jobs: number; schedulers: number; found: boolean }> {
  const prefix = `${o.space.namespace}:bull`;
  const found = { jobs: 0, schedulers: 0, found: false };
  for (const name of OLD_QUEUE_NAMES) {
    if (!(await oldQueueExists(o.client, prefix, name))) continue;
    found.found = true;
    const queue = new Queue(name, {
      connection: bullConnectionOf(o.client),
      prefix,
      settings: { repeatStrategy: cronerRepeatStrategy },
    });
    queue.on('error', () => undefined);
    try {
      const moved = await moveQueue({ ...o, queue, kind: name, name, prefix });
      found.jobs += moved.jobs;
      found.schedulers += moved.schedulers;
      await queue.obliterate({ force: true });
    } finally {
      await queue.close().catch(() => undefined);
    }
  }
  return found;
}

/**
 * Moves a queue's pending jobs and schedules to the space's tenant on the plane. `kind` says what they are
 * (by the old queue's name); `name` and `prefix` are the BullMQ queue's. With `from`, only the entries of
 * that tenant move, and each leaves the queue (a plane queue other tenants share); without, the caller
 * removes the whole queue after.
 */
export async function moveQueue(o: {
  client: RedisClient;
  plane: QueuePlane;
  logger: Logger;
  space: OldKeySpace;
  queue: Queue;
  kind: OldQueueName;
  name: string;
  prefix: string;
  from?: string;
}): Promise<{ jobs: number; schedulers: number }> {
  const { client, logger, queue, kind, name, prefix } = o;
  const ours = (data: unknown) =>
    o.from === undefined || (data as { tenant?: unknown } | undefined)?.tenant === o.from;
  const on = {
    client,
    logger,
    namespace: o.space.namespace,
    plane: { plane: o.plane, tenant: o.space.tenant },
  };
  const dueAt = (job: Job) => oldJobDueAt(client, prefix, name, job);
  let schedulers = 0;
  // Schedules first: their iterations (the delayed jobs they keep) are re-made by the upsert, not moved.
  for (const scheduler of await queue.getJobSchedulers(0, -1, true)) {
    const data = scheduler.template?.data as { schedule?: WeeklySchedule } | undefined;
    if (!ours(data)) continue;
    if (kind === 'weekly-reports' && data?.schedule && scheduler.pattern) {
      const schedule = {
        ...data.schedule,
        cron: scheduler.pattern,
        timeZone: scheduler.tz ?? data.schedule.timeZone,
      };
      await new BullmqWeeklyScheduler(on).upsert(schedule);
      schedulers++;
    } else if (kind === 'health-alerts' && scheduler.every) {
      await new BullmqAlertScheduler({ ...on, intervalMs: Number(scheduler.every) }).arm();
      schedulers++;
    } else continue;
    if (o.from !== undefined) await queue.removeJobScheduler(scheduler.key);
  }
  let jobs = 0;
  const polls =
    kind === 'polls' || kind === 'pr-follow' ? new BullmqPollQueue({ ...on, queueName: kind }) : undefined;
  for (const job of await queue.getJobs([...PENDING])) {
    if (!job?.id || job.repeatJobKey || !ours(job.data)) continue;
    const at = await dueAt(job);
    if (polls) {
      const { jobId } = job.data as { jobId?: string };
      if (typeof jobId === 'string') await polls.schedule(jobId, Math.max(0, at - Date.now()));
    } else if (kind === 'health-impact') {
      const { check, attempt } = job.data as { check?: ImpactCheck; attempt?: number };
      if (check) await new BullmqImpactQueue(on).add(check, at, attempt ?? 0);
    } else if (kind === 'weekly-reports') {
      const { schedule, occurrence } = job.data as { schedule?: WeeklySchedule; occurrence?: number };
      if (schedule && occurrence !== undefined)
        await new BullmqWeeklyScheduler(on).retry(schedule, occurrence, at);
    }
    // A job still locked by a dead replica goes with the queue (it is on the plane now).
    await queue.remove(job.id).catch(() => 0);
    jobs++;
  }
  return { jobs, schedulers };
}
