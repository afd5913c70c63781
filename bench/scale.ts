import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startRedisServer } from '../test/support/redis-server.js';
import { FakesProcess } from './fakes-process.js';
import { benchEnv } from './harness.js';
import type { ScaleArgs, ScaleResult } from './scale-app-process.js';
import { sized } from './smoke.js';
import { fmt, median, type Row } from './stats.js';

/**
 * Benchmark 3: 10,000 active jobs watched by one process, memory mode and Redis mode (a real redis-server):
 * resident memory, event-loop delay p99, and the rate of upstream polls against DOCS_API_MAX_RPS.
 *
 * Method: the fake docs platform (10,000 jobs, all `active`, 50 ms latency) runs in one child process; the
 * app in another (bench/scale-app-process.ts), which seeds the 10,000 watched records directly into its
 * store (not through 10,000 slash commands), starts, resumes watching all of them as after a restart, and
 * samples for the window. Poll GETs are counted per second on the fake's side.
 */
const JOBS = Number(process.env.BENCH_SCALE_JOBS ?? sized(10_000, 100));
const WINDOW_MS = Number(process.env.BENCH_SCALE_WINDOW_MS ?? sized(30_000, 1_000));
const MAX_RPS = 10;
/** A heavy team's week: 1,000 jobs a day, all finished, in memory mode (the store keeps records 30 days). */
const WEEK_JOBS = Number(process.env.BENCH_WEEK_JOBS ?? sized(7_000, 100));
const EXTRA_WINDOW_MS = sized(5_000, 500);
export const RSS_TARGET_MB = 150;

/**
 * The app process runs plain JavaScript, as `node dist/main.js` does: under `--import tsx` the loader's worker
 * thread alone adds ~40 MB of RSS that production never has (measured: 149 against 109 MB at rest). So its
 * entry is bundled once into `.bench/` (git-ignored; packages stay external and resolve from the repo,
 * the product's `src/` is bundled in), with esbuild, which tsx brings.
 */
let bundled: Promise<string> | undefined;
function appEntry(): Promise<string> {
  bundled ??= (async () => {
    const { build } = await import('esbuild');
    const outfile = fileURLToPath(new URL('../.bench/scale-app-process.mjs', import.meta.url));
    await build({
      entryPoints: [fileURLToPath(new URL('./scale-app-process.ts', import.meta.url))],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      target: 'node20',
      packages: 'external',
      logLevel: 'error',
    });
    return outfile;
  })();
  return bundled;
}

async function runApp(args: ScaleArgs): Promise<ScaleResult> {
  const file = await appEntry();
  // --expose-gc: the seed's garbage is collected before the app starts, so RSS is the app's.
  const child = spawn(process.execPath, ['--expose-gc', file, '--child'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stdin.end(JSON.stringify(args));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), args.windowMs + 180_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      const line = out.trim().split('\n').pop() ?? '';
      if (code === 0 && line) resolve(JSON.parse(line) as ScaleResult);
      else reject(new Error(`scale app process exited with ${code}: ${out}`));
    });
  });
}

