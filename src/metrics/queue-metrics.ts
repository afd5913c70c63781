import { Counter, Gauge, type Registry } from 'prom-client';

/** What the replica's queue plane says of its backlog (OAuth mode on Redis). */
export interface QueueStatsSource {
  /** Each kind's jobs waiting or delayed and how long its oldest waiting one has been due, every shard together. */
  stats(): Promise<Array<{ kind: string; depth: number; oldestWaitingMs: number }>>;
  /** Tenants in the deployment's due index (owed work nobody holds). */
  dueIndexSize(): Promise<number>;
}

/** Records the plane's deferrals; the gauges read the source at each scrape. */
export interface QueueMetrics {
  deferred(kind: string, reason: string): void;
}

const PREFIX = 'docs_agent_';
/** One scrape reads the queues once for both gauges of a kind (each collect would read them again). */
const STATS_REUSE_MS = 1_000;

/**
 * The queue plane's metrics (issue 43), registered once in the process's registry: labels are the kind and
 * the reason only, never a tenant, so the series stay few whatever the number of installs. The backlog
 * gauges are the deployment's (every replica reads the same Redis), the deferrals this replica's.
 */
export function registerQueueMetrics(registry: Registry, source: QueueStatsSource): QueueMetrics {
  let last: { at: number; stats: ReturnType<QueueStatsSource['stats']> } | undefined;
  const stats = () => {
    if (!last || Date.now() - last.at > STATS_REUSE_MS) last = { at: Date.now(), stats: source.stats() };
    return last.stats;
  };
  const settle = async <T>(read: () => Promise<T>): Promise<T | undefined> => {
    try {
      return await read();
    } catch {
      return undefined; // Redis away: the gauge keeps its last value; /readyz says what is wrong
    }
  };
  new Gauge({
    name: `${PREFIX}queue_depth`,
    help: 'Background jobs waiting or delayed in Redis (every shard and replica), by kind',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      for (const kind of (await settle(stats)) ?? []) this.set({ kind: kind.kind }, kind.depth);
    },
  });
  new Gauge({
    name: `${PREFIX}queue_oldest_waiting_seconds`,
    help: 'How long the oldest background job ready to run has waited for a worker, by kind (0: none waits)',
    labelNames: ['kind'],
    registers: [registry],
    async collect() {
      for (const kind of (await settle(stats)) ?? [])
        this.set({ kind: kind.kind }, kind.oldestWaitingMs / 1000);
    },
  });
  new Gauge({
    name: `${PREFIX}due_index_size`,
    help: 'Workspaces with owed work nobody holds (the due index), deployment-wide',
    registers: [registry],
    async collect() {
      const size = await settle(() => source.dueIndexSize());
      if (size !== undefined) this.set(size);
    },
  });
  const deferrals = new Counter({
    name: `${PREFIX}queue_deferrals_total`,
    help: 'Background jobs moved back instead of run by this replica, by kind and reason (cap: the workspace at its cap here; rate: over its per-second ceiling; unregistered: its scope not ready; held: parked while on hold)',
    labelNames: ['kind', 'reason'],
    registers: [registry],
  });
  return { deferred: (kind, reason) => deferrals.inc({ kind, reason }) };
}
