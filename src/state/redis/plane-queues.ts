import { randomUUID } from 'node:crypto';
import { type Job, Queue } from 'bullmq';
import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import { storeErrorListener } from '../store-errors.js';
import { oldQueueExists } from './migrations/old-queues.js';
import { type AffinityTimings, ReplicaHolds } from './plane-affinity.js';
import { type FairShardKeys, fairReadyKey } from './plane-fair-scripts.js';
import { FairShardWorker } from './plane-fair-worker.js';
import { PLANE_KINDS, type PlaneKind, type PlaneKindOptions } from './plane-kinds.js';
import { type Rehomed, rehomeQueue } from './plane-rehome.js';
import { renewSchedule } from './plane-schedule-renewal.js';
import { shardConcurrency, shardOf, shardPrefix, unshardedPrefix } from './plane-shards.js';
import { wakeOverduePollsOnReconnect } from './poll-wake-on-reconnect.js';
import { bullConnectionOf, type RedisClient } from './redis-client.js';

/** What one shard's Worker does with a job and its ends (the plane's dispatch). */
export interface ShardEvents {
  process(job: Job, token: string | undefined): Promise<unknown>;
  completed(job: Job): void;
  failed(job: Job, error: Error): void;
}

/** A kind's backlog in Redis, all its shards together (for /metrics). */
export interface PlaneKindStats {
  kind: PlaneKind;
  /** Jobs waiting or delayed (prioritized ones count as waiting). */
  depth: number;
  /** How long the oldest job that waits to be taken has been due (0: none waits). */
  oldestWaitingMs: number;
}

/** How long one replica holds the re-homing of jobs; one that died mid-way lets it go after this. */
const REHOME_LEASE_MS = 60_000;

/**
 * The plane's BullMQ queues and Workers (issue 43): a Queue per kind and shard, made on first use, and a
 * Worker per kind and shard per replica, all of a kind's made together (never one per tenant). Also moves
 * jobs left in the layout before (one queue per kind, or another shard count) to their tenant's shard.
 */
export class PlaneQueues {
  private readonly queues = new Map<string, Queue>();
  private readonly workers = new Map<string, FairShardWorker>();
  private readonly detach: Array<() => void> = [];
  private closed = false;
  /** The tenants whose scopes this replica holds: the fair take hands their jobs here first. */
  readonly holds: ReplicaHolds;

  constructor(
    private readonly o: {
      client: RedisClient;
      logger: Logger;
      prefix: string;
      shards: number;
      perTenantCap: number;
      kinds: Record<PlaneKind, PlaneKindOptions>;
      affinity?: AffinityTimings;
    },
  ) {
    this.holds = new ReplicaHolds(o.affinity);
  }

  get shards(): number {
    return this.o.shards;
  }

  /** The queue a tenant's jobs of a kind live in. */
  of<T = unknown>(kind: PlaneKind, tenant: string): Queue<T> {
    return this.at<T>(kind, shardOf(tenant, this.o.shards));
  }

  /** Where the fair take keeps a tenant's shard of a kind. */
  keysOf(kind: PlaneKind, tenant: string): FairShardKeys {
    return { shardPrefix: shardPrefix(this.o.prefix, kind, shardOf(tenant, this.o.shards)), queueName: kind };
  }

  /** One shard's queue (made on first use, so nothing reaches Redis before it is connected). */
  at<T = unknown>(kind: PlaneKind, shard: number): Queue<T> {
    const key = `${kind}/${shard}`;
    let queue = this.queues.get(key);
    if (!queue) {
      queue = new Queue(kind, {
        ...this.o.kinds[kind].queue,
        connection: bullConnectionOf(this.o.client),
        prefix: shardPrefix(this.o.prefix, kind, shard),
      });
      queue.on('error', storeErrorListener(this.o.logger, `${kind} queue error`));
      // A job added here wakes this replica's fair take of the shard at once (no blocking read to wait on).
      queue.on('waiting', () => {
        this.workers.get(key)?.wake();
      });
      this.queues.set(key, queue);
    }
    return queue as unknown as Queue<T>;
  }

