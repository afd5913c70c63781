import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { RedisServer } from '../test/support/redis-server.js';
import { BOT_TOKEN } from '../test/support/test-app.js';
import type { FakesProcess, OpenLoopResult } from './fakes-process.js';
import { startBenchApp } from './harness.js';
import { sized } from './smoke.js';
import { fmt, median, percentile, type Row } from './stats.js';
import {
  type OAuthBenchApp,
  redisClients,
  redisCommandsProcessed,
  startOAuthBenchApp,
  workspace,
} from './tenant-apps.js';

/** Installed tenants at which memory is measured (cumulative). */
export const TENANT_LEVELS = sized([0, 1, 10, 50], [0, 1, 2]);
const ACK_RATE = Number(process.env.BENCH_TENANT_ACK_RATE ?? sized(200, 8));
const ACK_WINDOW_S = sized(10, 1);
const ACK_WARM_UP_S = sized(3, 1);
/** The idle window at each level: CPU and Redis commands while no request arrives. */
const IDLE_MS = sized(10_000, 300);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const mb = (bytes: number) => bytes / 1024 ** 2;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Live heap and RSS after full collections, once the runtimes' start-up work is done. */
async function settledMemory(): Promise<{ heapMb: number; rssMb: number }> {
  await sleep(sized(3_000, 300));
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(100);
  }
  const { heapUsed, rss } = process.memoryUsage();
  return { heapMb: mb(heapUsed), rssMb: mb(rss) };
}

/** Installs tenants `from`..`to`-1 through "Add to Slack", each answering one `help` (its runtime serving). */
async function installRange(app: OAuthBenchApp, from: number, to: number): Promise<void> {
  for (let i = from; i < to; i++) {
    const next = workspace(i);
    await app.install(next);
    const deadline = Date.now() + 10_000;
    while (!(await app.command(next.teamId, 'help')).includes('/docs-agent')) {
      if (Date.now() > deadline) throw new Error(`${next.teamId} never answered after its install`);
      await sleep(50);
    }
  }
}

export interface CostSummary {
  /** Live heap per tenant runtime, memory and Redis mode (MB), from the slope between the last two levels. */
  heapPerTenantMb: { memory: number; redis: number };
  /** RSS per tenant over the whole range (no tenant → the most). */
  rssPerTenantMb: { memory: number; redis: number };
  /** Redis connections each tenant runtime opens (slope), and the app's own with no tenant. */
  redisPerTenant: number;
  redisBase: number;
  /** While idle, per added tenant: % of a core, and Redis commands per second (Redis mode). */
  idleCpuPerTenant: { memory: number; redis: number };
  idleRedisPerTenant: number;
}

/** CPU (% of a core) and, with `redisUrl`, Redis commands per second over an idle window. */
async function idleCost(redisUrl: string | undefined): Promise<{ cpu: number; redisPerS: number }> {
  const commands = redisUrl ? await redisCommandsProcessed(redisUrl) : Number.NaN;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await sleep(IDLE_MS);
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  // Less the two INFO commands and this look's connection set-up (HELLO/CLIENT …: a handful).
  const redisPerS = redisUrl ? ((await redisCommandsProcessed(redisUrl)) - commands) / seconds : Number.NaN;
  return { cpu: (100 * (used.user + used.system)) / 1e6 / seconds, redisPerS };
}

