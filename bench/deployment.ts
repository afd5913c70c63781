import { randomBytes } from 'node:crypto';
import { startRedisServer } from '../test/support/redis-server.js';
import { measureClusterPurge } from './cluster-purge-cost.js';
import { measureClusterReplicas } from './cluster-replicas.js';
import { measureLatencies } from './deployment-latency.js';
import { busiestCommands, RedisProbe, SEEDED_TOKEN_PREFIX, seedInstalls } from './deployment-redis.js';
import { type LevelResult, type ScaleRun, scaleReport } from './deployment-report.js';
import { FakesProcess } from './fakes-process.js';
import { benchEnv } from './harness.js';
import { measurePurge } from './purge-cost.js';
import { connectionPorts, cpuSeconds, type Replica, rssMb, spawnReplica } from './replica-process.js';
import { sized } from './smoke.js';
import { installThrough, signedCommand } from './tenant-apps.js';

/**
 * Benchmark 12 (issue 34): one deployment for many workspaces. Two replicas as separate processes
 * (`dist/main.js`, OAuth mode) on one redis-server; installs seeded through the directory's own API, a sample
 * through the real "Add to Slack" flow; everything measured from outside (spawn → /readyz, /proc, Redis's
 * INFO and CLIENT LIST, signed HTTP requests, /metrics), so it measures whatever main is. Method, command
 * and figures: BENCHMARKS.md, section 12.
 */

const numbers = (text: string | undefined) =>
  text
    ?.split(',')
    .map((n) => Number(n.trim()))
    .filter((n) => Number.isInteger(n) && n > 0);
/** Installed workspaces per level (the replicas restart at each); the last level gets the latency runs. */
export const LEVELS = numbers(process.env.BENCH_SCALE_LEVELS) ?? sized([1_000, 10_000], [20, 40]);
/** Installs made through the real flow on replica A at the last level (each timed until B serves it). */
const SAMPLE = Number(process.env.BENCH_SCALE_SAMPLE ?? sized(20, 3));
/** Idle installs seeded alone (no replica) for Redis memory per install. */
export const STORAGE_INSTALLS = Number(process.env.BENCH_SCALE_STORAGE ?? sized(100_000, 50));
/** After /readyz, before anything is counted: start-up work (first passes, first syncs) settles. */
const SETTLE_MS = sized(15_000, 500);
const IDLE_MS = sized(30_000, 1_000);
const READY_TIMEOUT_MS = Number(process.env.BENCH_SCALE_READY_TIMEOUT_MS ?? sized(180_000, 40_000));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The replicas' environment (OAuth mode on `redisUrl`, the fakes' OAuth app, a fresh data key) and that key,
 * for seeding installs sealed as the replicas read them. The seeded installs' tokens are taken by the fake
 * Slack, as a real install's would be.
 */
export async function replicaEnv(
  fakes: FakesProcess,
  redisUrl: string,
  extra: Record<string, string> = {},
): Promise<{ env: Record<string, string>; encryptionKey: string }> {
  const app = await fakes.send<{ clientId: string; clientSecret: string }>({
    cmd: 'oauthApp',
    homeTokenPrefix: SEEDED_TOKEN_PREFIX,
  });
  const encryptionKey = randomBytes(32).toString('base64');
  const {
    SLACK_BOT_TOKEN: _t,
    DOCS_API_KEY: _k,
    DOCS_PROJECT_ID: _p,
    ...env
  } = benchEnv(fakes.urls, {
    LOG_LEVEL: 'warn',
    SLACK_CLIENT_ID: app.clientId,
    SLACK_CLIENT_SECRET: app.clientSecret,
    SLACK_STATE_SECRET: 'bench-state-secret-0123456789abcdef0123',
    DATA_ENCRYPTION_KEY: encryptionKey,
    REDIS_URL: redisUrl,
    ...extra,
  });
  return { env, encryptionKey };
}

