import { DelayedError, type Job, type Queue } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { ParkedJobs } from '../parked-jobs.js';
import { shareCeiling } from './plane-fair-scripts.js';
import { PLANE_KINDS, type PlaneKind, type PlaneTimings, planeKindOptions } from './plane-kinds.js';
import { PlaneQueues } from './plane-queues.js';
import type { Rehomed } from './plane-rehome.js';
import { DEFAULT_QUEUE_SHARDS } from './plane-shards.js';
import type { RedisClient } from './redis-client.js';

export { type PlaneKind, planeJobId } from './plane-kinds.js';

/**
 * Why a job was moved back rather than run (counted per kind for /metrics). Every kind is taken fairly now
 * (issue 43 §4): no job is moved back for 'cap' or 'rate' any more (tests still check that none is).
 */
export type DeferralReason = 'cap' | 'rate' | 'unregistered' | 'held';

/** What waking a tenant found: its scope serves (its views registered), it is on hold, or it is not installed. */
export type WakeResult = 'served' | 'held' | 'gone';

export type PlaneProcessor = (job: Job, token: string | undefined) => Promise<unknown>;

/** A tenant's handling of one kind: its processor, and what it does when one of its jobs ends. */
export interface PlaneHandlers {
  process(job: Job, token: string | undefined): Promise<unknown>;
  completed?(job: Job): void;
  failed?(job: Job, error: Error): void;
  /**
   * Ceiling on this tenant's jobs of the kind started per second by all replicas together (0 or absent:
   * none). Its jobs over the ceiling are moved back to a later second; other tenants are not slowed.
   */
  maxPerSecond?: number;
}

export interface QueuePlaneOptions {
  /** The replica's queueing connection (it queues commands while reconnecting, as BullMQ expects). */
  client: RedisClient;
  logger: Logger;
  /** Builds the tenant's scope if it is not resident here, so that its views register their handlers. */
  wake(tenant: string): Promise<WakeResult>;
  /** A tenant's job ran here (its scope stays resident a while longer). */
  touched?(tenant: string): void;
  /** Key prefix; each shard's BullMQ prefix is `<prefix>:{plane-<kind>-<n>}` (a Redis Cluster slot each). */
  prefix?: string;
  /** QUEUE_SHARDS: queues per kind, a tenant's jobs all in the one its key hashes to (8). */
  shards?: number;
  /** A job was moved back instead of run (for /metrics: a count per kind and reason, never per tenant). */
  deferred?(kind: PlaneKind, reason: DeferralReason): void;
  /** Jobs running at once per kind in this replica (all its shards together; see shardConcurrency). */
  concurrency?: Partial<Record<PlaneKind, number>>;
  /** Jobs of one tenant running at once per kind, every replica together: its backlog never starves others. */
  perTenantCap?: number;
  /** Where a held tenant's jobs are parked until its hold lifts (else they are moved back every minute). */
  parked?: ParkedJobs;
  /** Tests: every kind's job lock and stalled check this short (a killed replica's job is taken over soon). */
  timings?: PlaneTimings;
  /** Tests: how long a replica counts as alive, and work waits for its tenant's holder (`plane-affinity.ts`). */
  affinity?: { holdMs: number; stealAfterMs: number };
}

/** A job of a tenant on hold waits this long before it is tried again. */
const HELD_DELAY_MS = 60_000;
/** A parked job is delayed this long: only a net, should its release be missed (it is promoted at the lift). */
const PARKED_DELAY_MS = 60 * 60_000;
/** A job of a served tenant whose scope has not registered its kind is tried again this soon. */
const UNREGISTERED_DELAY_MS = 2_000;
export const DEFAULT_PER_TENANT_CAP = 4;

/**
 * The background plane every tenant shares (issue 34): per kind, a BullMQ Queue and a Worker per shard per
 * replica (issue 43: QUEUE_SHARDS of them, a tenant's jobs in the shard its key hashes to), whatever the
 * number of tenants, with the tenant in each job's data. A tenant's scope registers its handlers when it
 * starts and unregisters them when it stops or is evicted (its jobs stay in Redis); a job whose tenant has
 * no handler here wakes its scope first. Fairness (a tenant's cap: its jobs of the kind running in the whole
 * deployment): every kind is taken round-robin by tenant, skipping one at its cap or ceiling or held by
 * another replica (`plane-fair-worker.ts`); none is taken and moved back for its tenant's cap.
 */
