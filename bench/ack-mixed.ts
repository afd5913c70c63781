import { monitorEventLoopDelay } from 'node:perf_hooks';
import { startRedisServer } from '../test/support/redis-server.js';
import { FakesProcess, type LoadResult } from './fakes-process.js';
import { startBenchApp } from './harness.js';
import { sized } from './smoke.js';
import { fmt, median, percentile, type Row } from './stats.js';

/**
 * Acknowledgements under mixed load (issue 37, point 2): 400 signed slash commands in a closed loop, round-robin
 * over `/docs-agent <instruction>`, `/docs-agent list` and `/docs-views`, with the docs API answering in 2 s.
 * The real app (bench/product.ts through startBenchApp) runs in this process; the fakes and the load generator
 * run in a child process (bench/fakes-process.ts). Memory mode and Redis mode (a throw-away redis-server) run
 * one after the other in the same run, so their figures are side by side. Every `/docs-views` asks for the same
 * range: the first fetch is shared by the requests behind it, later ones build their report and chart from the
 * cache after `ack()`. The app's event-loop delay is recorded during the mix.
 */
const REQUESTS = Number(process.env.BENCH_MIXED_REQUESTS ?? sized(400, 12));
const CONCURRENCY = Number(process.env.BENCH_MIXED_CONCURRENCY ?? sized(8, 2));
const DOCS_LATENCY_MS = sized(2_000, 100);
export const MIXED_P99_TARGET_MS = 50;

const MIX = [
  { label: '/docs-agent <instruction>', command: '/docs-agent', text: 'Document the new 429 response' },
  { label: '/docs-agent list', command: '/docs-agent', text: 'list' },
  { label: '/docs-views', command: '/docs-views', text: '7d top 10' },
];

export interface MixedSummary {
  worstP99: Record<'memory' | 'redis', number>;
  failures: number;
}

export async function runAckMixed(): Promise<{ rows: Row[]; summary: MixedSummary }> {
  const fakes = await FakesProcess.start();
  const redis = await startRedisServer();
  const rows: Row[] = [];
  const summary: MixedSummary = { worstP99: { memory: 0, redis: 0 }, failures: 0 };
  try {
    await fakes.send({ cmd: 'configure', latencyMs: DOCS_LATENCY_MS, jobsPerHour: null, viewRows: 1000 });
    for (const mode of ['memory', 'redis'] as const) {
      const app = await startBenchApp(fakes.urls, {
        LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
        AGENT_JOBS_PER_HOUR: '1000000',
        ANALYTICS_HOURLY_BUDGET: '100000',
        ...(mode === 'redis' ? { REDIS_URL: redis.url } : {}),
      });
      const run = (requests: number, tag: string) =>
        fakes.send<LoadResult>({
          cmd: 'load',
          url: app.url,
          requests,
          concurrency: CONCURRENCY,
          commands: MIX.map((m) => m.command),
          texts: MIX.map((m) => m.text),
          labels: MIX.map((m) => m.label),
          tag,
        });
      try {
        await run(sized(30, 3), `mixed-warm-${mode}-`);
        const loop = monitorEventLoopDelay({ resolution: 1 });
        loop.enable();
        const result = await run(REQUESTS, `mixed-${mode}-`);
        loop.disable();
        summary.failures += result.failures;
        for (const m of MIX) {
          const l = result.byLabel[m.label] ?? [];
          const p99 = percentile(l, 99);
          summary.worstP99[mode] = Math.max(summary.worstP99[mode], p99);
          rows.push({
            mode,
            command: m.label,
            acks: l.length,
            'p50 (ms)': fmt(median(l), 2),
            'p99 (ms)': fmt(p99, 2),
            'max (ms)': fmt(Math.max(...l), 1),
            verdict: p99 < MIXED_P99_TARGET_MS ? 'MET' : 'MISSED',
          });
        }
        rows.push({
          mode,
          command: `(event loop during the mix: p50 ${fmt(loop.percentile(50) / 1e6, 1)} ms, p99 ${fmt(
            loop.percentile(99) / 1e6,
            1,
          )} ms, max ${fmt(loop.max / 1e6, 0)} ms; ${result.failures} failed)`,
          acks: '',
          'p50 (ms)': '',
          'p99 (ms)': '',
          'max (ms)': '',
          verdict: '',
        });
      } finally {
        await app.stop();
      }
    }
    return { rows, summary };
  } finally {
    await fakes.stop();
    await redis.stop();
  }
}

export function mixedVerdict(s: MixedSummary): string[] {
  const v = (p99: number) => (p99 < MIXED_P99_TARGET_MS && s.failures === 0 ? 'MET' : 'MISSED');
  return [
    `memory mode: worst per-command ack p99 ${fmt(s.worstP99.memory, 2)} ms: target < ${MIXED_P99_TARGET_MS} ms ${v(s.worstP99.memory)}`,
    `redis mode: worst per-command ack p99 ${fmt(s.worstP99.redis, 2)} ms: target < ${MIXED_P99_TARGET_MS} ms ${v(s.worstP99.redis)}`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { table } = await import('./stats.js');
  const { rows, summary } = await runAckMixed();
  console.log(table(rows));
  for (const line of mixedVerdict(summary)) console.log(line);
  process.exit(0);
}
