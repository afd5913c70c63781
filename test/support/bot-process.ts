import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeDocs } from './fake-docs.js';
import type { FakeSlack } from './fake-slack.js';
import { waitFor } from './http.js';
import { oauthEnv } from './oauth-app.js';
import { postSigned, type SlashCommandFields, slashCommandBody } from './slack-signing.js';
import { SIGNING_SECRET, testEnv } from './test-app.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const MAIN = join(ROOT, 'src/main.ts');
/** The build's entry, run as the image runs it (`node dist/main.js`): see artifact-dist.ts. */
export const BUILT_MAIN = join(ROOT, 'dist/main.js');
/** tsx's loader by absolute path: the child runs in an empty directory (so no `.env` is loaded). */
const TSX = join(ROOT, 'node_modules/tsx/dist/esm/index.mjs');
/** The start-up line of either mode. */
const LISTENING = /^docs-agent (\(OAuth mode\) )?is listening/;

/** A free loopback port (the bot must listen on a port the test knows: `PORT=0` is not visible outside). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolvePort(port));
    });
  });
}

export interface BotProcess {
  name: string;
  port: number;
  url: string;
  /** Every JSON log line the process wrote so far (stdout), parsed; non-JSON lines as `{ msg }`. */
  logs: Array<Record<string, unknown>>;
  /** Raw stderr. */
  stderr(): string;
  /** Raw stdout, byte for byte as the process wrote it (secret scans read this, not the parsed `logs`). */
  stdout(): string;
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  command(
    fields: Partial<SlashCommandFields> & { text: string },
  ): Promise<{ status: number; body: string; ms: number }>;
  event(
    payload: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: string; ms: number }>;
  /** A signed interactivity payload (buttons, modals), form-encoded as Slack sends it. */
  interaction(payload: unknown): Promise<{ status: number; body: string; ms: number }>;
  /** SIGKILL: no shutdown, no cleanup, like a crashed container. */
  kill(): Promise<void>;
  /** SIGTERM and wait for the exit (SIGKILL after `graceMs`). */
  stop(graceMs?: number): Promise<void>;
}

export interface BotProcessOptions {
  name?: string;
  slack: FakeSlack;
  docs: FakeDocs;
  redisUrl?: string;
  env?: Record<string, string>;
  /**
   * OAuth mode ("Add to Slack"): no bot token and no docs project in the environment (both come per tenant),
   * the client id and secret, state secret and encryption key of test/support/oauth-app.ts instead.
   */
  oauth?: boolean;
  /** How long to wait for the startup log line. */
  startTimeoutMs?: number;
  /** Run the built artifact, `node dist/main.js` (as the image does), instead of `src/main.ts` through tsx. */
  artifact?: boolean;
}

/**
 * The real bot as a child process (`node --import tsx src/main.ts`, as `npm run dev` runs it, no build step;
 * with `artifact`, `node dist/main.js` as the image runs it),
 * in HTTP mode on a free port, talking to the in-test fake Slack (`SLACK_API_URL`) and fake docs platform,
 * and to Redis when `redisUrl` is given. Resolves once the bot logged that it listens.
 */
export async function startBotProcess(options: BotProcessOptions): Promise<BotProcess> {
  // A free port is free when asked, not when the bot binds it: another process of the suite (a redis-server,
  // another bot) may take it in between. Then the bot exits at once saying so, and another port is tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(options, options.env?.PORT ? Number(options.env.PORT) : await freePort());
    } catch (error) {
      const taken = error instanceof Error && error.message.includes('EADDRINUSE');
      if (!taken || options.env?.PORT || attempt >= 3) throw error;
    }
  }
}

async function startOnce(options: BotProcessOptions, port: number): Promise<BotProcess> {
  const name = options.name ?? 'bot';
  const cwd = mkdtempSync(join(tmpdir(), 'docs-agent-bot-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? cwd,
    NODE_ENV: 'test',
    ...(options.oauth ? oauthEnv : testEnv)(options.slack, options.docs, {
      PORT: String(port),
      POLL_INTERVAL_MS: '50',
      ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
      ...options.env,
    }),
  };
  const args = options.artifact ? [BUILT_MAIN] : ['--import', TSX, MAIN];
  const child: ChildProcess = spawn(process.execPath, args, {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: Array<Record<string, unknown>> = [];
  let stderr = '';
  let stdout = '';
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => {
    child.once('exit', (code, signal) => {
      rmSync(cwd, { recursive: true, force: true });
      done({ code, signal });
    });
  });
  let exitedEarly: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void exited.then((exit) => {
    exitedEarly = exit;
  });

  const url = `http://127.0.0.1:${port}`;
  const events = `${url}/slack/events`;
  try {
    await waitFor(
      () => {
        if (exitedEarly) {
          throw new Error(
            `${name} exited (${exitedEarly.code ?? exitedEarly.signal}) before listening:\n${stderr}\n${logs.map((l) => JSON.stringify(l)).join('\n')}`,
          );
        }
        return logs.some((l) => typeof l.msg === 'string' && LISTENING.test(l.msg));
      },
      { what: `${name} to listen on ${port}`, timeoutMs: options.startTimeoutMs ?? 20_000 },
    );
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }

  const signal = async (sig: NodeJS.Signals, graceMs: number) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill(sig);
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  };

  return {
    name,
    port,
    url,
    logs,
    stderr: () => stderr,
    stdout: () => stdout,
    pid: child.pid ?? -1,
    exited,
    command: (fields) =>
      postSigned(
        events,
        slashCommandBody({ response_url: options.slack.responseUrl(`${name}-cmd`), ...fields }),
        SIGNING_SECRET,
      ),
    event: (payload, headers = {}) =>
      postSigned(events, JSON.stringify(payload), SIGNING_SECRET, {
        contentType: 'application/json',
        headers,
      }),
    interaction: (payload) =>
      postSigned(
        events,
        new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
        SIGNING_SECRET,
      ),
    kill: () => signal('SIGKILL', 0),
    stop: (graceMs = 12_000) => signal('SIGTERM', graceMs),
  };
}