export class QueuePlane {
  /** Its queues and Workers by kind and shard (each kind's backlog for /metrics; the holds; tests). */
  readonly queues: PlaneQueues;
  private readonly handlers = new Map<string, PlaneHandlers>();
  private readonly running = new Map<string, number>();
  private readonly prefix: string;
  private readonly cap: number;
  private readonly log: Logger;

  constructor(private readonly options: QueuePlaneOptions) {
    this.prefix = options.prefix ?? 'docs-agent';
    this.cap = options.perTenantCap ?? DEFAULT_PER_TENANT_CAP;
    this.log = options.logger.child({ component: 'queue-plane' });
    this.queues = new PlaneQueues({
      ...{ client: options.client, logger: this.log, prefix: this.prefix, perTenantCap: this.cap },
      shards: Math.max(1, options.shards ?? DEFAULT_QUEUE_SHARDS),
      kinds: planeKindOptions(options.concurrency, options.timings),
      ...(options.affinity ? { affinity: options.affinity } : {}),
    });
  }

  /** The shared queue a tenant's jobs of a kind live in: its shard's (made on first use). */
  queue<T = unknown>(kind: PlaneKind, tenant: string): Queue<T> {
    return this.queues.of<T>(kind, tenant);
  }

  /** A tenant's handlers for a kind, until the returned function is called. Never makes a Worker per tenant. */
  register(kind: PlaneKind, tenant: string, given: PlaneHandlers | PlaneProcessor): () => void {
    const handlers = typeof given === 'function' ? { process: given } : given;
    const key = handlerKey(kind, tenant);
    this.handlers.set(key, handlers);
    void shareCeiling(
      this.options.client,
      this.queues.keysOf(kind, tenant),
      tenant,
      handlers.maxPerSecond,
    ).catch((error: unknown) =>
      this.log.warn({ kind, error: describeError(error) }, 'could not share a ceiling'),
    );
    this.startWorker(kind);
    return () => {
      if (this.handlers.get(key) === handlers) this.handlers.delete(key);
    };
  }

  /**
   * Every shard's Worker of every kind, from now on (a kind's also start with its first registration), and
   * one pass moving jobs left in an earlier layout to their shards (`rehome`; the composition repeats it).
   */
  start(): void {
    for (const kind of PLANE_KINDS) this.startWorker(kind);
    void this.rehome();
  }

  /** Jobs of the layout before (one queue per kind, another shard count) moved to their shards, once. */
  rehome(): Promise<Rehomed> {
    return this.queues.rehome();
  }

  /** Whether any of the tenant's jobs is running here now (its scope is not evicted meanwhile). */
  busy(tenant: string): boolean {
    for (const kind of PLANE_KINDS) if (this.running.has(handlerKey(kind, tenant))) return true;
    return false;
  }

  /** Workers made so far (tests: never one per tenant; a kind's shards' all at once). */
  workerCount(): number {
    return this.queues.workerCount();
  }

  close(): Promise<void> {
    return this.queues.close();
  }

  private startWorker(kind: PlaneKind): void {
    this.queues.startWorkers(kind, {
      process: (job, token) => this.dispatch(kind, job, token),
      completed: (job) => this.handlerOf(kind, job)?.completed?.(job),
      failed: (job, error) => this.handlerOf(kind, job)?.failed?.(job, error),
    });
  }

  private handlerOf(kind: PlaneKind, job: Job): PlaneHandlers | undefined {
    const tenant = tenantOf(job);
    return tenant === undefined ? undefined : this.handlers.get(handlerKey(kind, tenant));
  }

