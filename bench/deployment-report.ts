import type { ClusterPurgeCost } from './cluster-purge-cost.js';
import type { ClusterReplicas } from './cluster-replicas.js';
import type { Latencies, Spread } from './deployment-latency.js';
import type { PurgeCost } from './purge-cost.js';
import { fmt, type Row, table } from './stats.js';

/** The figures of the deployment benchmark (bench/deployment.ts), its tables and the goals. */

export interface ReplicaFigures {
  name: string;
  /** Spawn → first /readyz 200 (ms); undefined: not ready within the time-out. */
  readyMs: number | undefined;
  rssMb: number;
  /** This process's TCP connections that Redis's CLIENT LIST also shows (-1: not read). */
  redisConnections: number;
}

export interface LevelResult {
  installs: number;
  seedMs: number;
  replicas: ReplicaFigures[];
  /** Every client CLIENT LIST showed (the probe left out). */
  redisClients?: number;
  notReady?: string;
  idle: { seconds: number; commandsPerS: number; busiest: string; cpuPct: number[] } | undefined;
  latency: Latencies | undefined;
}

export interface ScaleRun {
  levels: LevelResult[];
  storage:
    | {
        installs: number;
        seedMs: number;
        bytesPerInstall: number;
        purge: PurgeCost;
        clusterPurge: ClusterPurgeCost;
      }
    | undefined;
  /** Two replicas on a three-primary Redis Cluster, idle. */
  cluster?: ClusterReplicas;
}

/** The goals. */
export const GOALS = {
  connections: 16,
  rssMb: 512,
  readyMs: 5_000,
  idlePerS: 50,
  /** "A slope of about zero": at most 0.5 commands/s more per 1,000 more installs. */
  slopePer1000: 0.5,
  ackP99Ms: 50,
  coldMs: 100,
  servedMs: 500,
  metricsMs: 100,
  fairnessP99Ms: 1_000,
} as const;

const mark = (ok: boolean | undefined) => (ok === undefined ? '—' : ok ? '✓' : '✗');
const ms = (n: number | undefined) => (n === undefined ? 'not ready' : `${fmt(n / 1000, 2)} s`);
const worst = (values: number[]) => (values.length ? Math.max(...values) : Number.NaN);

export function scaleReport(run: ScaleRun): string[] {
  const rows: Row[] = run.levels.flatMap((level) =>
    level.replicas.map((r, i) => ({
      installs: level.installs.toLocaleString('en-US'),
      replica: r.name,
      'spawn → /readyz 200': ms(r.readyMs),
      'RSS (MB)': fmt(r.rssMb, 0),
      'Redis connections': r.redisConnections < 0 ? 'n/a' : r.redisConnections,
      'idle CPU (% of a core)': fmt(level.idle?.cpuPct[i] ?? Number.NaN, 1),
      'deployment idle Redis commands/s': i === 0 ? fmt(level.idle?.commandsPerS ?? Number.NaN, 1) : '',
    })),
  );
  const lines = [table(rows)];
  for (const level of run.levels) {
    const seeded = `${level.installs.toLocaleString('en-US')} installs (seeding took ${fmt(level.seedMs, 0)} ms)`;
    if (level.notReady) lines.push(`${seeded}: ${level.notReady}`);
    else if (level.idle)
      lines.push(
        `${seeded}: Redis saw ${level.redisClients ?? 'n/a'} clients; busiest while idle: ${level.idle.busiest || 'none'}`,
      );
  }
  const latency = run.levels.at(-1)?.latency;
  if (latency) lines.push('', table(latencyRows(latency)));
  if (latency?.cold.failed) lines.push(`a cold first request not answered with help: ${latency.cold.failed}`);
  lines.push('', table(goalRows(run)));
  if (run.storage)
    lines.push(
      `storage: ${run.storage.installs.toLocaleString('en-US')} idle installs seeded in ${fmt(run.storage.seedMs / 1000, 1)} s take ${fmt(run.storage.bytesPerInstall, 0)} bytes of Redis memory each (used_memory delta / installs)`,
      purgeLine(run.storage.purge),
      clusterPurgeLine(run.storage.clusterPurge),
    );
  if (run.cluster) lines.push(clusterReplicasLine(run.cluster));
  lines.push(`JSON ${JSON.stringify(run)}`);
  return lines;
}

function latencyRows(l: Latencies): Row[] {
  const row = (what: string, s: Spread) => ({
    what,
    n: s.count,
    failures: s.failures,
    'p50 (ms)': fmt(s.p50, 1),
    'p99 (ms)': fmt(s.p99, 1),
    'max (ms)': fmt(s.max, 1),
  });
  const served = l.served ?? [];
  return [
    row('busy tenants: `/docs-agent help` acknowledgement', l.acks),
    row("cold tenant's first request (acknowledgement)", l.cold),
    row('GET /metrics (each replica)', l.metrics),
    row('install on A → B answers the new workspace', {
      count: served.length,
      p50: served.length
        ? [...served].sort((a, b) => a - b)[Math.floor((served.length - 1) / 2)]!
        : Number.NaN,
      p99: worst(served),
      max: worst(served),
      failures: 0,
    }),
  ];
}