/** Item 1: what each installed tenant costs in memory (both modes) and in Redis connections. */
export async function runTenantCost(
  fakes: FakesProcess,
  redis: RedisServer,
): Promise<{ rows: Row[]; summary: CostSummary }> {
  const rows: Row[] = [];
  const summary: CostSummary = {
    heapPerTenantMb: { memory: 0, redis: 0 },
    rssPerTenantMb: { memory: 0, redis: 0 },
    redisPerTenant: 0,
    redisBase: 0,
    idleCpuPerTenant: { memory: 0, redis: 0 },
    idleRedisPerTenant: 0,
  };
  for (const mode of ['memory', 'redis'] as const) {
    const before = mode === 'redis' ? await redisClients(redis.url) : 0;
    const app = await startOAuthBenchApp(fakes, mode === 'redis' ? { REDIS_URL: redis.url } : {});
    try {
      let installed = 0;
      type Level = {
        tenants: number;
        heapMb: number;
        rssMb: number;
        clients: number;
        cpu: number;
        redisPerS: number;
      };
      let previous: Level | undefined;
      let first: Level | undefined;
      for (const level of TENANT_LEVELS) {
        await installRange(app, installed, level);
        installed = level;
        const memory = await settledMemory();
        const clients = mode === 'redis' ? (await redisClients(redis.url)) - before : Number.NaN;
        const idle = await idleCost(mode === 'redis' ? redis.url : undefined);
        const per = (now: number, then: number | undefined) =>
          previous && then !== undefined ? (now - then) / (level - previous.tenants) : Number.NaN;
        const heapSlope = per(memory.heapMb, previous?.heapMb);
        const rssSlope = per(memory.rssMb, previous?.rssMb);
        const clientSlope = per(clients, previous?.clients);
        rows.push({
          mode,
          tenants: level,
          'live heap (MB)': fmt(memory.heapMb),
          'RSS (MB)': fmt(memory.rssMb),
          'Δheap per added tenant (MB)': fmt(heapSlope, 2),
          'ΔRSS per added tenant (MB)': fmt(rssSlope, 2),
          'Redis connections': mode === 'redis' ? clients : '—',
          'per added tenant': mode === 'redis' ? fmt(clientSlope, 1) : '—',
          'idle CPU (% of a core)': fmt(idle.cpu, 2),
          'idle Redis commands/s': mode === 'redis' ? fmt(idle.redisPerS, 1) : '—',
        });
        if (level === 0 && mode === 'redis') summary.redisBase = clients;
        if (previous) {
          summary.heapPerTenantMb[mode] = heapSlope;
          // RSS moves with when V8 returns pages (a level can come out lower than the one before): the whole
          // range's slope is the figure given, the live heap the stable one.
          summary.rssPerTenantMb[mode] = (memory.rssMb - first!.rssMb) / (level - first!.tenants);
          summary.idleCpuPerTenant[mode] = per(idle.cpu, previous.cpu);
          if (mode === 'redis') {
            summary.redisPerTenant = clientSlope;
            summary.idleRedisPerTenant = per(idle.redisPerS, previous.redisPerS);
          }
        }
        previous = { tenants: level, ...memory, clients, ...idle };
        first ??= previous;
      }
    } finally {
      await app.stop();
    }
  }
  return { rows, summary };
}

export interface RoutingSummary {
  /** Ack p50/p99 of `/docs-agent help` per setup (ms). */
  p50: Record<string, number>;
  p99: Record<string, number>;
  failures: number;
}

/** Single-workspace mode runs first and again last: the comparison is with the mean of its two runs. */
export const ROUTING_SETUPS = [
  'single-workspace',
  'OAuth, 1 tenant',
  `OAuth, ${TENANT_LEVELS.at(-1)} tenants`,
  'single-workspace (again)',
];

/** Item 2: `/docs-agent help` acknowledgements through the OAuth front door against single-workspace mode. */
export async function runTenantRouting(
  fakes: FakesProcess,
): Promise<{ rows: Row[]; summary: RoutingSummary }> {
  const rows: Row[] = [];
  const summary: RoutingSummary = { p50: {}, p99: {}, failures: 0 };
  const mix = [{ label: 'help', command: '/docs-agent', text: 'help' }];
  for (const [index, setup] of ROUTING_SETUPS.entries()) {
    const single = setup.startsWith('single');
    const tenants = single ? 0 : index === 1 ? 1 : TENANT_LEVELS.at(-1)!;
    if (single) await fakes.send({ cmd: 'oauthApp', homeToken: BOT_TOKEN });
    const app = single ? await startBenchApp(fakes.urls) : await startOAuthBenchApp(fakes);
    try {
      if (tenants > 0) await installRange(app as OAuthBenchApp, 0, tenants);
      const teams = tenants > 0 ? Array.from({ length: tenants }, (_, i) => workspace(i).teamId) : undefined;
      const drive = (seconds: number, tag: string) =>
        fakes.send<OpenLoopResult>({
          cmd: 'openLoop',
          url: app.url,
          perSecond: ACK_RATE,
          seconds,
          mix,
          tag,
          ...(teams ? { teams } : {}),
        });
      await drive(ACK_WARM_UP_S, `warm-${index}-`);
      const cpu = process.cpuUsage();
      const result = await drive(ACK_WINDOW_S, `route-${index}-`);
      const used = process.cpuUsage(cpu);
      const latencies = result.latencies.help!;
      const failures = result.failures.help!;
      summary.failures += failures;
      summary.p50[setup] = median(latencies);
      summary.p99[setup] = percentile(latencies, 99);
      rows.push({
        setup,
        acks: latencies.length,
        failures,
        'p50 (ms)': fmt(median(latencies), 2),
        'p99 (ms)': fmt(percentile(latencies, 99), 2),
        'max (ms)': fmt(Math.max(...latencies), 1),
        'app CPU (% of a core)': fmt((100 * (used.user + used.system)) / 1e6 / result.seconds, 0),
        'generator lag max (ms)': fmt(result.maxLagMs, 1),
      });
    } finally {
      await app.stop();
    }
  }
  return { rows, summary };
}
