import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadavg } from 'node:os';
import { App, HTTPReceiver, LogLevel } from '@slack/bolt';
import { BOT_TOKEN, SIGNING_SECRET } from '../test/support/test-app.js';
import {
  ACK_P99_TARGET_MS,
  type AckSummary,
  ackVerdictLines,
  emptySummary,
  forEachAckMode,
  measureWindow,
  windowRows,
  withAckRig,
} from './ack-shared.js';
import type { OpenLoopRequest, OpenLoopResult } from './fakes-process.js';
import { watchRedis } from './redis-slowlog.js';
import { sized } from './smoke.js';
import { fmt, median, percentile, type Row } from './stats.js';

/**
 * Acknowledgement latency per command at a fixed 200 requests/s, memory mode and Redis mode (issue 16,
 * item 1), with the docs API taking 2 s to answer.
 *
 * Method: the fake Slack, the fake docs platform and an open-loop generator run in a child process
 * (bench/fakes-process.ts); the app (`src/` through bench/product.ts, log level `info`) runs in this process. Requests leave
 * at 200/s whatever the app does, round-robin over the commands below, and latency counts from each
 * request's scheduled time to its full response. Per mode: a warm-up (JIT, connections; the cached
 * `/docs-views` report is fetched and its answer awaited), then the measured window. Redis mode runs on a
 * throw-away redis-server (test/support/redis-server.ts). A bare Bolt app that only acks is measured the
 * same way as an informational row: the floor Bolt itself sets on this machine.
 */
export const ACK_PER_SECOND = Number(process.env.BENCH_ACK_RATE ?? sized(200, 8));
const WINDOW_S = Number(process.env.BENCH_ACK_SECONDS ?? sized(10, 1));
const WARM_UP_S = sized(3, 1);

export { ACK_P99_TARGET_MS };

const STATUS_JOB = 'job_seed_00000';

const MIX: OpenLoopRequest[] = [
  { label: '/docs-agent <instruction>', command: '/docs-agent', text: 'Document the new 429 response {i}' },
  { label: '/docs-agent list', command: '/docs-agent', text: 'list' },
  { label: '/docs-agent status <job>', command: '/docs-agent', text: `status ${STATUS_JOB}` },
  // A path prefix of its own per request: every one misses the cache and starts a fetch.
  { label: '/docs-views (cold)', command: '/docs-views', text: '7d top 10 /cold/{i}' },
  { label: '/docs-views (cached)', command: '/docs-views', text: '7d top 10' },
  // Four analytics endpoints behind one range: the first request fetches, the rest share it or the cache.
  { label: '/docs-health', command: '/docs-health', text: '7d top 5' },
];
const LABELS = MIX.map((m) => m.label);

