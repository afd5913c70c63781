import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { FakeDocs, makeViewRows } from '../test/support/fake-docs.js';
import { FakeSlack } from '../test/support/fake-slack.js';
import { sendJson } from '../test/support/http.js';
import { signedHeaders, slashCommandBody } from '../test/support/slack-signing.js';
import { SIGNING_SECRET } from '../test/support/test-app.js';

/**
 * The fake Slack and fake docs platform, plus a load generator, in a child process of their own, so that
 * their work never competes with the event loop of the app being measured. It prints its URLs as one JSON
 * line on stdout, then answers JSON commands (one per line on stdin) with one JSON line each.
 */

export interface FakesUrls {
  slackUrl: string;
  slackApiUrl: string;
  docsUrl: string;
}

export interface LoadResult {
  latencies: number[];
  seconds: number;
  failures: number;
  /** CPU seconds the fakes-and-load process used meanwhile (user + system). */
  cpuSeconds: number;
}

type Command =
  | { cmd: 'configure'; latencyMs?: number; jobsPerHour?: number | null; viewRows?: number }
  | { cmd: 'seedJobs'; count: number }
  | { cmd: 'counts' }
  | { cmd: 'jobGetsPerSecond'; sinceMs: number }
  | { cmd: 'forget' }
  | { cmd: 'waitResponse'; path: string; timeoutMs: number }
  | { cmd: 'load'; url: string; requests: number; concurrency: number; commands: string[]; texts: string[] }
  | { cmd: 'openLoop'; url: string; perSecond: number; seconds: number; mix: OpenLoopRequest[] };

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
}

/** Client side: starts the child and sends it commands. */
export class FakesProcess {
  private readonly pending = new Map<number, (value: unknown) => void>();
  private nextId = 0;

  private constructor(
    private readonly child: ChildProcess,
    readonly urls: FakesUrls,
  ) {}

  static async start(): Promise<FakesProcess> {
    const file = fileURLToPath(import.meta.url);
    // With BENCH_PIN=1 the fakes and the load generator get CPU 1 and the process under test CPU 0
    // (taskset), so on a 2-core machine they stop competing for the same core.
    const pinned = process.env.BENCH_PIN === '1';
    const child = pinned
      ? spawn('taskset', ['-c', '1', process.execPath, '--import', 'tsx', file, '--child'], {
          stdio: ['pipe', 'pipe', 'inherit'],
        })
      : spawn(process.execPath, ['--import', 'tsx', file, '--child'], { stdio: ['pipe', 'pipe', 'inherit'] });
    const lines = createInterface({ input: child.stdout! });
    let proc: FakesProcess | undefined;
    const ready = new Promise<FakesProcess>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('fakes process did not start within 30 s')), 30_000);
      child.once('exit', (code) => reject(new Error(`fakes process exited with ${code}`)));
      lines.on('line', (line) => {
        const message = JSON.parse(line) as { id?: number; result?: unknown } & Partial<FakesUrls>;
        if (!proc) {
          clearTimeout(timer);
          proc = new FakesProcess(child, message as FakesUrls);
          resolve(proc);
          return;
        }
        const resolveReply = proc.pending.get(message.id!);
        proc.pending.delete(message.id!);
        resolveReply?.(message.result);
      });
    });
    return ready;
  }

  send<T>(command: Command): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve) => {
      this.pending.set(id, resolve as (value: unknown) => void);
      this.child.stdin!.write(`${JSON.stringify({ id, ...command })}\n`);
    });
  }

  responseUrl(id: string): string {
    return `${this.urls.slackUrl}/response/${id}`;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await gone;
    clearTimeout(timer);
  }
}

/**
 * Signed slash commands from `concurrency` workers, round-robin over commands and texts, each signed just
 * before it is sent (as Slack does), on `concurrency` keep-alive connections. undici's `Pool.request` rather
 * than `fetch`: fetch costs several times more CPU per request, enough to make the load generator, not the
 * app, the limit of a bare Bolt app's throughput.
 */
async function load(c: Extract<Command, { cmd: 'load' }>, slackUrl: string): Promise<LoadResult> {
  const latencies: number[] = [];
  let failures = 0;
  let next = 0;
  const target = new URL(c.url);
  const pool = new Pool(target.origin, { connections: c.concurrency, pipelining: 1 });
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: c.concurrency }, async () => {
      while (next < c.requests) {
        const i = next++;
        const body = slashCommandBody({
          command: c.commands[i % c.commands.length]!,
          text: c.texts[i % c.texts.length]!,
          response_url: `${slackUrl}/response/r${i}`,
        });
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
          if (response.statusCode !== 200) failures += 1;
          latencies.push(performance.now() - sent);
        } catch {
          failures += 1;
        }
      }
    }),
  );
  await pool.close();
  const used = process.cpuUsage(cpu);
  return {
    latencies,
    seconds: (performance.now() - started) / 1000,
    failures,
    cpuSeconds: (used.user + used.system) / 1e6,
  };
}

/**
 * Open loop: requests leave at a fixed rate whatever the app's answers do (as Slack's traffic does), round-
 * robin over `mix`, each signed as it leaves, on up to 128 keep-alive connections. Latency counts from the
 * scheduled send time, so a stalled app cannot hide its stall by slowing the generator down.
 */