function goalRows(run: ScaleRun): Row[] {
  const last = run.levels.at(-1);
  const first = run.levels[0];
  const n = last ? last.installs.toLocaleString('en-US') : '—';
  const reps = last?.replicas ?? [];
  const ready = reps.every((r) => r.readyMs !== undefined);
  const maxOf = (pick: (r: ReplicaFigures) => number) => worst(reps.map(pick));
  const slope =
    first && last && first !== last && first.idle && last.idle
      ? ((last.idle.commandsPerS - first.idle.commandsPerS) / (last.installs - first.installs)) * 1_000
      : Number.NaN;
  const l = last?.latency;
  const goal = (what: string, target: string, measured: string, ok: boolean | undefined) => ({
    goal: what,
    target,
    [`measured (${n} installs)`]: measured,
    met: mark(ok),
  });
  const finite = (v: number, ok: boolean) => (Number.isFinite(v) ? ok : undefined);
  const conns = maxOf((r) => r.redisConnections);
  const rss = maxOf((r) => r.rssMb);
  const readyWorst = ready ? maxOf((r) => r.readyMs!) : Number.NaN;
  const idle = last?.idle?.commandsPerS ?? Number.NaN;
  const served = worst(l?.served ?? []);
  return [
    goal(
      'Redis connections per replica',
      `≤ ${GOALS.connections}`,
      fmt(conns, 0),
      finite(conns, conns <= GOALS.connections),
    ),
    goal(
      'resident memory per replica',
      `≤ ${GOALS.rssMb} MB`,
      `${fmt(rss, 0)} MB`,
      finite(rss, rss <= GOALS.rssMb),
    ),
    goal(
      'spawn → /readyz 200',
      `≤ ${GOALS.readyMs / 1000} s`,
      ready ? ms(readyWorst) : (last?.notReady ?? '—'),
      last ? ready && readyWorst <= GOALS.readyMs : undefined,
    ),
    goal(
      'idle Redis commands/s, whole deployment',
      `≤ ${GOALS.idlePerS}`,
      fmt(idle, 1),
      finite(idle, idle <= GOALS.idlePerS),
    ),
    goal(
      `idle slope, ${first?.installs.toLocaleString('en-US')} → ${n} installs`,
      `≈ 0 (≤ ${GOALS.slopePer1000}/s per 1,000)`,
      `${fmt(slope, 2)}/s per 1,000 installs`,
      finite(slope, slope <= GOALS.slopePer1000),
    ),
    goal(
      'acknowledgement p99, busy tenants',
      `≤ ${GOALS.ackP99Ms} ms`,
      `${fmt(l?.acks.p99 ?? Number.NaN, 1)} ms`,
      l ? l.acks.p99 <= GOALS.ackP99Ms && l.acks.failures === 0 : undefined,
    ),
    goal(
      "cold tenant's first request (worst)",
      `≤ ${GOALS.coldMs} ms`,
      `${fmt(l?.cold.max ?? Number.NaN, 1)} ms`,
      l ? l.cold.max <= GOALS.coldMs && l.cold.failures === 0 : undefined,
    ),
    goal(
      'new install served on the other replica (worst)',
      `≤ ${GOALS.servedMs} ms`,
      `${fmt(served, 0)} ms`,
      finite(served, served <= GOALS.servedMs),
    ),
    goal(
      '/metrics (worst scrape)',
      `≤ ${GOALS.metricsMs} ms`,
      `${fmt(l?.metrics.max ?? Number.NaN, 1)} ms`,
      l ? l.metrics.max <= GOALS.metricsMs && l.metrics.failures === 0 : undefined,
    ),
    goal(
      "fairness: others' poll delay p99 under one tenant's 1,000 polls",
      `≤ ${GOALS.fairnessP99Ms / 1000} s`,
      l
        ? `${fmt(l.fairness.others.p99, 0)} ms (max ${fmt(l.fairness.others.max, 0)}; without the per-tenant cap ${fmt(l.fairness.withoutCap.p99, 0)} ms)`
        : '—',
      l ? l.fairness.others.p99 <= GOALS.fairnessP99Ms : undefined,
    ),
    goal(
      'Redis memory per idle install',
      'reported',
      run.storage
        ? `${fmt(run.storage.bytesPerInstall, 0)} B at ${run.storage.installs.toLocaleString('en-US')}`
        : '—',
      undefined,
    ),
  ];
}

function purgeLine(p: PurgeCost): string {
  return (
    `purge: one uninstalled tenant's ${p.deleted.toLocaleString('en-US')} keys among ${p.keysInRedis.toLocaleString('en-US')} ` +
    `took ${fmt(p.wallMs, 0)} ms, ${p.scanCalls.toLocaleString('en-US')} SCAN calls, Redis time ${fmt(p.scanMs, 1)} ms scanning + ${fmt(p.unlinkMs, 1)} ms deleting` +
    (p.othersKept ? '' : ' (other keys were deleted too: a defect)')
  );
}

function clusterPurgeLine(p: ClusterPurgeCost): string {
  return (
    `purge on a three-primary Redis Cluster: ${p.deleted.toLocaleString('en-US')} keys among ${p.keysInCluster.toLocaleString('en-US')} ` +
    `took ${fmt(p.wallMs, 0)} ms, reading only the tenant's slot (${p.slotKeys.toLocaleString('en-US')} keys), ${p.scanCalls} SCAN calls` +
    (p.othersKept ? '' : ' (other keys were deleted too: a defect)')
  );
}

function clusterReplicasLine(c: ClusterReplicas): string {
  const ready = c.readyMs.map((ms) => (ms === undefined ? 'not ready' : `${fmt(ms / 1000, 2)} s`)).join(', ');
  const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
  return (
    `two replicas on a three-primary Redis Cluster, idle: ready in ${ready}; connections per primary ` +
    `${c.connectionsPerNode.join(' / ')} (${sum(c.connectionsPerNode)} in all, ${fmt(sum(c.connectionsPerNode) / 2, 1)} per replica); ` +
    `idle commands/s per primary ${c.idleCommandsPerS.map((v) => fmt(v, 1)).join(' / ')} (${fmt(sum(c.idleCommandsPerS), 1)} for the deployment)`
  );
}