async function bareBolt(slackApiUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const receiver = new HTTPReceiver({
    signingSecret: SIGNING_SECRET,
    endpoints: '/slack/events',
    logLevel: LogLevel.ERROR,
  });
  const app = new App({
    token: BOT_TOKEN,
    receiver,
    logLevel: LogLevel.ERROR,
    clientOptions: { slackApiUrl },
  });
  app.command('/docs-agent', async ({ ack }) => ack());
  app.command('/docs-views', async ({ ack }) => ack());
  app.command('/docs-health', async ({ ack }) => ack());
  const server = (await app.start(0)) as Server;
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/slack/events`,
    stop: async () => {
      await app.stop();
    },
  };
}

/**
 * The windows measured per mode: with the warm-up's burst of answers inside (what users meet, issue 37), then
 * after every earlier answer arrived (issue 28's method). BENCH_ACK_OVERLAP=0 measures the second alone.
 */
const WINDOWS: Array<'burst inside' | 'after burst'> =
  process.env.BENCH_ACK_OVERLAP === '0' ? ['after burst'] : ['burst inside', 'after burst'];

/** Requests in `seconds` of the mix that are instructions (answered by a card, not via response_url). */
function instructionsIn(seconds: number): number {
  const total = Math.round(ACK_PER_SECOND * seconds);
  const instruction = MIX.findIndex((m) => m.label.endsWith('<instruction>'));
  return Array.from({ length: total }, (_, i) => i % MIX.length).filter((k) => k === instruction).length;
}

/** When the slowest 1% of a window's requests were sent: a burst shows as a narrow span. */
function sentWhen(result: OpenLoopResult): string {
  if (result.slowest.length === 0) return 'n/a';
  const at = result.slowest.map((s) => s.sentAtMs / 1000);
  return `${fmt(Math.min(...at), 2)}–${fmt(Math.max(...at), 2)} s into the window`;
}

export type { AckSummary };

export async function runAckLatency(): Promise<{ rows: Row[]; summary: AckSummary }> {
  const rows: Row[] = [];
  const summary = emptySummary();
  await withAckRig(async (rig) => {
    const { fakes } = rig;
    const drive = (url: string, seconds: number, tag: string, mix = MIX) =>
      fakes.send<OpenLoopResult>({ cmd: 'openLoop', url, perSecond: ACK_PER_SECOND, seconds, mix, tag });
    await fakes.send({ cmd: 'seedJobs', count: 1 });
    await forEachAckMode(rig, async (mode, app) => {
      // Warm up, and fill the cache for the "cached" row: request 4 of the warm-up is its first.
      const warmTag = `warm-${mode}-`;
      mark(`${warmTag} start`);
      await drive(app.url, WARM_UP_S, warmTag);
      const warmed = await fakes.send<number | null>({
        cmd: 'waitResponse',
        path: `/response/${warmTag}4`,
        timeoutMs: 30_000,
      });
      if (warmed === null)
        throw new Error(`${mode}: the warm-up report never arrived: the analytics cache is cold`);
      // Every warm-up request but the instructions is answered via response_url, most of them at once when
      // that first fetch ends (they all wait on it). The first window starts amid that burst, as users meet
      // it; the second after every earlier answer arrived (the method of issue 28). BENCH_ACK_OVERLAP=0
      // measures the second alone.
      const waitAnswers = async (prefix: string, seconds: number) => {
        const owed = Math.round(ACK_PER_SECOND * seconds) - instructionsIn(seconds);
        const answered = await fakes.send<number>({
          cmd: 'waitResponses',
          prefix: `/response/${prefix}`,
          count: owed,
          timeoutMs: 60_000,
        });
        if (answered < owed)
          throw new Error(`${mode}: ${owed - answered} answers to ${prefix} never arrived`);
      };
      for (const window of WINDOWS) {
        const tag = `${mode}-${window === 'burst inside' ? 'in' : 'after'}-`;
        if (window === 'after burst') {
          await waitAnswers(warmTag, WARM_UP_S);
          if (WINDOWS.length > 1) await waitAnswers(`${mode}-in-`, WINDOW_S);
        }
        const redisWatch = mode === 'redis' ? await watchRedis(rig.redis.url) : undefined;
        mark(`${tag} start`);
        const { result, conditions } = await measureWindow(() => drive(app.url, WINDOW_S, tag));
        mark(`${tag} end`);
        const redisSays = await redisWatch?.report();
        await redisWatch?.close();
        maxScheduleLagMs = Math.max(maxScheduleLagMs, result.maxLagMs);
        const note = `generator behind schedule at most ${fmt(result.maxLagMs, 1)} ms; slowest 1% sent ${sentWhen(result)}${redisSays ? `; ${redisSays}` : ''}`;
        rows.push(
          ...windowRows(
            { mode, label: `${mode} (${window})`, note },
            LABELS,
            result.latencies,
            result.failures,
            conditions,
            summary,
          ),
        );
      }
    });
    const bare = await bareBolt(fakes.urls.slackApiUrl);
    try {
      await drive(bare.url, WARM_UP_S, 'warm-bare-');
      const result = await drive(bare.url, WINDOW_S, 'bare-');
      const all = Object.values(result.latencies).flat();
      rows.push({
        mode: '—',
        command: 'bare Bolt, ack only (informational)',
        acks: all.length,
        failures: Object.values(result.failures).reduce((a, b) => a + b, 0),
        'p50 (ms)': fmt(median(all), 2),
        'p99 (ms)': fmt(percentile(all, 99), 2),
        'max (ms)': fmt(Math.max(...all), 1),
        'load avg': fmt(loadavg()[0]!, 2),
        'generator lag p99 / max (ms)': `${fmt(result.generatorLag.p99Ms, 1)} / ${fmt(result.generatorLag.maxMs, 0)}`,
        verdict: '—',
      });
    } finally {
      await bare.stop();
    }
  });
  return { rows, summary };
}

/**
 * BENCH_MARKS=1: each warm-up and window says when it starts and ends (stderr, µs on the monotonic clock a
 * `--cpu-prof` profile's `startTime` uses), so a profile of the run can be cut by window.
 */
function mark(what: string): void {
  if (process.env.BENCH_MARKS) console.error(`MARK ${what} ${process.hrtime.bigint() / 1000n}`);
}

/** How far the open-loop generator fell behind its own schedule at worst, over the run (ms). */
let maxScheduleLagMs = 0;

export function ackVerdict(s: AckSummary): string[] {
  return [
    ...ackVerdictLines(s, `at ${ACK_PER_SECOND}/s`),
    `(the open-loop generator fell at most ${fmt(maxScheduleLagMs, 1)} ms behind its schedule)`,
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { table } = await import('./stats.js');
  const { rows, summary } = await runAckLatency();
  console.log(table(rows));
  for (const line of ackVerdict(summary)) console.log(line);
  process.exit(0);
}
