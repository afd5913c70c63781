import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { freePort } from '../support/bot-process.js';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { startRedisServer } from '../support/redis-server.js';
import { BOT_TOKEN, startTestApp, type TestApp, testEnv } from '../support/test-app.js';

/* Issue 11: start-up and health that tell the truth, with the real process (`src/main.ts`). */

const ROOT = resolve(import.meta.dirname, '..', '..');
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

interface Spawned {
  logs: Array<Record<string, unknown>>;
  output(): string;
  exited: Promise<number | null>;
}

/** The bot as a child process in an empty directory (no `.env`), logging JSON lines. */
function spawnBot(env: Record<string, string>): Spawned {
  const cwd = mkdtempSync(join(tmpdir(), 'docs-agent-start-'));
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', join(ROOT, 'node_modules/tsx/dist/esm/index.mjs'), join(ROOT, 'src/main.ts')],
    { cwd, env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  const logs: Array<Record<string, unknown>> = [];
  let partial = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    partial += chunk.toString();
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      try {
        logs.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<number | null>((done) =>
    child.once('exit', (code) => {
      rmSync(cwd, { recursive: true, force: true });
      done(code);
    }),
  );
  cleanups.push(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
  });
  return { logs, output: () => output, exited };
}

async function fakes() {
  const slack = await FakeSlack.start();
  const docs = await FakeDocs.start();
  cleanups.push(
    () => slack.close(),
    () => docs.close(),
  );
  return { slack, docs };
}

async function get(url: string): Promise<{ status: number; body: string } | undefined> {
  try {
    const res = await fetch(url);
    return { status: res.status, body: await res.text() };
  } catch {
    return undefined;
  }
}

describe('start-up with Redis unreachable', () => {
  it('opens its port at once (/healthz 200, /readyz 503 naming Redis), logs one line per retry, starts when Redis answers', async () => {
    const { slack, docs } = await fakes();
    const port = await freePort();
    const redisPort = await freePort();
    const bot = spawnBot(
      testEnv(slack, docs, {
        PORT: String(port),
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        LOG_LEVEL: 'info',
      }),
    );
    const base = `http://127.0.0.1:${port}`;
    const health = await waitFor(async () => (await get(`${base}/healthz`))?.status === 200, {
      what: '/healthz while Redis is down',
      timeoutMs: 20_000,
    });
    expect(health).toBe(true);
    const ready = await get(`${base}/readyz`);
    expect(ready?.status).toBe(503);
    expect(JSON.parse(ready?.body ?? '{}')).toMatchObject({ checks: { state: 'unreachable' } });

    const retries = () => bot.logs.filter((l) => String(l.msg).includes(`Redis at 127.0.0.1:${redisPort}`));
    await waitFor(() => retries().length >= 3, { what: 'three retry lines', timeoutMs: 20_000 });
    // One line per attempt and nothing else at warn or above; the wait grows between attempts.
    const loud = bot.logs.filter((l) => Number(l.level) >= 40);
    expect(loud).toEqual(retries().slice(0, loud.length));
    const waits = retries().map((l) => Number(l.retryInMs));
    expect(waits[1]).toBeGreaterThan(waits[0]!);

    const redis = await startRedisServer({ port: redisPort });
    cleanups.push(() => redis.stop());
    await waitFor(() => bot.logs.some((l) => String(l.msg).includes('docs-agent is listening')), {
      what: 'start once Redis answers',
      timeoutMs: 30_000,
    });
    await waitFor(async () => (await get(`${base}/readyz`))?.status === 200, { what: 'ready' });
  }, 90_000);
});

describe('start-up checks the bot token (auth.test) in both modes', () => {
  it('HTTP mode: a rejected token exits non-zero with one clear message', async () => {
    const { slack, docs } = await fakes();
    slack.inject('auth.test', { kind: 'error', error: 'invalid_auth' }, 5);
    const bot = spawnBot(testEnv(slack, docs, { PORT: String(await freePort()), LOG_LEVEL: 'info' }));
    expect(await bot.exited).toBe(1);
    const rejected = bot.logs.filter((l) => String(l.msg).includes('Slack rejected SLACK_BOT_TOKEN'));
    expect(rejected).toHaveLength(1);
    expect(String(rejected[0]?.msg)).toContain('invalid_auth');
    expect(bot.output()).not.toContain(BOT_TOKEN);
  }, 30_000);

  it('Socket Mode: a revoked token fails start before connecting, instead of looking connected', async () => {
    const { slack } = await fakes();
    slack.inject('auth.test', { kind: 'error', error: 'token_revoked' }, 5);
    const started = startTestApp({
      slack,
      env: {
        SLACK_APP_TOKEN: 'xapp-1-A0DOCSAGENT-0000-fakeapptoken',
        SLACK_SIGNING_SECRET: '',
        PORT: String(await freePort()),
      },
    });
    await expect(started).rejects.toMatchObject({ code: 'slack_token_rejected' });
    expect(slack.callsOf('apps.connections.open')).toHaveLength(0);
  });

  it('Slack unreachable: starts not ready and says which host it retries auth.test against', async () => {
    const { slack, docs } = await fakes();
    const closedPort = await freePort();
    let app: TestApp | undefined;
    try {
      app = await startTestApp({
        slack,
        docs,
        env: { SLACK_API_URL: `http://127.0.0.1:${closedPort}/api/`, LOG_LEVEL: 'info' },
      });
      const ready = await get(`${app.url}/readyz`);
      expect(ready?.status).toBe(503);
      const line = app.logs.find((l) => l.includes('auth.test'));
      expect(line).toContain(`127.0.0.1:${closedPort}`);
      expect(line).toContain('retrying auth.test');
    } finally {
      await app?.stop();
    }
  });
});