export async function runScale(): Promise<{ rows: Row[]; summary: Record<string, number> }> {
  const fakes = await FakesProcess.start();
  const redis = await startRedisServer();
  try {
    await fakes.send({ cmd: 'configure', latencyMs: 50 });
    const jobIds = await fakes.send<string[]>({ cmd: 'seedJobs', count: JOBS });
    const rows: Row[] = [];
    const summary: Record<string, number> = {};
    for (const mode of ['memory', 'redis'] as const) {
      await fakes.send({ cmd: 'forget' });
      const result = await runApp({
        env: benchEnv(fakes.urls),
        mode,
        ...(mode === 'redis' ? { redisUrl: redis.url } : {}),
        jobIds,
        windowMs: WINDOW_MS,
        maxRps: MAX_RPS,
      });
      const perSecond = await fakes.send<number[]>({ cmd: 'jobGetsPerSecond', sinceMs: result.startedAt });
      // Seconds from the first poll on (the first 5 s after start nothing is due yet) to the window's end.
      const first = perSecond.findIndex((n) => n > 0);
      const active =
        first === -1 ? [] : perSecond.slice(first, Math.ceil((result.startMs + WINDOW_MS) / 1000));
      const polls = active.reduce((a, b) => a + b, 0);
      const meanRps = active.length ? polls / active.length : 0;
      const maxRps = Math.max(0, ...active);
      rows.push({
        mode,
        jobs: JOBS,
        'seed (s)': fmt(result.seedMs / 1000, 1),
        'start+resume (s)': fmt(result.startMs / 1000, 1),
        'RSS max (MB)': fmt(result.rssMaxMb, 0),
        'heap end (MB)': fmt(result.heapUsedEndMb, 0),
        'loop p50 (ms)': fmt(result.loopP50Ms, 2),
        'loop p99 (ms)': fmt(result.loopP99Ms, 2),
        'loop max (ms)': fmt(result.loopMaxMs, 1),
        'polls in window': polls,
        'polls/s mean': fmt(meanRps, 1),
        'polls/s median': fmt(median(active), 0),
        'polls/s max 1-s bucket': maxRps,
      });
      summary[`${mode}RssMb`] = result.rssMaxMb;
      summary[`${mode}LoopP99Ms`] = result.loopP99Ms;
      summary[`${mode}MeanRps`] = meanRps;
      summary[`${mode}MaxRps`] = maxRps;
      summary[`${mode}Polls`] = polls;
      summary[`${mode}StartLoopP99Ms`] = result.startLoopP99Ms;
    }
    summary.limitRps = MAX_RPS;
    // Informational rows in memory mode: the app with no jobs at all (the floor any per-job figure sits on),
    // and after a week of traffic (finished jobs only): what the store keeps once jobs are done.
    const extraRows: (readonly [string, number])[] = [
      ['memory, no jobs (baseline)', 0],
      [`memory, a week of traffic (${WEEK_JOBS.toLocaleString('en-US')} finished jobs)`, WEEK_JOBS],
    ];
    // The smoke run starts one app process fewer: the baseline is the same path with nothing seeded.
    for (const [name, finishedJobs] of sized(extraRows, extraRows.slice(1))) {
      await fakes.send({ cmd: 'forget' });
      const result = await runApp({
        env: benchEnv(fakes.urls),
        mode: 'memory',
        jobIds: [],
        finishedJobs,
        windowMs: EXTRA_WINDOW_MS,
        maxRps: MAX_RPS,
      });
      rows.push({
        mode: name,
        jobs: finishedJobs,
        'seed (s)': fmt(result.seedMs / 1000, 1),
        'start+resume (s)': fmt(result.startMs / 1000, 1),
        'RSS max (MB)': fmt(result.rssMaxMb, 0),
        'heap end (MB)': fmt(result.heapUsedEndMb, 0),
        'loop p50 (ms)': fmt(result.loopP50Ms, 2),
        'loop p99 (ms)': fmt(result.loopP99Ms, 2),
        'loop max (ms)': fmt(result.loopMaxMs, 1),
        'polls in window': '—',
        'polls/s mean': '—',
        'polls/s median': '—',
        'polls/s max 1-s bucket': '—',
      });
      summary[finishedJobs === 0 ? 'baselineRssMb' : 'weekRssMb'] = result.rssMaxMb;
      summary[finishedJobs === 0 ? 'baselineHeapMb' : 'weekHeapMb'] = result.heapUsedEndMb;
    }
    summary.weekJobs = WEEK_JOBS;
    return { rows, summary };
  } finally {
    await fakes.stop();
    await redis.stop();
  }
}

export function scaleVerdict(s: Record<string, number>): string[] {
  const week = `memory mode after a week of traffic (${s.weekJobs} finished jobs): RSS ${fmt(s.weekRssMb!, 0)} MB, heap ${fmt(
    s.weekHeapMb!,
    0,
  )} MB against ${fmt(s.baselineRssMb!, 0)} MB / ${fmt(s.baselineHeapMb!, 0)} MB with no jobs (informational: bounded only once the memory store is)`;
  return (['memory', 'redis'] as const)
    .flatMap((mode) => [
      `${mode}: RSS ${fmt(s[`${mode}RssMb`]!, 0)} MB: target ≤ ${RSS_TARGET_MB} MB ${s[`${mode}RssMb`]! <= RSS_TARGET_MB ? 'MET' : 'MISSED'}; event-loop p99 ${fmt(
        s[`${mode}LoopP99Ms`]!,
        2,
      )} ms: target < 20 ms ${s[`${mode}LoopP99Ms`]! < 20 ? 'MET' : 'MISSED'}`,
      `${mode}: polls ${fmt(s[`${mode}MeanRps`]!, 1)}/s on average (max ${s[`${mode}MaxRps`]} in one second) with DOCS_API_MAX_RPS=${s.limitRps}: ${
        s[`${mode}MeanRps`]! <= s.limitRps! && s[`${mode}Polls`]! > 0
          ? 'under the ceiling'
          : 'OVER the ceiling'
      }`,
    ])
    .concat(week);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { table } = await import('./stats.js');
  const { rows, summary } = await runScale();
  console.log(table(rows));
  for (const line of scaleVerdict(summary)) console.log(line);
  process.exit(0);
}