export async function runDeployment(): Promise<string[]> {
  const fakes = await FakesProcess.start();
  const redis = await startRedisServer();
  const probe = await RedisProbe.open(redis.url);
  const run: ScaleRun = { levels: [], storage: undefined };
  try {
    const { env: base, encryptionKey } = await replicaEnv(fakes, redis.url);
    let seeded = 0;
    for (const [index, installs] of LEVELS.entries()) {
      const last = index === LEVELS.length - 1;
      const target = last ? installs - SAMPLE : installs;
      const seedMs = target > seeded ? await seedInstalls(redis.url, encryptionKey, seeded, target) : 0;
      seeded = Math.max(seeded, target);
      const level = await measureLevel(base, redis.port, probe, installs, seedMs, last ? seeded : 0);
      run.levels.push(level);
    }
    run.storage = await measureStorage(encryptionKey, base);
    run.cluster = await measureClusterReplicas(base, READY_TIMEOUT_MS);
  } finally {
    await probe.close();
    await fakes.stop();
    await redis.stop();
  }
  return scaleReport(run);

  /** One level: both replicas spawned in turn, then (last level) the sample installs and the latencies. */
  async function measureLevel(
    env: Record<string, string>,
    redisPort: number,
    redisProbe: RedisProbe,
    installs: number,
    seedMs: number,
    latencyFor: number,
  ): Promise<LevelResult> {
    const result: LevelResult = { installs, seedMs, replicas: [], idle: undefined, latency: undefined };
    const replicas: Replica[] = [];
    try {
      for (const name of ['A', 'B']) {
        const replica = await spawnReplica(name, env, READY_TIMEOUT_MS);
        replicas.push(replica);
        result.replicas.push({ name, readyMs: replica.readyMs, rssMb: Number.NaN, redisConnections: -1 });
      }
      if (replicas.some((r) => r.readyMs === undefined)) {
        result.notReady = `not ready within ${READY_TIMEOUT_MS / 1000} s: ${replicas
          .map((r) => `${r.name} ${r.readyMs === undefined ? 'not ready' : 'ready'}`)
          .join(', ')}`;
        await readReplicas();
        return result;
      }
      const [a, b] = replicas as [Replica, Replica];
      await sleep(SETTLE_MS);
      await readReplicas();
      // Idle is nobody using the bot: measured before the sample installs (each builds a scope on both).
      result.idle = await idleWindow(redisProbe, replicas);
      const served = latencyFor > 0 ? await installSample(a, b) : undefined;
      if (latencyFor > 0) {
        result.latency = { ...(await measureLatencies(fakes, [a, b], latencyFor, redis.url)), served };
        // Connections and memory once the busy tenants' and the new installs' scopes are resident.
        await readReplicas();
      }
      return result;
    } finally {
      for (const r of replicas) await r.stop();
    }

    async function readReplicas() {
      const clientPorts = new Set(await redisProbe.clientPorts());
      result.redisClients = clientPorts.size;
      for (const [i, r] of replicas.entries()) {
        if (!r.alive()) continue;
        const ports = connectionPorts(r.pid, redisPort);
        result.replicas[i]!.redisConnections = [...ports].filter((p) => clientPorts.has(p)).length;
        result.replicas[i]!.rssMb = rssMb(r.pid);
      }
    }
  }

  /** SAMPLE installs through the real flow on A: ms from A's callback answer until B answers a command. */
  async function installSample(a: Replica, b: Replica): Promise<number[]> {
    const times: number[] = [];
    for (let i = 0; i < SAMPLE; i++) {
      const teamId = `T0F${String(i).padStart(4, '0')}`;
      const { doneAt } = await installThrough(fakes, a.base, { teamId, teamName: `Flow ${i}` });
      const deadline = doneAt + 30_000;
      for (;;) {
        if ((await signedCommand(fakes, b.events, teamId, 'help')).includes('/docs-agent')) break;
        if (Date.now() > deadline) throw new Error(`${teamId}, installed on A, was not served on B in 30 s`);
        await sleep(5);
      }
      times.push(Date.now() - doneAt);
    }
    return times;
  }
}

/** Nobody uses the bot: Redis commands per second for the deployment, and each replica's CPU. */
async function idleWindow(probe: RedisProbe, replicas: Replica[]): Promise<LevelResult['idle']> {
  const callsBefore = await probe.commandCalls();
  const before = await probe.commandsProcessed();
  const cpuBefore = replicas.map((r) => cpuSeconds(r.pid));
  const started = performance.now();
  await sleep(IDLE_MS);
  const after = await probe.commandsProcessed();
  const seconds = (performance.now() - started) / 1000;
  const cpuAfter = replicas.map((r) => cpuSeconds(r.pid));
  const callsAfter = await probe.commandCalls();
  callsAfter.delete('info');
  return {
    seconds,
    // Less this probe's first INFO stats (counted once processed); its INFO commandstats came before.
    commandsPerS: (after - before - 1) / seconds,
    busiest: busiestCommands(callsBefore, callsAfter, seconds),
    cpuPct: replicas.map((_, i) => (100 * (cpuAfter[i]! - cpuBefore[i]!)) / seconds),
  };
}

/** Redis memory per idle install: a fresh redis-server, used_memory before and after seeding. */
async function measureStorage(
  encryptionKey: string,
  env: Record<string, string>,
): Promise<ScaleRun['storage']> {
  const redis = await startRedisServer();
  const probe = await RedisProbe.open(redis.url);
  try {
    const before = await probe.usedMemory();
    const seedMs = await seedInstalls(redis.url, encryptionKey, 0, STORAGE_INSTALLS);
    const after = await probe.usedMemory();
    // Then what one uninstall's purge costs among them (its own Redis: the replicas' keys are not counted).
    const purge = await measurePurge(redis.url, env);
    // And on a three-primary Redis Cluster, where the purge reads only its tenant's slot.
    const clusterPurge = await measureClusterPurge(env);
    return {
      installs: STORAGE_INSTALLS,
      seedMs,
      bytesPerInstall: (after - before) / STORAGE_INSTALLS,
      purge,
      clusterPurge,
    };
  } finally {
    await probe.close();
    await redis.stop();
  }
}
