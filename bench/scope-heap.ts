import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { startRedisServer } from '../test/support/redis-server.js';
import { replicaEnv } from './deployment.js';
import { seededTeam, seedInstalls } from './deployment-redis.js';
import { FakesProcess, type GitHubReport } from './fakes-process.js';
import { retainedByKind } from './heap-retained.js';
import { selfSizes } from './heap-snapshot-sizes.js';
import type { ScopeHeapArgs, ScopeHeapResult, SettleRequest } from './scope-heap-app.js';
import { connectProject } from './tenant-apps.js';

/*
 * What one resident tenant scope costs in heap (issue 43 §2; BENCHMARKS §14, "Memory per scope"). The
 * OAuth-mode app runs in a child process (bench/scope-heap-app.ts) on Redis (a real redis-server) and the
 * fakes (another process), with SCOPE_HEAP_MAX seeded installs; each tenant's one `/docs-agent help` builds
 * its scope. Heap per scope is the least-squares slope of heap used (after forced GCs) over the steps from
 * SCOPE_HEAP_STEP scopes on; two heap snapshots (SCOPE_HEAP_SNAP) are diffed by kind of node (self sizes),
 * so the per-scope bytes are named. The child runs plain JavaScript bundled by esbuild, as production runs
 * `node dist/main.js`; SCOPE_HEAP_TSX=1 runs it under tsx instead, as bench 14's replicas run (tsx keeps
 * function names with a `__name` call per named closure, which costs heap per closure).
 * SCOPE_HEAP_WORK=job: what a scope keeps after one real job (bench 14's work) instead of `help` alone. Each
 * tenant has a docs project of its own (on the fake platform, saved through the directory as bench 14 does)
 * and sends one `/docs-agent <instruction>`; before each measure the fake platform completes every job of the
 * step at once with a PR, and the heap is read only once every one of those PR links was replied in Slack
 * (seen by the fakes process).
 * The slope is also printed per V8 heap space (`kbPerScopeBySpace`): code and trusted space hold compiled
 * code, which grows as the process warms up, not with tenants. SCOPE_HEAP_SITES=1: V8's sampling heap profiler
 * runs from the first snapshot's count to the end and names the functions whose allocations are still held
 * (bench/heap-alloc-sites.ts), in KB per scope built meanwhile.
 *
 *   npx tsx bench/scope-heap.ts     (SCOPE_HEAP_MAX=1000 SCOPE_HEAP_STEP=200 SCOPE_HEAP_SNAP=100,300 SCOPE_HEAP_TOP=30)
 */

const MAX = Number(process.env.SCOPE_HEAP_MAX ?? 1_000);
const STEP = Number(process.env.SCOPE_HEAP_STEP ?? 200);
const SNAPSHOTS = (process.env.SCOPE_HEAP_SNAP ?? '100,300').split(',').filter(Boolean).map(Number);
const TOP = Number(process.env.SCOPE_HEAP_TOP ?? 30);
/** kind: by constructor; holder: by constructor and where it is held; owner: by the first named holder alone. */
type By = 'kind' | 'holder' | 'owner' | 'retained';
const VIEWS = (process.env.SCOPE_HEAP_BY ?? 'kind').split(',') as By[];
const UNDER_TSX = process.env.SCOPE_HEAP_TSX === '1';
const WORK = process.env.SCOPE_HEAP_WORK === 'job' ? 'job' : 'help';
const APP = fileURLToPath(new URL('./scope-heap-app.ts', import.meta.url));
const SETTLE_TIMEOUT_MS = 180_000;

