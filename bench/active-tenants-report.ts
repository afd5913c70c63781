import type { MixSeeded } from './active-mix.js';
import { kindLines, type QuietWindow } from './quiet-window.js';
import { fmt, median, percentile, table } from './stats.js';

/** One look at one replica during the active-tenants run (bench/active-tenants.ts). */
export interface Sample {
  replica: number;
  atS: number;
  rssMb: number;
  /** V8's heap, as /metrics says (prom-client's process metrics): in use (garbage included) and committed. */
  heapUsedMb?: number | undefined;
  heapTotalMb?: number | undefined;
  /** `docs_agent_tenants`: tenants resident in the replica now. */
  resident: number | undefined;
  /** Tenant contexts loaded and dropped since the replica started (undefined: the replica has no such series). */
  loaded: number | undefined;
  /** Of those, the ones a request from Slack built (the rest: queued jobs and owed work). */
  loadedForRequests?: number | undefined;
  dropped: number | undefined;
}

export interface ActiveRun {
  installs: number;
  active: number;
  windowS: number;
  seedMs: number;
  /** Each active tenant's first command: ms to its acknowledgement. */
  acks: number[];
  ackFailures: string[];
  samples: Sample[];
  /** Redis connections per replica at the end of the window. */
  connections: number[];
  replies: { expected: number; replied: number };
  quiet: QuietWindow | undefined;
  /** The configured-but-idle installs (none of them active). */
  mix: MixSeeded;
}

/** The goals (issue 43, "Benchmark"). */
const GOALS = { rssMb: 512, connections: 16, perTenantKb: 20, quietPerS: 50, coldAckP99Ms: 50 };
const met = (ok: boolean) => (ok ? '✓ met' : '✗ missed');
const NAMES = ['A', 'B'];
/** Fewer resident tenants than this on a replica and its RSS slope is the GC's noise. */
const SLOPE_MIN_RESIDENT = 1_000;

/** Least-squares slope of RSS (or another figure, KB) over resident tenants: what one more resident costs. */
function slopeKb(samples: Sample[], mb: (s: Sample) => number | undefined = (s) => s.rssMb): number {
  const points = samples
    .filter((s) => s.resident !== undefined && mb(s) !== undefined)
    .map((s) => [s.resident!, mb(s)! * 1024]);
  if (points.length < 2) return Number.NaN;
  const mx = points.reduce((n, [x]) => n + x!, 0) / points.length;
  const my = points.reduce((n, [, y]) => n + y!, 0) / points.length;
  const sxx = points.reduce((n, [x]) => n + (x! - mx) ** 2, 0);
  const sxy = points.reduce((n, [x, y]) => n + (x! - mx) * (y! - my), 0);
  return sxx > 0 ? sxy / sxx : Number.NaN;
}

