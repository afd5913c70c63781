import { createClient } from '@redis/client';
import { startRedisServer } from '../test/support/redis-server.js';
import { replicaEnv } from './deployment.js';
import { RedisProbe } from './deployment-redis.js';
import { FakesProcess } from './fakes-process.js';
import {
  kindLines,
  type QuietWindow,
  quietWindow,
  type ScopesLeaving,
  untilScopesLeave,
} from './quiet-window.js';
import { connectionPorts, type Replica, rssMb, spawnReplica } from './replica-process.js';
import { sized } from './smoke.js';
import { fmt, percentile, table } from './stats.js';
import { allowInstall, consentFor } from './tenant-apps.js';

/**
 * Benchmark 15 (issue 43): many installs through the real "Add to Slack" flow at once. Two replicas as
 * processes (`dist/main.js`, OAuth mode) on one redis-server, the fakes in a third; INSTALLS workspaces click
 * Add to Slack on replica A over WINDOW_S (open loop: install page, Slack's consent page, Allow, the
 * callback: token exchange, directory, the welcome DM owed and delivered). A's and B's RSS are read every few
 * seconds; once the due index is empty (every welcome DM delivered), the deployment's Redis commands a
 * second while nobody uses the bot, by kind. Method and figures: BENCHMARKS.md §15.
 */

const env = (name: string, full: number, smoke: number) => Number(process.env[name] ?? sized(full, smoke));
export const FLOW_INSTALLS = env('BENCH_FLOW_INSTALLS', 2_500, 3);
export const FLOW_WINDOW_S = env('BENCH_FLOW_WINDOW_S', 300, 2);
const SAMPLE_MS = sized(2_000, 200);
const QUIET_MS = sized(30_000, 1_000);
const MONITOR_MS = sized(10_000, 500);
const SETTLE_MS = sized(10_000, 500);
// The smoke run proves the code runs: it does not wait out the welcome DMs' duplicate sweeps.
const DRAIN_TIMEOUT_MS = sized(300_000, 2_000);
/** TENANT_BACKGROUND_IDLE_SECONDS (90 s) after the last welcome, plus eviction ticks and margin. */
const LEAVE_TIMEOUT_MS = sized(180_000, 2_000);
const READY_TIMEOUT_MS = sized(180_000, 60_000);
const DUE_INDEX = 'docs-agent:{due}:tenants';
const GOALS = { rssMb: 512, quietPerS: 50 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const flowTeam = (i: number) => ({ teamId: `T0F${String(i).padStart(6, '0')}`, teamName: `Flow ${i}` });

interface FlowRun {
  callbackMs: number[];
  failures: string[];
  /** s from the first click to the last callback's answer. */
  installS: number;
  /** s from then until the due index was empty (undefined: not within the time-out). */
  drainS: number | undefined;
  welcomes: number;
  rss: Array<{ replica: number; rssMb: number }>;
  connections: number[];
  quiet: QuietWindow | undefined;
  /** The installs' scopes leaving after the background idle time (each built for its welcome DM alone). */
  leaving: ScopesLeaving | undefined;
}

export async function runAddToSlack(): Promise<string[]> {
  const fakes = await FakesProcess.start();
  const redis = await startRedisServer();
  const probe = await RedisProbe.open(redis.url);
  const looks = createClient({ url: redis.url });
  await looks.connect();
  const replicas: Replica[] = [];
  try {
    // Every click comes from this one address: the per-address install limit would refuse most of them.
    const { env: base } = await replicaEnv(fakes, redis.url, { INSTALLS_PER_MINUTE: '100000' });
    for (const name of ['A', 'B']) replicas.push(await spawnReplica(name, base, READY_TIMEOUT_MS));
    if (replicas.some((r) => r.readyMs === undefined)) throw new Error('a replica was not ready in time');
    const run: FlowRun = {
      callbackMs: [],
      failures: [],
      installS: 0,
      drainS: undefined,
      welcomes: 0,
      rss: [],
      connections: [],
      quiet: undefined,
      leaving: undefined,
    };
    const posts = async () =>
      (await fakes.send<{ slack: Record<string, number> }>({ cmd: 'counts' })).slack['chat.postMessage'] ?? 0;
    const postsBefore = await posts();
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const [replica, r] of replicas.entries())
          if (r.alive()) run.rss.push({ replica, rssMb: rssMb(r.pid) });
        await sleep(SAMPLE_MS);
      }
    })();
    const started = performance.now();
    await driveInstalls(fakes, replicas[0]!, run);
    run.installS = (performance.now() - started) / 1000;
    const drainBy = Date.now() + DRAIN_TIMEOUT_MS;
    while (Number(await looks.zCard(DUE_INDEX)) > 0 && Date.now() < drainBy) await sleep(500);
    if (Number(await looks.zCard(DUE_INDEX)) === 0)
      run.drainS = (performance.now() - started) / 1000 - run.installS;
    await sleep(SETTLE_MS);
    sampling = false;
    await sampler;
    run.welcomes = (await posts()) - postsBefore;
    const clientPorts = new Set(await probe.clientPorts());
    run.connections = replicas.map(
      (r) => [...connectionPorts(r.pid, redis.port)].filter((p) => clientPorts.has(p)).length,
    );
    run.leaving = await untilScopesLeave(probe, replicas, LEAVE_TIMEOUT_MS);
    // The last evictions' affinity records are let go by each queue's next script call: then quiet.
    await sleep(SETTLE_MS);
    run.quiet = await quietWindow(probe, redis.url, replicas, QUIET_MS, MONITOR_MS);
    return flowReport(run);
  } finally {
    for (const r of replicas) await r.stop();
    await looks.close();
    await probe.close();
    await fakes.stop();
    await redis.stop();
  }
}