async function main(): Promise<void> {
  const fakes = await FakesProcess.start();
  const redis = await startRedisServer();
  let result: ScopeHeapResult;
  try {
    const { env, encryptionKey } = await replicaEnv(fakes, redis.url, {
      TENANT_SCOPES_MAX: String(MAX + 100),
      TENANT_IDLE_SECONDS: String(24 * 60 * 60),
      // As bench 14: the fake GitHub (the deployment has no token of its own).
      ...(WORK === 'job' ? { GITHUB_API_URL: fakes.urls.githubUrl ?? '' } : {}),
    });
    await seedInstalls(redis.url, encryptionKey, 0, MAX);
    if (WORK === 'job') await connectProjects(fakes, redis.url, encryptionKey);
    result = await runApp(
      { env, slackUrl: fakes.urls.slackUrl, scopes: MAX, step: STEP, snapshots: SNAPSHOTS, work: WORK },
      jobsSettler(fakes),
    );
  } finally {
    await fakes.stop();
    await redis.stop();
  }
  const fitted = result.points.filter((p) => p.scopes >= STEP);
  console.log(
    JSON.stringify({
      scopes: MAX,
      runtime: UNDER_TSX ? 'tsx' : 'bundled',
      heapUsedMb: result.points.map((p) => [p.scopes, Number((p.heapUsed / 1e6).toFixed(1))]),
      work: WORK,
      kbPerScope: Number((slope(fitted) / 1024).toFixed(1)),
      kbPerScopeBySpace: bySpaceSlopes(fitted),
      loadAverage: result.loadAverage.map((l) => Number(l.toFixed(2))),
    }),
  );
  if (result.sites) {
    const from = SNAPSHOTS[0] ?? 0;
    console.log(`still held, by the line that allocated it (scopes ${from} → ${MAX}; KB per scope):`);
    for (const { site, bytes } of result.sites)
      console.log(`  ${(bytes / 1024 / (MAX - from)).toFixed(2).padStart(6)}  ${site}`);
  }
  const [lo, hi] = result.snapshots;
  if (lo && hi) for (const by of VIEWS) printTop(lo, hi, by);
  if (process.env.SCOPE_HEAP_KEEP === '1')
    console.log(`snapshots kept: ${result.snapshots.map((s) => s.file).join(' ')}`);
  else for (const s of result.snapshots) rmSync(s.file);
}

/** The kinds of node that grew most from one snapshot to the other, per scope. */
function printTop(lo: { scopes: number; file: string }, hi: { scopes: number; file: string }, by: By): void {
  const a = sizesOf(lo.file, by);
  const b = sizesOf(hi.file, by);
  const per = hi.scopes - lo.scopes;
  const rows = [...new Set([...a.keys(), ...b.keys()])]
    .map((name) => {
      const before = a.get(name) ?? { bytes: 0, count: 0 };
      const after = b.get(name) ?? { bytes: 0, count: 0 };
      return { name, bytes: (after.bytes - before.bytes) / per, count: (after.count - before.count) / per };
    })
    .sort((x, y) => y.bytes - x.bytes);
  const total = rows.reduce((sum, r) => sum + r.bytes, 0);
  console.log(
    `per scope by ${by} (snapshots at ${lo.scopes} and ${hi.scopes}): ${(total / 1024).toFixed(1)} KB self`,
  );
  // Kinds with no count per scope (a script's source compiled once, between the two) are one-off, not per scope.
  for (const r of rows
    .filter((r) => by === 'owner' || by === 'retained' || Math.abs(r.count) >= 0.5)
    .slice(0, TOP))
    console.log(
      `${(r.bytes / 1024).toFixed(2).padStart(8)} KB ${r.count.toFixed(1).padStart(7)}×  ${r.name}`,
    );
}

const sizesOf = (file: string, by: By) => (by === 'retained' ? retainedByKind(file) : selfSizes(file, by));

/** Least-squares slope of heap over scopes: bytes per scope. */
function slope(points: Array<{ scopes: number; heapUsed: number }>): number {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.scopes, 0) / n;
  const my = points.reduce((s, p) => s + p.heapUsed, 0) / n;
  let num = 0;
  let den = 0;
  for (const p of points) {
    num += (p.scopes - mx) * (p.heapUsed - my);
    den += (p.scopes - mx) ** 2;
  }
  return num / den;
}

