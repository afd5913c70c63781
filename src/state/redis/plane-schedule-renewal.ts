import type { Job, Queue, RepeatOptions } from 'bullmq';

/**
 * A job of a BullMQ job scheduler (weekly posts, alert checks) taken by the fair take: the scheduler's next
 * occurrence is added now, as BullMQ's own Worker does when it takes one (`Worker.nextJobFromJobData`), so
 * a schedule does not end with the first job the fair take hands out. Safe with replicas racing: BullMQ
 * adds the next occurrence only for the scheduler's current job (`producerId`), under a job id made of the
 * scheduler and the occurrence's time, so a second call for the same job adds nothing. A weekly pattern's
 * next time is the shard queue's `repeatStrategy` (croner, `cronerRepeatStrategy`).
 */
export async function renewSchedule(queue: Queue, job: Job): Promise<void> {
  // A scheduler's job carries its repeat options (BullMQ's job options type leaves them out).
  const { repeat } = job.opts as { repeat?: RepeatOptions };
  if (!job.repeatJobKey || job.id === undefined || !repeat) return;
  const scheduler = await queue.jobScheduler;
  await scheduler.upsertJobScheduler(job.repeatJobKey, repeat, job.name, job.data, job.opts, {
    override: false,
    producerId: job.id,
  });
}