export function activeReport(run: ActiveRun): string[] {
  const minutes = Math.max(run.windowS / 60, 1 / 60);
  const perReplica = NAMES.map((name, index) => {
    const own = run.samples.filter((s) => s.replica === index);
    const last = own.at(-1);
    return {
      name,
      peakRss: Math.max(...own.map((s) => s.rssMb)),
      firstRss: own[0]?.rssMb ?? Number.NaN,
      peakResident: Math.max(0, ...own.map((s) => s.resident ?? 0)),
      slope: slopeKb(own),
      heapTotalSlope: slopeKb(own, (s) => s.heapTotalMb),
      heapUsedSlope: slopeKb(own, (s) => s.heapUsedMb),
      peakHeapTotal: Math.max(0, ...own.map((s) => s.heapTotalMb ?? 0)),
      loaded: last?.loaded,
      forRequests: last?.loadedForRequests,
      // A labelled counter has no series before its first drop.
      dropped: last?.dropped ?? (last?.loaded === undefined ? undefined : 0),
      connections: run.connections[index] ?? -1,
    };
  });
  const count = (n: number | undefined) => (n === undefined ? 'not exposed' : String(n));
  const rows = perReplica.map((r) => ({
    replica: r.name,
    'RSS at start → peak': `${fmt(r.firstRss, 0)} → ${fmt(r.peakRss, 0)} MB`,
    'resident tenants (peak)': r.peakResident,
    'KB per resident tenant (slope)': fmt(r.slope, 0),
    // Where the RSS slope goes: V8's committed heap and the heap in use (garbage not yet collected included).
    'heap committed / in use (slope, KB)': `${fmt(r.heapTotalSlope, 0)} / ${fmt(r.heapUsedSlope, 0)}`,
    'heap committed (peak)': `${fmt(r.peakHeapTotal, 0)} MB`,
    'contexts loaded / dropped': `${count(r.loaded)} / ${count(r.dropped)}`,
    'loads per minute': r.loaded === undefined ? '—' : fmt(r.loaded / minutes, 1),
    'Redis connections': r.connections,
  }));
  const p99 = percentile(run.acks, 99);
  const loads = perReplica.reduce((n, r) => n + (r.loaded ?? 0), 0);
  const atStart = NAMES.reduce(
    (n, _, index) => n + (run.samples.find((s) => s.replica === index)?.loaded ?? 0),
    0,
  );
  const thrashKnown = perReplica.every((r) => r.loaded !== undefined);
  // Since the loads were counted by cause: a request's builds against the active tenants (each once), the
  // rest being the configured tenants' due work (follow looks and reads, alert checks), printed beside them.
  const byCause = perReplica.every((r) => r.forRequests !== undefined);
  const forRequests = perReplica.reduce((n, r) => n + (r.forRequests ?? 0), 0);
  // The configured tenants' due work (alert checks, follow reads) loads them too; the held ones do none.
  const configured = run.mix.counts.alerts + run.mix.counts.weekly + run.mix.counts.followed;
  const worstSlope = Math.max(...perReplica.map((r) => r.slope));
  const minResident = Math.min(...perReplica.map((r) => r.peakResident));
  const goals = [
    {
      goal: 'RSS per replica',
      target: `≤ ${GOALS.rssMb} MB`,
      measured: `${fmt(Math.max(...perReplica.map((r) => r.peakRss)), 0)} MB peak`,
      verdict: met(perReplica.every((r) => r.peakRss <= GOALS.rssMb)),
    },
    {
      goal: 'Redis connections per replica (one node)',
      target: `≤ ${GOALS.connections}`,
      measured: perReplica.map((r) => r.connections).join(' / '),
      verdict: met(perReplica.every((r) => r.connections >= 0 && r.connections <= GOALS.connections)),
    },
    {
      goal: 'no thrash: contexts loaded ≈ distinct tenants',
      // Loaded before the first command: the configured tenants' due work; after it: each active tenant once
      // (its command on one replica, its polls on the other would make it twice).
      target: byCause
        ? `≈ ${run.active} active (within 20%) loaded for requests`
        : `≈ ${run.active} active (within 20%) after the first command`,
      measured: !thrashKnown
        ? 'not exposed by this build'
        : byCause
          ? `${forRequests} for requests, ${loads - forRequests} for work (${atStart} of them before the first command; ${configured} configured)`
          : `${loads - atStart} loaded after the first command, ${atStart} before (${configured} configured)`,
      verdict: !thrashKnown ? '—' : met((byCause ? forRequests : loads - atStart) <= run.active * 1.2),
    },
    {
      goal: 'memory per resident tenant',
      target: `≤ ${GOALS.perTenantKb} KB`,
      measured: `${fmt(worstSlope, 0)} KB (worse replica)`,
      // RSS moves with the GC's timing: over a few hundred residents its slope says nothing (even negative);
      // bench/scope-heap.ts measures the heap per scope after forced GCs instead.
      verdict:
        minResident >= SLOPE_MIN_RESIDENT && worstSlope > 0
          ? met(worstSlope <= GOALS.perTenantKb)
          : `— (under ${SLOPE_MIN_RESIDENT} resident: see scope-heap)`,
    },
    {
      goal: 'a cold tenant’s first command',
      target: `ack p99 ≤ ${GOALS.coldAckP99Ms} ms`,
      measured: `p50 ${fmt(median(run.acks), 1)} ms, p99 ${fmt(p99, 1)} ms, max ${fmt(Math.max(...run.acks), 1)} ms (n ${run.acks.length}, failed ${run.ackFailures.length})`,
      verdict: met(p99 <= GOALS.coldAckP99Ms && run.ackFailures.length === 0),
    },
    {
      goal: 'Redis once the active tenants are quiet (deployment)',
      target: `≤ ${GOALS.quietPerS} commands/s`,
      measured: run.quiet ? `${fmt(run.quiet.commandsPerS, 1)}/s (${run.quiet.busiest})` : 'not measured',
      verdict: run.quiet ? met(run.quiet.commandsPerS <= GOALS.quietPerS) : '—',
    },
    {
      goal: 'tenant contexts once quiet (both replicas)',
      target: 'only the configured tenants’ due work',
      measured: run.quiet
        ? `${fmt(run.quiet.loadedPerMin ?? Number.NaN, 1)} loaded, ${fmt(run.quiet.droppedPerMin ?? Number.NaN, 1)} dropped a minute`
        : 'not measured',
      verdict: '—',
    },
    {
      goal: 'every job’s PR link replied',
      target: `${run.replies.expected}`,
      measured: `${run.replies.replied}`,
      verdict: met(run.replies.replied >= run.replies.expected),
    },
  ];
  const { counts, schedulers, followedReplied, followedDue, othersDue, seedMs } = run.mix;
  return [
    `configured but idle (not active): ${counts.alerts} with alerts on (${schedulers.alerts} alert schedulers), ${counts.weekly} with a weekly post (${schedulers.weekly} weekly schedulers), ${counts.followed} with a followed PR (${followedReplied} PR links replied, ${followedDue} in the due index), ${counts.held} on hold; seeded in ${fmt(seedMs / 1000, 1)} s, ${othersDue} other tenants due or checks queued then`,
    `${run.installs.toLocaleString('en-US')} installs seeded in ${fmt(run.seedMs / 1000, 1)} s; ${run.active.toLocaleString('en-US')} active over ${run.windowS} s (one command and one job each, its PR link replied)`,
    table(rows),
    table(goals),
    ...(run.quiet
      ? [
          `once quiet, by kind (MONITOR, ${fmt(run.quiet.kinds.seconds, 0)} s, ${fmt(run.quiet.kinds.totalPerS, 1)}/s): ${kindLines(run.quiet.kinds)}`,
        ]
      : []),
    ...(run.ackFailures.length ? [`first failed command: ${run.ackFailures[0]}`] : []),
  ];
}