/** The slope of each heap space (KB per scope, spaces that moved): code and trusted space hold compiled code. */
function bySpaceSlopes(points: ScopeHeapResult['points']): Record<string, number> {
  const spaces = Object.keys(points[0]?.bySpace ?? {});
  const slopes = spaces.map((space) => {
    const kb = slope(points.map((p) => ({ scopes: p.scopes, heapUsed: p.bySpace[space] ?? 0 }))) / 1024;
    return [space, Number(kb.toFixed(1))] as const;
  });
  return Object.fromEntries(slopes.filter(([, kb]) => kb !== 0));
}

/** Bundles the app side once into .bench/ (git-ignored; packages stay external), unless it runs under tsx. */
async function appEntry(): Promise<string[]> {
  if (UNDER_TSX) return ['--import', 'tsx', APP];
  const { build } = await import('esbuild');
  const outfile = fileURLToPath(new URL('../.bench/scope-heap-app.mjs', import.meta.url));
  await build({
    entryPoints: [APP],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    packages: 'external',
    logLevel: 'error',
  });
  return [outfile];
}

/** A docs project each on the fake platform (its own job quota), connected through the directory. */
async function connectProjects(fakes: FakesProcess, redisUrl: string, encryptionKey: string): Promise<void> {
  for (let at = 0; at < MAX; at += 50)
    await Promise.all(
      Array.from({ length: Math.min(50, MAX - at) }, async (_, k) => {
        const project = { projectId: `proj_scope_heap_${at + k}`, apiKey: `scope-heap-${at + k}` };
        await fakes.send({ cmd: 'addProject', ...project });
        await connectProject(redisUrl, seededTeam(at + k), project, encryptionKey);
      }),
    );
}

/**
 * Answers the child's settle requests: every job the platform holds and has not completed yet is completed
 * now with a PR; the answer comes once `jobs` PR links in all were replied in Slack.
 */
function jobsSettler(fakes: FakesProcess): (request: SettleRequest) => Promise<void> {
  const completed = new Set<string>();
  return async ({ jobs }) => {
    const deadline = Date.now() + SETTLE_TIMEOUT_MS;
    for (;;) {
      const fresh = (await fakes.send<string[]>({ cmd: 'jobIds' })).filter((id) => !completed.has(id));
      for (const id of fresh) completed.add(id);
      if (fresh.length)
        await fakes.send({
          cmd: 'completeAfter',
          jobs: fresh.map((jobId) => ({ jobId, afterMs: 0 })),
          reportBranch: false,
        });
      const report = await fakes.send<GitHubReport>({ cmd: 'githubReport' });
      const replied = report.prs.filter((pr) => pr.repliedAt !== null).length;
      if (replied >= jobs) return;
      if (Date.now() > deadline)
        throw new Error(`${replied} of ${jobs} PR links replied (${completed.size} jobs completed)`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
}

async function runApp(
  args: ScopeHeapArgs,
  settle: (request: SettleRequest) => Promise<void>,
): Promise<ScopeHeapResult> {
  const child = spawn(process.execPath, ['--expose-gc', ...(await appEntry()), '--child'], {
    stdio: ['pipe', 'pipe', 'inherit', 'ipc'],
  });
  // The child asks (IPC) before each measure in job mode; it measures once the answer comes.
  child.on('message', (request: SettleRequest) => {
    settle(request).then(
      () => child.send({ settled: true }),
      (error: unknown) => child.send({ settled: false, error: String(error) }),
    );
  });
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stdin!.end(JSON.stringify(args));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => {
      const line = out.trim().split('\n').pop() ?? '';
      if (code === 0 && line) resolve(JSON.parse(line) as ScopeHeapResult);
      else reject(new Error(`scope-heap app exited with ${code}: ${out.slice(-500)}`));
    });
  });
}

await main();