/**
 * INSTALLS clicks evenly spread over WINDOW_S on replica A. The fake Slack binds a workspace to its consent
 * page, so those steps go one at a time (a few ms each); the callbacks (the replica's work) overlap freely.
 */
async function driveInstalls(fakes: FakesProcess, a: Replica, run: FlowRun): Promise<void> {
  const gapMs = (FLOW_WINDOW_S * 1000) / FLOW_INSTALLS;
  const started = performance.now();
  let consents = Promise.resolve();
  const done: Promise<void>[] = [];
  for (let i = 0; i < FLOW_INSTALLS; i++) {
    const wait = started + i * gapMs - performance.now();
    if (wait > 0) await sleep(wait);
    const team = flowTeam(i);
    const consent = consents.then(() => consentFor(fakes, a.base, team));
    consents = consent.then(
      () => undefined,
      () => undefined,
    );
    done.push(
      consent
        .then(allowInstall)
        .then(({ callbackMs }) => void run.callbackMs.push(callbackMs))
        .catch((error: unknown) => void run.failures.push(`${team.teamId}: ${String(error).slice(0, 160)}`)),
    );
  }
  await Promise.all(done);
}

function leavingLine(leaving: ScopesLeaving | undefined): string {
  if (!leaving) return 'not measured';
  const { residentAtStart, seconds, commandsPerS } = leaving;
  const left =
    seconds === undefined
      ? 'some still resident when the wait ended'
      : `none left ${seconds.toFixed(0)} s later`;
  return `${residentAtStart} resident once delivered, ${left}; Redis meanwhile ${commandsPerS.toFixed(1)}/s`;
}

function flowReport(run: FlowRun): string[] {
  const peak = (replica: number) =>
    Math.max(0, ...run.rss.filter((s) => s.replica === replica).map((s) => s.rssMb));
  const first = (replica: number) => run.rss.find((s) => s.replica === replica)?.rssMb ?? Number.NaN;
  const at = (p: number) => percentile(run.callbackMs, p);
  const met = (ok: boolean) => (ok ? '✓ met' : '✗ missed');
  const q = run.quiet;
  const rows = [
    {
      goal: 'installs through the real flow',
      target: `${FLOW_INSTALLS} in ${FLOW_WINDOW_S} s`,
      measured: `${run.callbackMs.length} in ${run.installS.toFixed(1)} s, ${run.failures.length} failed; callback p50 ${at(50).toFixed(0)} ms, p99 ${at(99).toFixed(0)} ms`,
      verdict: met(run.failures.length === 0 && run.installS <= FLOW_WINDOW_S * 1.1),
    },
    {
      goal: 'welcome DMs delivered (due index empty)',
      target: `${FLOW_INSTALLS}`,
      measured: `${run.welcomes} posted; due index ${run.drainS === undefined ? 'not empty in time' : `empty ${run.drainS.toFixed(1)} s after the last install`}`,
      verdict: met(run.welcomes >= FLOW_INSTALLS && run.drainS !== undefined),
    },
    {
      goal: 'the installing replica’s RSS',
      target: `≤ ${GOALS.rssMb} MB`,
      measured: `A ${first(0).toFixed(0)} → ${peak(0).toFixed(0)} MB peak (B ${first(1).toFixed(0)} → ${peak(1).toFixed(0)} MB)`,
      verdict: met(peak(0) <= GOALS.rssMb),
    },
    {
      goal: 'the installs’ scopes leave (built for a welcome DM alone)',
      target: 'after the background idle time (90 s)',
      measured: leavingLine(run.leaving),
      verdict: run.leaving ? met(run.leaving.seconds !== undefined) : '—',
    },
    {
      goal: 'Redis once the installs are quiet (deployment)',
      target: `≤ ${GOALS.quietPerS} commands/s`,
      measured: q ? `${q.commandsPerS.toFixed(1)}/s (${q.busiest})` : 'not measured',
      verdict: q ? met(q.commandsPerS <= GOALS.quietPerS) : '—',
    },
    {
      goal: 'tenant contexts once quiet (both replicas)',
      target: 'none',
      measured: q
        ? `${fmt(q.loadedPerMin ?? Number.NaN)} loaded, ${fmt(q.droppedPerMin ?? Number.NaN)} dropped a minute; Redis connections ${run.connections.join(' / ')}`
        : 'not measured',
      verdict: '—',
    },
  ];
  return [
    table(rows),
    ...(q ? [`once quiet, by kind (MONITOR, ${q.kinds.seconds.toFixed(0)} s): ${kindLines(q.kinds)}`] : []),
    ...(run.failures.length ? [`first failed install: ${run.failures[0]}`] : []),
  ];
}
