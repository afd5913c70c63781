import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  createWriteStream,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../test/support/bot-process.js';

/**
 * One replica of the deployment benchmark (bench/deployment.ts): `dist/main.js` in a process of its own, as
 * production runs it (the Dockerfile's plain Node, its heap sized as in a 512 MB container, built first when
 * `src/` is newer; under tsx every named closure keeps a `name`, about 40 KB more per resident tenant:
 * BENCHMARKS §14), seen only from outside: the time from spawn to `/readyz` 200, its resident memory and CPU
 * (/proc), its TCP connections to Redis (/proc's socket table), and its HTTP ports. Nothing here knows how the bot is built inside, so it measures whatever main is.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/**
 * Each replica's V8 heap as in a 512 MB container, where production's replicas are meant to fit: Node sizes its
 * heap from the container's memory limit, 256 MB of old space and 1 MB semi-spaces (a heap limit of 259 MB,
 * read with Node 22 and 24 inside a 512 MB memory cgroup). This machine sets no such limit, and V8 would size
 * the heap for the whole host (4.3 GB) and collect far later. BENCH_REPLICA_HEAP=host: V8's default here.
 */
const CONTAINER_HEAP =
  process.env.BENCH_REPLICA_HEAP === 'host' ? undefined : '--max-old-space-size=256 --max-semi-space-size=1';
const MAIN = join(ROOT, 'dist/main.js');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface Replica {
  name: string;
  pid: number;
  /** http://127.0.0.1:<port> (Slack's requests, installs, /readyz). */
  base: string;
  events: string;
  /** http://127.0.0.1:<metrics port>/metrics */
  metricsUrl: string;
  /** ms from spawn to the first /readyz 200; undefined when it was not ready within the time-out. */
  readyMs: number | undefined;
  /** The last output lines (stdout and stderr), for a failure's message. */
  tail(): string;
  /** Still running? */
  alive(): boolean;
  stop(): Promise<void>;
}

/** Spawns a replica and waits for /readyz 200 (or `readyTimeoutMs`, then `readyMs` is undefined). */
export async function spawnReplica(
  name: string,
  env: Record<string, string>,
  readyTimeoutMs: number,
): Promise<Replica> {
  const [port, metricsPort] = [await freePort(), await freePort()];
  const cwd = mkdtempSync(join(tmpdir(), `docs-agent-${name}-`));
  const started = performance.now();
  buildIfStale();
  const child: ChildProcess = spawn(process.execPath, [MAIN], {
    cwd,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? cwd,
      ...(CONTAINER_HEAP ? { NODE_OPTIONS: CONTAINER_HEAP } : {}),
      ...env,
      PORT: String(port),
      METRICS_PORT: String(metricsPort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let tail = '';
  const keep = (chunk: Buffer) => {
    tail = (tail + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  // BENCH_REPLICA_LOGS=<dir>: each replica's whole output is kept there too (to read what a run did).
  const logs = process.env.BENCH_REPLICA_LOGS;
  if (logs) {
    const file = createWriteStream(join(logs, `${name}-${child.pid}.log`));
    child.stdout?.pipe(file);
    child.stderr?.pipe(file);
  }
  const exited = new Promise<void>((done) =>
    child.once('exit', () => {
      rmSync(cwd, { recursive: true, force: true });
      done();
    }),
  );
  const base = `http://127.0.0.1:${port}`;
  const alive = () => child.exitCode === null && child.signalCode === null;
  let readyMs: number | undefined;
  while (alive() && performance.now() - started < readyTimeoutMs) {
    const status = await fetch(`${base}/readyz`).then(
      (r) => r.arrayBuffer().then(() => r.status),
      () => 0,
    );
    if (status === 200) {
      readyMs = performance.now() - started;
      break;
    }
    await sleep(20);
  }
  if (!alive()) throw new Error(`replica ${name} exited before it was ready:\n${tail}`);
  return {
    name,
    pid: child.pid ?? -1,
    base,
    events: `${base}/slack/events`,
    metricsUrl: `http://127.0.0.1:${metricsPort}/metrics`,
    readyMs,
    tail: () => tail,
    alive,
    async stop() {
      if (!alive()) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Resident memory (MB) of a process, from /proc/<pid>/status. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN) / 1024;
}

/** CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * The local ports of a process's TCP connections to `remotePort` on loopback: its sockets' inodes
 * (/proc/<pid>/fd) looked up in the kernel's TCP tables. Redis's CLIENT LIST shows the same ports as `addr`.
 */
export function connectionPorts(pid: number, remotePort: number): Set<number> {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      if (target.startsWith('socket:[')) inodes.add(target.slice(8, -1));
    } catch {
      // Closed between the listing and the look.
    }
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let lines: string[];
    try {
      lines = readFileSync(table, 'utf8').split('\n').slice(1);
    } catch {
      continue;
    }
    for (const line of lines) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !inodes.has(f[9]!)) continue;
      const local = Number.parseInt(f[1]!.split(':')[1]!, 16);
      const remote = Number.parseInt(f[2]!.split(':')[1]!, 16);
      // State 01: established.
      if (remote === remotePort && f[3] === '01') ports.add(local);
    }
  }
  return ports;
}

/** `npm run build` when `dist/main.js` is missing or older than any file under `src/` (once per bench run). */
let built = false;
function buildIfStale(): void {
  if (built) return;
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...readdirSync(dir, { withFileTypes: true }).map((entry) => {
        const path = join(dir, entry.name);
        return entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
      }),
    );
  let builtAt = 0;
  try {
    builtAt = statSync(MAIN).mtimeMs;
  } catch {}
  if (builtAt <= newest(join(ROOT, 'src')))
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'ignore' });
  built = true;
}
