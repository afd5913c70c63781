import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface RedisServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether a Redis on this loopback port answers PING (a raw socket: no client library's retries). */
export function answersPing(port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.setTimeout(timeoutMs);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}

/**
 * A throw-away `redis-server` on a free loopback port, no persistence, data dir in a temp folder.
 * Fails (never skips) when redis-server is not installed: `.ci/run` installs it.
 * Pass the `port` (and `dataDir`) of a stopped one to bring that Redis back.
 */
export async function startRedisServer(
  options: { port?: number; dataDir?: string; appendfsync?: 'always' | 'everysec' } = {},
): Promise<RedisServer> {
  // With `dataDir`, every write is appended and fsynced there (and the directory kept on stop), so a Redis
  // started again on that directory comes back with its data, as a production Redis with AOF would.
  // `everysec` (the documented production setting) fsyncs once a second: a host crash loses up to that.
  const dir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'docs-agent-redis-'));
  const persistence = options.dataDir
    ? ['--appendonly', 'yes', '--appendfsync', options.appendfsync ?? 'always']
    : ['--appendonly', 'no'];
  // A given port restarts "the same" Redis for clients that reconnect to it (tests of Redis outages).
  const port = options.port ?? (await freePort());
  const child: ChildProcess = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--dir', dir],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<Error>((resolve) => {
    child.once('error', (error) =>
      resolve(
        new Error(
          `cannot start redis-server (${error.message}); install it (apt-get install redis-server) — the Redis suites must not skip`,
        ),
      ),
    );
    child.once('exit', (code) => resolve(new Error(`redis-server exited with ${code}:\n${output}`)));
  });
  let failure: Error | undefined;
  void exited.then((error) => {
    failure = error;
  });

  const deadline = Date.now() + 10_000;
  while (!(await answersPing(port))) {
    if (failure) throw failure;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`redis-server did not answer on port ${port} within 10 s:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await gone;
      }
      if (!options.dataDir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
