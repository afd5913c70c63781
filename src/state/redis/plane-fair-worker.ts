import { randomUUID } from 'node:crypto';
import { Job, type JobJson, raw2NextJobData, Worker } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { storeErrorListener } from '../store-errors.js';
import type { HoldsView } from './plane-affinity.js';
import { type FairShardKeys, fairTake } from './plane-fair-scripts.js';
import type { PlaneKindOptions } from './plane-kinds.js';
import type { ShardEvents } from './plane-queues.js';
import { bullConnectionOf, type RedisClient } from './redis-client.js';

/**
 * How long a taken job holds its slot of its tenant's cap should its replica die without giving it back
 * (the lock is extended meanwhile; a job running longer gives up its count: one more may start).
 */
const SLOT_LEASE_MS = 60_000;
/**
 * With nothing due, a replica looks again this soon for what other replicas added or freed (its own adds
 * and ends wake it at once), twice as long after each look that found nothing, up to IDLE_LOOK_MAX_MS.
 */
const IDLE_LOOK_MS = 250;
const IDLE_LOOK_MAX_MS = 4_000;
/** After Redis failed a take, the next try waits this long. */
const RETRY_MS = 1_000;

export interface FairShardWorkerOptions {
  client: RedisClient;
  logger: Logger;
  kind: string;
  shard: FairShardKeys;
  concurrency: number;
  cap: number;
  worker: PlaneKindOptions['worker'];
  events: ShardEvents;
  /** This replica's holds of the shard's tenants (`plane-affinity.ts`), told when one is newly held. */
  holds?: (changed: () => void) => HoldsView;
}

/**
 * One shard's consumer of a poll-like kind in one replica (issue 43 §4): takes jobs with the fair take
 * (`plane-fair-scripts.ts`) instead of BullMQ's, and runs each through a BullMQ Worker that never fetches
 * (`autorun: false`): its `processJob` keeps BullMQ's completion, retries, backoff and `moveToDelayed`, its
 * stalled check finds the job of a replica that died (the job returns to the wait list and is swept again).
 */
export class FairShardWorker {
  private readonly bull: Worker;
  private readonly running = new Map<string, { token: string; tenant: string; done: Promise<void> }>();
  /** Slots of jobs that ended here, given back with the next take. */
  private released: Array<{ tenant: string; id: string }> = [];
  private readonly lockMs: number;
  private readonly name = randomUUID();
  private taken = 0;
  private idleMs = IDLE_LOOK_MS;
  private closed = false;
  private loop: Promise<void> | undefined;
  private nudge: (() => void) | undefined;
  /** Woken while not pausing (a take in flight): the next pause returns at once, so no wake is lost. */
  private woken = false;
  private extender: NodeJS.Timeout | undefined;
  private readonly holds: HoldsView | undefined;

  constructor(private readonly o: FairShardWorkerOptions) {
    this.lockMs = o.worker.lockDuration ?? 30_000;
    // A tenant newly held here: the next take writes its hold now (before another replica's take reaches it).
    this.holds = o.holds?.(() => this.wakeLoop());
    this.bull = new Worker(o.kind, (job, token) => o.events.process(job, token), {
      ...o.worker,
      concurrency: o.concurrency,
      autorun: false,
      connection: bullConnectionOf(o.client),
      prefix: o.shard.shardPrefix,
    });
    this.bull.on('error', storeErrorListener(o.logger, `${o.kind} worker error`));
    this.bull.on('completed', (job) => o.events.completed(job));
    this.bull.on('failed', (job, error) => {
      if (job) o.events.failed(job, error);
    });
  }

  start(): void {
    if (this.loop || this.closed) return;
    void this.bull.startStalledCheckTimer().catch(() => undefined);
    this.extender = setInterval(() => void this.extendLocks(), Math.max(500, this.lockMs / 2));
    this.extender.unref();
    this.loop = this.run();
  }

  /** A job was added here: look now (and soon again: other replicas' adds are found by looking). */
  wake(): void {
    this.idleMs = IDLE_LOOK_MS;
    this.wakeLoop();
  }

  waitUntilReady(): Promise<void> {
    return this.bull.waitUntilReady();
  }

