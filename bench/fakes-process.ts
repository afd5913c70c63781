import { type ChildProcess, spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { FakeDocs, makeViewRows } from '../test/support/fake-docs.js';
import { type HealthVolumes, makeHealthData } from '../test/support/fake-docs-health.js';
import { FakeSlack } from '../test/support/fake-slack.js';
import { sendJson } from '../test/support/http.js';
import { attachFakeGitHub } from './fake-github-child.js';
import { type LoadCommand, load, type OpenLoopCommand, openLoop } from './load-generators.js';
import { type TenantCommand, tenantCommands } from './tenant-fakes.js';

export type { GitHubReport, PrTiming } from './fake-github-child.js';
export type { GeneratorLag, LoadResult, OpenLoopRequest, OpenLoopResult } from './load-generators.js';

/**
 * The fake Slack and fake docs platform, plus a load generator, in a child process of their own, so that
 * their work never competes with the event loop of the app being measured. It prints its URLs as one JSON
 * line on stdout, then answers JSON commands (one per line on stdin) with one JSON line each.
 */

export interface FakesUrls {
  slackUrl: string;
  slackApiUrl: string;
  docsUrl: string;
  /** The fake GitHub, whose PRs open as the fake platform completes jobs (`completeAfter`). */
  githubUrl?: string;
}

type Command =
  | {
      cmd: 'configure';
      latencyMs?: number;
      jobsPerHour?: number | null;
      viewRows?: number;
      /** Rows behind the four `/docs-health` endpoints, for every range. */
      health?: HealthVolumes;
    }
  | { cmd: 'seedJobs'; count: number }
  | { cmd: 'counts' }
  | { cmd: 'jobGetsPerSecond'; sinceMs: number }
  | { cmd: 'forget' }
  /** Jobs the platform holds, in creation order. */
  | { cmd: 'jobIds' }
  /** Completes each job after its delay with a PR opened on the fake GitHub at that moment. */
  | { cmd: 'completeAfter'; jobs: Array<{ jobId: string; afterMs: number }>; reportBranch: boolean }
  | { cmd: 'githubReport' }
  | { cmd: 'waitResponse'; path: string; timeoutMs: number }
  /** Until `count` distinct response_url paths starting with `prefix` have been answered; resolves how many were. */
  | { cmd: 'waitResponses'; prefix: string; count: number; timeoutMs: number }
  | ({ cmd: 'load' } & LoadCommand)
  | ({ cmd: 'openLoop' } & OpenLoopCommand)
  | TenantCommand;

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
  const github = await attachFakeGitHub(docs, slack);
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
  const tenants = tenantCommands(slack, docs);
  const sweeper = setInterval(forget, 1_000);
  sweeper.unref();

  const reply = (id: number, result: unknown) => process.stdout.write(`${JSON.stringify({ id, result })}\n`);
  process.stdout.write(
    `${JSON.stringify({ slackUrl: slack.url, slackApiUrl: slack.apiUrl, docsUrl: docs.url, githubUrl: github.url } satisfies FakesUrls)}\n`,
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
          if (command.health !== undefined) docs.health.defaults = makeHealthData(command.health);
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
        case 'jobIds':
          return reply(id, [...docs.jobs.keys()]);
        case 'completeAfter':
          github.completeAfter(command.jobs, command.reportBranch);
          return reply(id, true);
        case 'githubReport':
          return reply(id, github.report());
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
        case 'waitResponses': {
          const deadline = Date.now() + command.timeoutMs;
          const answered = () => [...responseTimes.keys()].filter((p) => p.startsWith(command.prefix)).length;
          while (answered() < command.count && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 20));
          }
          return reply(id, answered());
        }
        default:
          return reply(id, await tenants(command));
      }
    })();
  });
  lines.on('close', () => {
    void Promise.all([slack.close(), docs.close(), github.close()]).then(() => process.exit(0));
  });
}

if (process.argv.includes('--child')) await child();
