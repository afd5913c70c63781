/**
 * §1's burst of owed answers alone (issue 43), memory mode: 3 s of §1's mix at 200/s, then, with no more
 * traffic, the app's main-thread CPU between turns of its event loop (at each 1 ms timer) while the ~500
 * answers waiting on the same first fetches are released, until every one arrived, and for 12 s after (what
 * they leave behind). CPU time, so a loaded machine taking the core away does not inflate it; without
 * traffic, no backlog of requests shares a turn with the burst. The timer's own cost grows with the turns the
 * loop makes, so `threadCpuMs` is no cost comparison. `gcMaxMs`/`gcOver10`: the collector's pauses (wall
 * time), to tell its stretches from the app's; `releaseLogLines`: lines logged while the answers went out.
 *
 *   npx tsx bench/ack-burst.ts
 *   BENCH_STRETCHES=1 node --cpu-prof --import tsx bench/ack-burst.ts   (then long-tasks.ts with the windows)
 *   BENCH_ALLOC=release.heapprofile npx tsx bench/ack-burst.ts         (what the release allocates)
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { FakesProcess, type OpenLoopRequest } from './fakes-process.js';
import { benchEnv } from './harness.js';
import { createDocsAgent, createLogger, loadConfig, secretsOf } from './product.js';

const MIX: OpenLoopRequest[] = [
  { label: 'instr', command: '/docs-agent', text: 'Document the new 429 response {i}' },
  { label: 'list', command: '/docs-agent', text: 'list' },
  { label: 'status', command: '/docs-agent', text: 'status job_seed_00000' },
  { label: 'cold', command: '/docs-views', text: '7d top 10 /cold/{i}' },
  { label: 'cached', command: '/docs-views', text: '7d top 10' },
  { label: 'health', command: '/docs-health', text: '7d top 5' },
];
const fakes = await FakesProcess.start();
await fakes.send({ cmd: 'configure', latencyMs: 2000, jobsPerHour: null, viewRows: 1000 });
await fakes.send({ cmd: 'seedJobs', count: 1 });
const config = loadConfig(
  benchEnv(fakes.urls, { AGENT_JOBS_PER_HOUR: '1000000', ANALYTICS_HOURLY_BUDGET: '100000' }),
);
let lines = 0;
const logger = createLogger({
  level: config.logLevel,
  secrets: secretsOf(config),
  destination: { write: () => lines++ },
});
const agent = createDocsAgent(config, { logger });
const port = await agent.start();
const url = `http://127.0.0.1:${port}/slack/events`;
await fakes.send({ cmd: 'openLoop', url, perSecond: 200, seconds: 3, mix: MIX, tag: 'warm-' });
// Stretches: main-thread CPU between 1 ms timer firings.
let last = process.threadCpuUsage();
let lastAt = process.hrtime.bigint() / 1000n;
const stretches: number[] = [];
// BENCH_STRETCHES=1: each stretch of 10 ms or more, on the monotonic clock a --cpu-prof profile uses (µs),
// to cut the profile at it (`bench/long-tasks.ts <profile> 10 15 <windows.json>`).
const marks: Array<{ fromUs: number; toUs: number; cpuMs: number }> = [];
const timer = setInterval(() => {
  const now = process.threadCpuUsage();
  const at = process.hrtime.bigint() / 1000n;
  const cpuMs = (now.user - last.user + now.system - last.system) / 1000;
  stretches.push(cpuMs);
  if (cpuMs >= 10) marks.push({ fromUs: Number(lastAt), toUs: Number(at), cpuMs });
  last = now;
  lastAt = at;
}, 1);
// BENCH_ALLOC=<file>: what the release allocates, collected or not (a sampling heap profile, .heapprofile).
const alloc = process.env.BENCH_ALLOC ? await allocationSampling() : undefined;
// The collector's pauses on the main thread (wall time) from here on: which long stretches were its.
const gcPauses: number[] = [];
const gcWatch = new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcPauses.push(entry.duration);
});
gcWatch.observe({ entryTypes: ['gc'] });
const cpu0 = process.threadCpuUsage();
const lines0 = lines;
const t0 = performance.now();
const t0Us = Number(process.hrtime.bigint() / 1000n);
const owed = 600 - 100; // every request but the 100 instructions is answered via response_url
const got = await fakes.send<number>({
  cmd: 'waitResponses',
  prefix: '/response/warm-',
  count: owed,
  timeoutMs: 60_000,
});
const releaseMs = Math.round(performance.now() - t0);
const releasedUs = Number(process.hrtime.bigint() / 1000n);
const releaseLines = lines - lines0;
if (alloc) writeFileSync(process.env.BENCH_ALLOC!, JSON.stringify(await alloc()));
const releaseStretches = stretches.length;
// Then 12 s more with no traffic: what the answers left behind (timers armed for a timeout after them).
await new Promise((resolve) => setTimeout(resolve, 12_000));
clearInterval(timer);
gcWatch.disconnect();
const cpu = process.threadCpuUsage(cpu0);
const after = stretches.slice(releaseStretches).sort((a, b) => b - a);
const sorted = [...stretches].sort((a, b) => b - a);
console.log(
  JSON.stringify({
    answered: got,
    releaseWallMs: releaseMs,
    releaseLogLines: releaseLines,
    afterMaxMs: +(after[0] ?? 0).toFixed(1),
    afterOver10: after.filter((x) => x >= 10).length,
    threadCpuMs: Math.round((cpu.user + cpu.system) / 1000),
    stretchMaxMs: +sorted[0]!.toFixed(1),
    top5: sorted.slice(0, 5).map((s) => +s.toFixed(1)),
    over10: sorted.filter((s) => s >= 10).length,
    over5: sorted.filter((s) => s >= 5).length,
    gcMaxMs: +Math.max(0, ...gcPauses).toFixed(1),
    gcOver10: gcPauses.filter((ms) => ms >= 10).length,
    load: (await import('node:os')).loadavg()[0]!.toFixed(1),
  }),
);
if (process.env.BENCH_STRETCHES) {
  console.error(`STRETCHES ${JSON.stringify(marks)}`);
  console.error(`RELEASE ${JSON.stringify([{ fromUs: t0Us, toUs: releasedUs }])}`);
}
await agent.stop();
await fakes.stop();
process.exit(0);

/** Starts V8's sampling heap profiler keeping collected objects; the function returned stops it. */
async function allocationSampling(): Promise<() => Promise<unknown>> {
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 8192,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  return async () => (await session.post('HeapProfiler.stopSampling')).profile;
}