  /** Jobs running here now (tests). */
  get active(): number {
    return this.running.size;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.wakeLoop();
    await this.loop;
    await Promise.all([...this.running.values()].map((run) => run.done));
    clearInterval(this.extender);
    // The last take gives back the slots and lets go of the holds: the other replicas take those tenants now.
    if (this.holds?.releaseAll() || this.released.length > 0) await this.take(0).catch(() => undefined);
    // A Worker closed while its blocking connection is still connecting can leave that socket open (seen
    // under load when a stop came during start-up): let it finish connecting first, for at most a moment.
    await Promise.race([
      this.bull.waitUntilReady().catch(() => undefined),
      sleepUnref(READY_BEFORE_CLOSE_MS),
    ]);
    await this.bull.close();
  }

  private async run(): Promise<void> {
    while (!this.closed) {
      const wanted = this.o.concurrency - this.running.size;
      if (wanted <= 0) {
        await this.pause(-1);
        continue;
      }
      try {
        this.woken = false; // this take sees everything so far
        const { taken, nextInMs } = await this.take(wanted);
        for (const one of taken) this.runOne(one.id, one.token, one.raw);
        if (taken.length === wanted) continue;
        this.idleMs = taken.length > 0 ? IDLE_LOOK_MS : Math.min(IDLE_LOOK_MAX_MS, this.idleMs * 2);
        // Nothing more to take now: until the next job falls due, a job here ends or is added, or a look.
        await this.pause(nextInMs > 0 ? Math.min(this.idleMs, nextInMs) : this.idleMs);
      } catch (error) {
        if (this.closed) break;
        this.o.logger.warn({ kind: this.o.kind, error: describeError(error) }, 'could not take queued jobs');
        await this.pause(RETRY_MS);
      }
    }
  }

  private async take(wanted: number) {
    const released = this.released.splice(0);
    const affinity = this.holds?.batch(Date.now());
    try {
      return await fairTake(this.o.client, this.o.shard, {
        ...{ wanted, cap: this.o.cap, tokenBase: `${this.name}:${++this.taken}`, released },
        ...{ lockMs: this.lockMs, slotMs: SLOT_LEASE_MS, ...(affinity ? { affinity } : {}) },
      });
    } catch (error) {
      this.released.unshift(...released);
      if (affinity) this.holds?.failed(affinity);
      throw error;
    }
  }

  /** Waits for a job here to end or `ms` (−1: only a job ending, or closing). */
  private pause(ms: number): Promise<void> {
    if (this.woken || this.closed) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        this.nudge = undefined;
        resolve();
      };
      if (ms >= 0) timer = setTimeout(done, ms);
      this.nudge = done;
    });
  }

  /** Ends the pause now, or the next one as soon as it starts. */
  private wakeLoop(): void {
    if (this.nudge) this.nudge();
    else this.woken = true;
  }

  private runOne(id: string, token: string, raw: string[]): void {
    // Decoded as BullMQ decodes its own take's answer (the stored options are in a compact form).
    const job = Job.fromJSON(this.bull, raw2NextJobData([raw, id, 0, 0])[0] as JobJson, id);
    const tenant = tenantOf(job);
    const done = this.bull
      .processJob(job, token, () => false)
      .then(
        () => undefined,
        (error: unknown) =>
          this.o.logger.warn(
            { kind: this.o.kind, error: describeError(error) },
            'a queued job could not end',
          ),
      )
      .finally(() => {
        this.released.push({ tenant, id });
        this.running.delete(id);
        this.wakeLoop();
      });
    this.running.set(id, { token, tenant, done });
  }

  private async extendLocks(): Promise<void> {
    const runs = [...this.running.entries()];
    if (runs.length === 0) return;
    await this.bull
      .extendJobLocks(
        runs.map(([id]) => id),
        runs.map(([, run]) => run.token),
        this.lockMs,
      )
      .catch(() => undefined);
  }
}

/** The tenant the fair take filed a job under (its data's; '' when it names none). */
function tenantOf(job: Job): string {
  const tenant = (job.data as { tenant?: unknown } | undefined)?.tenant;
  return typeof tenant === 'string' ? tenant : '';
}

/** How long a close waits for the Worker's connection to finish connecting (Redis may be away). */
const READY_BEFORE_CLOSE_MS = 1_000;
const sleepUnref = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
