import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Pool } from 'undici';
import { signedHeaders, slashCommandBody } from '../test/support/slack-signing.js';
import { SIGNING_SECRET } from '../test/support/test-app.js';

/** The load generators of the fakes process (bench/fakes-process.ts): closed loop and open loop. */

/**
 * The generator's own event-loop delay during a run (ms). Its clocks run on that loop, so a stall of the
 * generator's process shows in every latency it measures: when this is as large as a latency figure, the
 * figure says more about the machine than about the app.
 */
export interface GeneratorLag {
  p99Ms: number;
  maxMs: number;
}

function watchOwnLoop(): () => GeneratorLag {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  return () => {
    loop.disable();
    return { p99Ms: loop.percentile(99) / 1e6, maxMs: loop.max / 1e6 };
  };
}

export interface LoadCommand {
  url: string;
  requests: number;
  concurrency: number;
  commands: string[];
  texts: string[];
  /** Request i's label, round-robin (`labels[i % length]`): latencies are also kept per label. */
  labels?: string[];
  /** Request i's response_url is `/response/<tag><i>` (default `r`). */
  tag?: string;
}

export interface OpenLoopCommand {
  url: string;
  perSecond: number;
  seconds: number;
  mix: OpenLoopRequest[];
  /** Workspaces the requests come from, round-robin (request i from `teams[i % length]`); default T0TEAM. */
  teams?: string[];
  /** Request i's response_url is `/response/<tag><i>` (default `o`): runs with their own tags never share one. */
  tag?: string;
}

export interface LoadResult {
  latencies: number[];
  /** The same latencies by request label (only when the command gave labels). */
  byLabel: Record<string, number[]>;
  seconds: number;
  failures: number;
  /** The same failures by request label (only when the command gave labels). */
  failuresByLabel: Record<string, number>;
  /** CPU seconds the fakes-and-load process used meanwhile (user + system). */
  cpuSeconds: number;
  generatorLag: GeneratorLag;
}

/** One kind of request in an open-loop mix; `{i}` in `text` becomes the request's sequence number. */
export interface OpenLoopRequest {
  label: string;
  command: string;
  text: string;
  channelId?: string;
}

export interface OpenLoopResult {
  /** Milliseconds from each request's scheduled send time to its complete response, by label. */
  latencies: Record<string, number[]>;
  failures: Record<string, number>;
  /** How far behind schedule the generator itself fell at worst (ms): a check on the method. */
  maxLagMs: number;
  seconds: number;
  /** The slowest 1% of requests: when each was sent (ms into the run) and its latency, slowest first. */
  slowest: Array<{ label: string; sentAtMs: number; ms: number }>;
  generatorLag: GeneratorLag;
}

/**
 * Signed slash commands from `concurrency` workers, round-robin over commands and texts, each signed just
 * before it is sent (as Slack does), on `concurrency` keep-alive connections. undici's `Pool.request` rather
 * than `fetch`: fetch costs several times more CPU per request, enough to make the load generator, not the
 * app, the limit of a bare Bolt app's throughput.
 */
export async function load(c: LoadCommand, slackUrl: string): Promise<LoadResult> {
  const latencies: number[] = [];
  const byLabel: Record<string, number[]> = {};
  const failuresByLabel: Record<string, number> = {};
  let failures = 0;
  let next = 0;
  const target = new URL(c.url);
  const pool = new Pool(target.origin, { connections: c.concurrency, pipelining: 1 });
  const cpu = process.cpuUsage();
  const ownLoop = watchOwnLoop();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: c.concurrency }, async () => {
      while (next < c.requests) {
        const i = next++;
        const body = slashCommandBody({
          command: c.commands[i % c.commands.length]!,
          text: c.texts[i % c.texts.length]!,
          response_url: `${slackUrl}/response/${c.tag ?? 'r'}${i}`,
        });
        const label = c.labels?.[i % c.labels.length];
        const fail = () => {
          failures += 1;
          if (label !== undefined) failuresByLabel[label] = (failuresByLabel[label] ?? 0) + 1;
        };
        const sent = performance.now();
        try {
          const response = await pool.request({
            method: 'POST',
            path: target.pathname,
            headers: {
              'content-type': 'application/x-www-form-urlencoded',
              ...signedHeaders(SIGNING_SECRET, body),
            },
            body,
          });
          await response.body.text();
          if (response.statusCode !== 200) fail();
          const ms = performance.now() - sent;
          latencies.push(ms);
          if (label !== undefined) {
            byLabel[label] ??= [];
            byLabel[label].push(ms);
          }
        } catch {
          fail();
        }
      }
    }),
  );
  const generatorLag = ownLoop();
  await pool.close();
  const used = process.cpuUsage(cpu);
  return {
    latencies,
    byLabel,
    seconds: (performance.now() - started) / 1000,
    failures,
    failuresByLabel,
    cpuSeconds: (used.user + used.system) / 1e6,
    generatorLag,
  };
}

/**
 * Open loop: requests leave at a fixed rate whatever the app's answers do (as Slack's traffic does), round-
 * robin over `mix`, each signed as it leaves, on up to 128 keep-alive connections. Latency counts from the
 * scheduled send time, so a stalled app cannot hide its stall by slowing the generator down.
 */
export async function openLoop(c: OpenLoopCommand, slackUrl: string): Promise<OpenLoopResult> {
  const target = new URL(c.url);
  const pool = new Pool(target.origin, { connections: 128, pipelining: 1 });
  const latencies: Record<string, number[]> = {};
  const failures: Record<string, number> = {};
  for (const m of c.mix) {
    latencies[m.label] = [];
    failures[m.label] = 0;
  }
  const total = Math.round(c.perSecond * c.seconds);
  const intervalMs = 1000 / c.perSecond;
  const ownLoop = watchOwnLoop();
  const started = performance.now();
  let maxLagMs = 0;
  const inFlight: Promise<void>[] = [];
  const all: OpenLoopResult['slowest'] = [];
  const send = async (i: number, scheduled: number) => {
    const m = c.mix[i % c.mix.length]!;
    const body = slashCommandBody({
      command: m.command,
      text: m.text.replaceAll('{i}', String(i)),
      response_url: `${slackUrl}/response/${c.tag ?? 'o'}${i}`,
      ...(m.channelId ? { channel_id: m.channelId } : {}),
      ...(c.teams?.length ? { team_id: c.teams[i % c.teams.length]! } : {}),
    });
    try {
      const response = await pool.request({
        method: 'POST',
        path: target.pathname,
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...signedHeaders(SIGNING_SECRET, body),
        },
        body,
      });
      await response.body.text();
      if (response.statusCode !== 200) failures[m.label]! += 1;
      else {
        const ms = performance.now() - scheduled;
        latencies[m.label]!.push(ms);
        all.push({ label: m.label, sentAtMs: scheduled - started, ms });
      }
    } catch {
      failures[m.label]! += 1;
    }
  };
  for (let i = 0; i < total; ) {
    const now = performance.now();
    while (i < total && started + i * intervalMs <= now) {
      const scheduled = started + i * intervalMs;
      maxLagMs = Math.max(maxLagMs, now - scheduled);
      inFlight.push(send(i, scheduled));
      i += 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await Promise.all(inFlight);
  const generatorLag = ownLoop();
  await pool.close();
  const slowest = all.sort((a, b) => b.ms - a.ms).slice(0, Math.ceil(all.length / 100));
  return {
    latencies,
    failures,
    maxLagMs,
    seconds: (performance.now() - started) / 1000,
    slowest,
    generatorLag,
  };
}