  /** Every shard's Worker of a kind, from now on (a no-op once made). */
  startWorkers(kind: PlaneKind, events: ShardEvents): void {
    if (this.closed || this.workers.has(`${kind}/0`)) return;
    const { worker } = this.o.kinds[kind];
    const concurrency = shardConcurrency(worker.concurrency ?? 1, this.o.shards, this.o.perTenantCap);
    for (let shard = 0; shard < this.o.shards; shard++) {
      const fair = new FairShardWorker({
        ...{ client: this.o.client, logger: this.o.logger, kind, concurrency, cap: this.o.perTenantCap },
        shard: { shardPrefix: shardPrefix(this.o.prefix, kind, shard), queueName: kind },
        worker,
        events: {
          ...events,
          process: (job, token) => this.renewThenProcess(kind, shard, job, token, events),
        },
        holds: (changed) => this.holds.view((tenant) => shardOf(tenant, this.o.shards) === shard, changed),
      });
      fair.start();
      this.workers.set(`${kind}/${shard}`, fair);
    }
    // Polls that fell due while Redis was away run as soon as it is back (once per kind, not per tenant).
    if (kind === 'polls' || kind === 'pr-follow') {
      const shards = Array.from({ length: this.o.shards }, (_, shard) => shard);
      this.detach.push(
        wakeOverduePollsOnReconnect(this.o.client, () => shards.map((s) => this.at(kind, s)), this.o.logger),
      );
    }
  }

  /**
   * A fair kind's job: its schedule's next occurrence first (the fair take does not renew job schedulers,
   * BullMQ's take did), then the plane's dispatch. A failed renewal is logged and the job still runs (its
   * tenant's scope upserts the schedule again when it starts).
   */
  private async renewThenProcess(
    kind: PlaneKind,
    shard: number,
    job: Job,
    token: string | undefined,
    events: ShardEvents,
  ): Promise<unknown> {
    await renewSchedule(this.at(kind, shard), job).catch((error: unknown) =>
      this.o.logger.warn({ kind, error: describeError(error) }, 'could not schedule the next occurrence'),
    );
    return events.process(job, token);
  }

  /** Every Worker made so far connected and waiting for jobs. */
  async ready(): Promise<void> {
    await Promise.all([...this.workers.values()].map((worker) => worker.waitUntilReady()));
  }

  workerCount(): number {
    return this.workers.size;
  }

  async stats(): Promise<PlaneKindStats[]> {
    const now = Date.now();
    return Promise.all(
      PLANE_KINDS.map(async (kind) => {
        const shards = await Promise.all(
          Array.from({ length: this.o.shards }, async (_, shard) => {
            const queue = this.at(kind, shard);
            const [counts, [oldest]] = await Promise.all([
              queue.getJobCounts('waiting', 'delayed', 'prioritized'),
              queue.getJobs(['waiting'], 0, 0, true),
            ]);
            const ready = await this.fairOldest(kind, shard);
            const depth = (counts.waiting ?? 0) + (counts.delayed ?? 0) + (counts.prioritized ?? 0);
            const dueAt = Math.min(oldest ? oldest.timestamp + (oldest.opts.delay ?? 0) : now, ready);
            return { depth, oldestWaitingMs: Math.max(0, now - dueAt) };
          }),
        );
        return {
          kind,
          depth: shards.reduce((sum, s) => sum + s.depth, 0),
          oldestWaitingMs: Math.max(0, ...shards.map((s) => s.oldestWaitingMs)),
        };
      }),
    );
  }

  /** A fair kind's shard: the due time of its oldest job waiting for its tenant's turn (now: none). */
  private async fairOldest(kind: PlaneKind, shard: number): Promise<number> {
    const key = fairReadyKey({ shardPrefix: shardPrefix(this.o.prefix, kind, shard), queueName: kind });
    const [first] = await this.o.client.zRangeWithScores(key, 0, 0);
    return first?.score ?? Date.now();
  }

