import type { Job, JobsOptions, Queue } from 'bullmq';
import { oldJobDueAt } from './plane-old-jobs.js';
import type { RedisClient } from './redis-client.js';

/** Jobs read from a queue at once while re-homing it. */
const PAGE = 500;
/** Every state a job waits in; `active` ones are moved only once their lock has lapsed (their worker died). */
const PENDING = ['delayed', 'waiting', 'prioritized', 'waiting-children'] as const;

/** What one pass moved. */
export interface Rehomed {
  jobs: number;
  schedulers: number;
  /** Jobs that stayed because a live worker holds them (an old replica mid-run): a later pass moves them. */
  held: number;
}

/**
 * Moves every job and job scheduler of `from` that belongs in another queue (`target(tenant)`: its tenant's
 * shard) there, keeping its id, name, data, options and due time. Idempotent: a job is added to its shard
 * under its own id (a second add of that id is a no-op) before it is removed here, and a scheduler is
 * upserted there before it is removed here, so a pass that dies mid-way loses nothing and the next pass
 * finishes it. The caller holds a lease, so two passes never move the same job at once.
 */
export async function rehomeQueue(o: {
  client: RedisClient;
  from: Queue;
  /** `from`'s BullMQ prefix (its delayed set and locks are read directly). */
  fromPrefix: string;
  target(tenant: string): Queue;
  /**
   * Whether this replica's Workers consume `from` (a shard still within QUEUE_SHARDS): a job is then taken
   * out first and added to its shard only if no Worker had taken it, so it never runs in both.
   */
  consumed?: boolean;
  /** A job naming no tenant can never run on the plane: dropped, said once. */
  dropped(job: Job): void;
}): Promise<Rehomed> {
  const done: Rehomed = { jobs: 0, schedulers: 0, held: 0 };
  // Schedulers first: removing one here also removes its next iteration, which is then not moved as a job.
  for (const scheduler of await o.from.getJobSchedulers(0, -1, true)) {
    const tenant = tenantIn(scheduler.template?.data);
    const to = tenant === undefined ? undefined : o.target(tenant);
    if (to === o.from) continue;
    if (to) {
      const { key, name, pattern, every, tz, offset, startDate, endDate, limit } = scheduler;
      await to
        .upsertJobScheduler(
          key,
          { pattern, every, tz, offset, startDate, endDate, limit } as Parameters<
            Queue['upsertJobScheduler']
          >[1],
          { name, data: scheduler.template?.data, opts: scheduler.template?.opts ?? {} },
        )
        .catch(alreadyMade);
    }
    await o.from.removeJobScheduler(scheduler.key);
    done.schedulers++;
  }
  for (const states of [PENDING, ['active'] as const]) {
    let start = 0;
    for (;;) {
      const page = (await o.from.getJobs([...states], start, start + PAGE - 1, true)).filter(
        (job): job is Job => job?.id !== undefined,
      );
      if (page.length === 0) break;
      let stayed = 0;
      for (const job of page) {
        const moved = await moveJob(o, job);
        if (moved === 'moved') done.jobs++;
        else stayed++;
        if (moved === 'held') done.held++;
      }
      if (stayed === page.length && page.length < PAGE) break;
      start += stayed;
    }
  }
  return done;
}

async function moveJob(o: Parameters<typeof rehomeQueue>[0], job: Job): Promise<'moved' | 'stays' | 'held'> {
  const id = job.id as string;
  const tenant = tenantIn(job.data);
  if (tenant === undefined) {
    o.dropped(job);
    await o.from.remove(id).catch(() => 0);
    return 'moved';
  }
  const to = o.target(tenant);
  if (to === o.from) return 'stays';
  if ((await o.client.exists(`${o.fromPrefix}:${o.from.name}:${id}:lock`)) > 0) return 'held';
  const dueAt = await oldJobDueAt(o.client, o.fromPrefix, o.from.name, job);
  // A shard our Workers consume: BullMQ's remove is atomic against a Worker taking the job (0 when locked),
  // so it either runs here, where a Worker took it, or in its shard; never in both. A pass that dies between
  // the two steps loses the job (a poll is found again by the reconciler); a shard count changes rarely.
  if (o.consumed && (await o.from.remove(id)) !== 1) return 'stays';
  // Its own id and due time, and no scheduler's marks (an iteration moved is a plain job there).
  const {
    repeat: _r,
    repeatJobKey: _k,
    jobId: _i,
    delay: _d,
    ...opts
  } = job.opts as JobsOptions & {
    repeat?: unknown;
    repeatJobKey?: string;
  };
  await to.add(job.name, job.data, { ...opts, jobId: id, delay: Math.max(0, dueAt - Date.now()) });
  if (o.consumed) return 'moved';
  // A job locked meanwhile (an old replica took it) is not removed: it runs there, its copy here is a no-op
  // for the processors (each run is claimed by what it does), and the next pass finds nothing left of it.
  await o.from.remove(id).catch(() => 0);
  return 'moved';
}

function tenantIn(data: unknown): string | undefined {
  const tenant = (data as { tenant?: unknown } | undefined)?.tenant;
  return typeof tenant === 'string' ? tenant : undefined;
}

/** Two replicas upserting the same scheduler at once: the state asked for exists. */
function alreadyMade(error: unknown): void {
  if (!(error instanceof Error && /job ID already exists/i.test(error.message))) throw error;
}