async function openLoop(c: Extract<Command, { cmd: 'openLoop' }>, slackUrl: string): Promise<OpenLoopResult> {
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
  const started = performance.now();
  let maxLagMs = 0;
  const inFlight: Promise<void>[] = [];
  const send = async (i: number, scheduled: number) => {
    const m = c.mix[i % c.mix.length]!;
    const body = slashCommandBody({
      command: m.command,
      text: m.text.replaceAll('{i}', String(i)),
      response_url: `${slackUrl}/response/o${i}`,
      ...(m.channelId ? { channel_id: m.channelId } : {}),
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
      else latencies[m.label]!.push(performance.now() - scheduled);
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
  await pool.close();
  return { latencies, failures, maxLagMs, seconds: (performance.now() - started) / 1000 };
}

/**
 * Starts a fake like its own `start()` does, but keeps idle connections open for 60 s: test/support's servers
 * answer `Keep-Alive: timeout=1`, which undici (threshold 2 s) takes as "do not reuse", so every request of
 * the app would open and tear down a TCP connection (and build an error with a stack trace) — a cost no real
 * Slack or docs platform imposes, and one the bare Bolt app never pays.
 */
async function startKeepingAlive<T extends FakeSlack | FakeDocs>(fake: T): Promise<T> {
  const internals = fake as unknown as {
    handle(req: IncomingMessage, res: ServerResponse): Promise<void>;
    close_: () => Promise<void>;
  };
  const server = createServer((req, res) => {
    internals.handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: String(error) });
      else res.destroy();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  internals.close_ = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}

async function child(): Promise<void> {
  const slack = await startKeepingAlive(new FakeSlack());
  const docs = await startKeepingAlive(new FakeDocs());
  const jobGets: number[] = [];
  // Count job GETs with their time, and keep the recorded request lists from growing without bound.
  const original = docs.requests.push.bind(docs.requests);
  docs.requests.push = (...items) => {
    for (const r of items) if (r.method === 'GET' && r.path.includes('/job/')) jobGets.push(Date.now());
    return original(...items);
  };
  // When each response_url POST arrived (Date.now()), by path: wall times of reports answered that way.
  const responseTimes = new Map<string, number>();
  const pushResponse = slack.responses.push.bind(slack.responses);
  slack.responses.push = (...items) => {
    for (const r of items) responseTimes.set(r.path, Date.now());
    return pushResponse(...items);
  };
  const totals = { docs: new Map<string, number>(), slack: new Map<string, number>() };
  const forget = () => {
    for (const r of docs.requests) {
      const route = `${r.method} ${r.path.replace(/\/job\/[^/]+/, '/job/:id').replace(/proj_[a-z_]+/, ':project')}`;
      totals.docs.set(route, (totals.docs.get(route) ?? 0) + 1);
    }
    for (const c of slack.calls) totals.slack.set(c.method, (totals.slack.get(c.method) ?? 0) + 1);
    docs.requests.length = 0;
    slack.calls.length = 0;
    slack.responses.length = 0;
    // Keep the last messages: updates of recent cards must still find them.
    if (slack.messages.length > 5_000) slack.messages.splice(0, slack.messages.length - 5_000);
  };
  const sweeper = setInterval(forget, 1_000);
  sweeper.unref();

  const reply = (id: number, result: unknown) => process.stdout.write(`${JSON.stringify({ id, result })}\n`);
  process.stdout.write(
    `${JSON.stringify({ slackUrl: slack.url, slackApiUrl: slack.apiUrl, docsUrl: docs.url } satisfies FakesUrls)}\n`,
  );
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const { id, ...command } = JSON.parse(line) as { id: number } & Command;
    void (async () => {
      switch (command.cmd) {
        case 'configure':
          if (command.latencyMs !== undefined) docs.latencyMs = command.latencyMs;
          if (command.jobsPerHour !== undefined)
            docs.jobsPerHour = command.jobsPerHour ?? Number.POSITIVE_INFINITY;
          if (command.viewRows !== undefined) docs.defaultViews = makeViewRows(command.viewRows);
          return reply(id, true);
        case 'seedJobs': {
          const ids: string[] = [];
          for (let i = 0; i < command.count; i++) {
            const jobId = `job_seed_${String(i).padStart(5, '0')}`;
            docs.addJob(jobId, 'seeded');
            ids.push(jobId);
          }
          return reply(id, ids);
        }
        case 'counts':
          forget();
          return reply(id, {
            docs: Object.fromEntries(totals.docs),
            slack: Object.fromEntries(totals.slack),
          });
        case 'jobGetsPerSecond': {
          // Request counts in each whole second since `sinceMs` (the caller's clock is the same machine's).
          const buckets = new Map<number, number>();
          for (const at of jobGets) {
            if (at < command.sinceMs) continue;
            const second = Math.floor((at - command.sinceMs) / 1000);
            buckets.set(second, (buckets.get(second) ?? 0) + 1);
          }
          const seconds = Math.max(0, ...buckets.keys()) + 1;
          return reply(
            id,
            Array.from({ length: seconds }, (_, s) => buckets.get(s) ?? 0),
          );
        }
        case 'forget':
          forget();
          totals.docs.clear();
          totals.slack.clear();
          jobGets.length = 0;
          return reply(id, true);
        case 'load':
          return reply(id, await load(command, slack.url));
        case 'openLoop':
          return reply(id, await openLoop(command, slack.url));
        case 'waitResponse': {
          const deadline = Date.now() + command.timeoutMs;
          while (!responseTimes.has(command.path) && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 5));
          }
          return reply(id, responseTimes.get(command.path) ?? null);
        }
      }
    })();
  });
  lines.on('close', () => {
    void Promise.all([slack.close(), docs.close()]).then(() => process.exit(0));
  });
}

if (process.argv.includes('--child')) await child();