  /**
   * Jobs and schedulers left in the layout before, moved once to their tenant's shard by whichever replica
   * holds the lease: each kind's one queue from before issue 43 (`{plane-<kind>}`), and after QUEUE_SHARDS
   * changed, every shard of the old count. Safe to run again at any time (a later pass finds nothing).
   */
  async rehome(): Promise<Rehomed> {
    const done: Rehomed = { jobs: 0, schedulers: 0, held: 0 };
    const { client, prefix, shards } = this.o;
    const lease = `${prefix}:{plane}:rehoming`;
    const owner = randomUUID();
    const taken = await client.set(lease, owner, {
      condition: 'NX',
      expiration: { type: 'PX', value: REHOME_LEASE_MS },
    });
    if (taken !== 'OK' || this.closed) return done;
    const countKey = `${prefix}:{plane}:shards`;
    try {
      const stored = Number((await client.get(countKey)) ?? shards);
      const before = Number.isSafeInteger(stored) && stored > 0 ? stored : shards;
      for (const kind of PLANE_KINDS) {
        const sources: Array<{ queue: Queue; prefix: string; retired: boolean }> = [];
        const old = unshardedPrefix(prefix, kind);
        if (await oldQueueExists(client, old, kind)) sources.push(this.retiredQueue(kind, old));
        if (before !== shards)
          for (let shard = 0; shard < Math.max(before, shards); shard++)
            sources.push(
              shard < shards
                ? { queue: this.at(kind, shard), prefix: shardPrefix(prefix, kind, shard), retired: false }
                : this.retiredQueue(kind, shardPrefix(prefix, kind, shard)),
            );
        for (const source of sources) await this.rehomeOne(kind, source, done);
      }
      if (done.held === 0) await client.set(countKey, String(shards));
      if (done.jobs + done.schedulers > 0)
        this.o.logger.info({ ...done, shards }, 'moved queued jobs to their tenants’ shards');
    } catch (error) {
      // Left as it is: the next pass tries again; nothing was removed before it was in its shard.
      this.o.logger.warn({ error: describeError(error) }, 'could not move queued jobs to their shards');
    } finally {
      await client.eval(RELEASE_IF_OWNER, { keys: [lease], arguments: [owner] }).catch(() => undefined);
    }
    return done;
  }

  private retiredQueue(kind: PlaneKind, prefix: string) {
    const queue = new Queue(kind, {
      ...this.o.kinds[kind].queue,
      connection: bullConnectionOf(this.o.client),
      prefix,
    });
    queue.on('error', () => undefined);
    return { queue, prefix, retired: true };
  }

  private async rehomeOne(
    kind: PlaneKind,
    source: { queue: Queue; prefix: string; retired: boolean },
    done: Rehomed,
  ): Promise<void> {
    try {
      const moved = await rehomeQueue({
        client: this.o.client,
        from: source.queue,
        fromPrefix: source.prefix,
        target: (tenant) => this.of(kind, tenant),
        consumed: !source.retired,
        dropped: (job) => this.o.logger.warn({ kind, id: job.id }, 'a queued job names no tenant; dropped'),
      });
      done.jobs += moved.jobs;
      done.schedulers += moved.schedulers;
      done.held += moved.held;
      // A queue of the layout before, emptied: its keys go (an old replica still running makes them again,
      // and a later pass moves what it adds).
      if (source.retired && moved.held === 0) await source.queue.obliterate({ force: true });
    } finally {
      if (source.retired) await source.queue.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const stop of this.detach.splice(0)) stop();
    await Promise.all([...this.workers.values()].map((worker) => worker.close()));
    await Promise.all([...this.queues.values()].map((queue) => queue.close()));
  }
}

const RELEASE_IF_OWNER =
  "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";
