import { monitorEventLoopDelay } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import type { JobRecord } from '../src/jobs/domain/job.js';
import type { JobStore } from '../src/jobs/ports.js';
import { startAppWithEnv } from './bench-app.js';
import { createLogger, createMemoryJobStore, createRedisJobStore, newJobRecord } from './product.js';

/**
 * Benchmark 4, the app side, in a process of its own so that its resident memory is the app's alone:
 * seeds `jobs` watched job records into the store (memory: a store handed to `createDocsAgent`; Redis: written
 * to Redis before the app starts), starts the real app, which resumes watching every one of them exactly as
 * after a restart, then samples RSS and event-loop delay for `windowMs`. Prints one JSON line.
 */
export interface ScaleArgs {
  /** The app's environment on the fakes (`benchEnv`), built by the parent: this process imports no test code. */
  env: Record<string, string>;
  mode: 'memory' | 'redis';
  redisUrl?: string;
  jobIds: string[];
  /** Finished (no longer watched) jobs to seed as well: what a week of traffic leaves in the store. */
  finishedJobs?: number;
  windowMs: number;
  maxRps: number;
}

export interface ScaleResult {
  seedMs: number;
  startMs: number;
  startedAt: number;
  rssBeforeMb: number;
  rssMaxMb: number;
  rssEndMb: number;
  heapUsedEndMb: number;
  /** Heap in use at the window's end after a full collection: what the app keeps alive, garbage aside. */
  heapLiveEndMb: number;
  loopP50Ms: number;
  loopP99Ms: number;
  loopMaxMs: number;
  startLoopP99Ms: number;
}

function record(jobId: string, i: number, now: number): JobRecord {
  const ts = `1700000000.${String(i).padStart(6, '0')}`;
  return newJobRecord(
    {
      jobId,
      teamId: 'T0TEAM',
      channelId: `C0DOCS${i % 50}`,
      threadTs: ts,
      cardTs: ts,
      requesterId: 'U0ALICE',
      prompt: `Document the change number ${i} in the API reference`,
      origin: 'command',
      status: 'active',
      repository: 'https://github.com/acme/docs',
      ref: null,
      model: 'claude-sonnet-4-5',
      prLink: null,
    },
    now,
  );
}

async function seed(store: JobStore, jobIds: string[]): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < jobIds.length; i += 200) {
    await Promise.all(
      jobIds.slice(i, i + 200).map(async (jobId, k) => {
        const r = record(jobId, i + k, now);
        await store.saveJob(r);
        await store.linkThread(r.channelId, r.threadTs, r.jobId);
      }),
    );
  }
}

/** Finished jobs as a week of traffic leaves them: completed with a PR, no longer watched, thread linked. */
async function seedFinished(store: JobStore, count: number): Promise<void> {
  const now = Date.now();
  for (let i = 0; i < count; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, count - i) }, async (_, k) => {
        const n = i + k;
        const r = record(`job_week_${n}`, 100_000 + n, now - (7 * 24 * 3600_000 * (count - n)) / count);
        const finished = {
          ...r,
          status: 'completed' as const,
          ref: `docs-agent/job_week_${n}`,
          prLink: `https://github.com/acme/docs/pull/${n}`,
          watching: false,
        };
        await store.saveJob(finished);
        await store.linkThread(r.channelId, r.threadTs, r.jobId);
      }),
    );
  }
}

const mb = (bytes: number) => Math.round((bytes / 1024 / 1024) * 10) / 10;

async function main(args: ScaleArgs): Promise<ScaleResult> {
  const silent = createLogger({ level: 'silent', secrets: [] });
  const seedStarted = Date.now();
  let jobStore: JobStore | undefined;
  if (args.mode === 'memory') {
    jobStore = createMemoryJobStore(silent);
    await seed(jobStore, args.jobIds);
    await seedFinished(jobStore, args.finishedJobs ?? 0);
  } else {
    const state = await createRedisJobStore(args.redisUrl!, silent);
    await seed(state.store, args.jobIds);
    await seedFinished(state.store, args.finishedJobs ?? 0);
    await state.close();
  }
  const seedMs = Date.now() - seedStarted;
  global.gc?.();
  const rssBeforeMb = mb(process.memoryUsage().rss);

  const startLoop = monitorEventLoopDelay({ resolution: 1 });
  startLoop.enable();
  const startedAt = Date.now();
  const app = await startAppWithEnv(
    {
      ...args.env,
      // Production defaults for polling (5 s, backing off to 60 s); the global ceiling under test.
      DOCS_API_MAX_RPS: String(args.maxRps),
      ...(args.redisUrl ? { REDIS_URL: args.redisUrl } : {}),
    },
    jobStore ? { jobStore } : {},
  );
  const startMs = Date.now() - startedAt;
  startLoop.disable();

  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let rssMax = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    rssMax = Math.max(rssMax, process.memoryUsage().rss);
  }, 250);
  await new Promise((resolve) => setTimeout(resolve, args.windowMs));
  clearInterval(sampler);
  loop.disable();
  const end = process.memoryUsage();
  // BENCH_HEAP_SNAPSHOT=<dir>: a heap snapshot at the window's end, to see what each watched job costs.
  if (process.env.BENCH_HEAP_SNAPSHOT)
    writeHeapSnapshot(
      `${process.env.BENCH_HEAP_SNAPSHOT}/scale-${args.mode}-${args.jobIds.length}.heapsnapshot`,
    );
  global.gc?.();
  const heapLiveEndMb = mb(process.memoryUsage().heapUsed);
  await app.stop();
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  return {
    seedMs,
    startMs,
    startedAt,
    rssBeforeMb,
    rssMaxMb: mb(Math.max(rssMax, end.rss)),
    rssEndMb: mb(end.rss),
    heapUsedEndMb: mb(end.heapUsed),
    heapLiveEndMb,
    loopP50Ms: ms(loop.percentile(50)),
    loopP99Ms: ms(loop.percentile(99)),
    loopMaxMs: ms(loop.max),
    startLoopP99Ms: ms(startLoop.percentile(99)),
  };
}

if (process.argv.includes('--child')) {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const result = await main(JSON.parse(Buffer.concat(chunks).toString('utf8')) as ScaleArgs);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