  private async dispatch(kind: PlaneKind, job: Job, token: string | undefined): Promise<unknown> {
    const tenant = tenantOf(job);
    if (tenant === undefined) {
      this.log.warn({ kind, id: job.id }, 'a queued job names no tenant; dropped');
      return undefined;
    }
    const key = handlerKey(kind, tenant);
    let handlers = this.handlers.get(key);
    if (!handlers) {
      const woken = await this.options.wake(tenant);
      handlers = this.handlers.get(key);
      if (woken === 'gone') return this.drop(kind, tenant, job);
      if (woken === 'held') {
        this.options.deferred?.(kind, 'held');
        return this.park(kind, tenant, job, token);
      }
      // Served, but its scope has not registered this kind (yet: still starting, or a GitHub token to come).
      if (!handlers) return this.moveBack(kind, 'unregistered', job, token, UNREGISTERED_DELAY_MS);
    }
    // The fair take already holds the job's slot and counted its second (`plane-fair-scripts.ts`).
    this.running.set(key, (this.running.get(key) ?? 0) + 1);
    this.options.touched?.(tenant);
    try {
      return await handlers.process(job, token);
    } finally {
      const left = (this.running.get(key) ?? 1) - 1;
      if (left > 0) this.running.set(key, left);
      else this.running.delete(key);
    }
  }

  /** Whether the tenant has jobs parked (one look; the lift of its hold releases them). */
  hasParked(tenant: string): Promise<boolean> {
    return this.options.parked?.has(tenant) ?? Promise.resolve(false);
  }

  /** Its hold lifted: the tenant's parked jobs run now, each once (however many replicas saw the lift). */
  async releaseParked(tenant: string): Promise<number> {
    const taken = (await this.options.parked?.take(tenant)) ?? [];
    let released = 0;
    for (const { kind, id } of taken) {
      if (!(PLANE_KINDS as readonly string[]).includes(kind)) continue;
      const job = await this.queue(kind as PlaneKind, tenant).getJob(id);
      // Promoted only while it still waits (run meanwhile by the net, or removed: nothing to do).
      if (job && (await job.getState()) === 'delayed')
        released += await job.promote().then(
          () => 1,
          () => 0,
        );
    }
    if (released > 0) this.log.info({ tenant, released }, 'hold lifted; parked jobs released');
    return released;
  }

  /** A tenant on hold: its job waits, parked under it, until the hold lifts (a far delay as a net). */
  private async park(kind: PlaneKind, tenant: string, job: Job, token: string | undefined): Promise<never> {
    const { parked } = this.options;
    if (!parked || job.id === undefined) {
      await job.moveToDelayed(Date.now() + HELD_DELAY_MS, token);
      throw new DelayedError();
    }
    await job.moveToDelayed(Date.now() + PARKED_DELAY_MS, token);
    await parked.park(tenant, kind, job.id);
    this.log.debug({ kind, tenant }, 'a job of a tenant on hold; parked until the hold lifts');
    throw new DelayedError();
  }

  private async moveBack(
    kind: PlaneKind,
    reason: DeferralReason,
    job: Job,
    token: string | undefined,
    delayMs: number,
  ): Promise<never> {
    this.options.deferred?.(kind, reason);
    await job.moveToDelayed(Date.now() + delayMs, token);
    throw new DelayedError();
  }

  /** Not installed (or its scope registered nothing for this kind): the job, or its schedule, ends. */
  private async drop(kind: PlaneKind, tenant: string, job: Job): Promise<undefined> {
    this.log.info({ kind, tenant }, 'a queued job of a tenant that is not installed; dropped');
    if (job.repeatJobKey)
      await this.queue(kind, tenant)
        .removeJobScheduler(job.repeatJobKey)
        .catch((error: unknown) =>
          this.log.warn({ kind, error: describeError(error) }, 'could not remove a schedule'),
        );
    return undefined;
  }
}

/** The tenant a job's data names, if it names one. */
function tenantOf(job: Job): string | undefined {
  const tenant = (job.data as { tenant?: unknown } | undefined)?.tenant;
  return typeof tenant === 'string' ? tenant : undefined;
}

function handlerKey(kind: PlaneKind, tenant: string): string {
  return `${kind}\u0000${tenant}`;
}

export function createQueuePlane(options: QueuePlaneOptions): QueuePlane {
  return new QueuePlane(options);
}
