import { spawn } from 'node:child_process';
import { createConnection } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeDocs } from '../support/fake-docs.js';
import { FakeSlack } from '../support/fake-slack.js';
import { waitFor } from '../support/http.js';
import { type RedisServer, startRedisServer } from '../support/redis-server.js';
import { BOT_TOKEN, startTestApp, type TestApp, testEnv } from '../support/test-app.js';

let app: TestApp | undefined;
let redis: RedisServer | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
  await redis?.stop();
  redis = undefined;
});

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(url);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('/healthz and /readyz', () => {
  it('are 200 with in-memory state once Slack auth succeeded', async () => {
    app = await startTestApp();
    expect((await getJson(`${app.url}/healthz`)).status).toBe(200);
    const ready = await getJson(`${app.url}/readyz`);
    expect(ready).toEqual({
      status: 200,
      body: { status: 'ready', checks: { state: 'in-memory', slack: 'ok', shuttingDown: false } },
    });
  });

  it('say not ready while Slack cannot check the token at start', async () => {
    const slack = await FakeSlack.start();
    // A transient failure (a rejected token ends the process: startup-health.test.ts).
    slack.inject('auth.test', { kind: 'status', status: 503 }, 5);
    try {
      app = await startTestApp({ slack });
      const ready = await getJson(`${app.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({ status: 'not_ready', checks: { slack: 'disconnected' } });
      // Liveness is unaffected: restarting would not fix a token.
      expect((await getJson(`${app.url}/healthz`)).status).toBe(200);
    } finally {
      await app?.stop();
      app = undefined;
      await slack.close();
    }
  });

  it('follow Redis: not ready while it does not answer, ready again when it does, without a restart', async () => {
    redis = await startRedisServer();
    app = await startTestApp({ env: { REDIS_URL: redis.url } });
    const t = app;
    expect(await getJson(`${t.url}/readyz`)).toMatchObject({
      status: 200,
      body: { checks: { state: 'ok' } },
    });

    // Redis stops answering (every client paused) while its connections stay open.
    await redisCommand(redis.port, 'CLIENT PAUSE 3000 ALL');
    const down = await getJson(`${t.url}/readyz`);
    expect(down).toMatchObject({
      status: 503,
      body: { status: 'not_ready', checks: { state: 'unreachable' } },
    });
    expect((await getJson(`${t.url}/healthz`)).status).toBe(200);

    await waitFor(async () => (await getJson(`${t.url}/readyz`)).status === 200, {
      what: 'ready again',
      timeoutMs: 10_000,
    });
  }, 20_000);
});

/** Sends one inline command on a fresh connection; resolves Redis's first reply line. */
function redisCommand(port: number, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().trim());
    });
    socket.once('error', reject);
  });
}

describe('/metrics', () => {
  it('exposes jobs, polls, docs-API calls, Slack errors, quotas and process metrics in Prometheus format', async () => {
    app = await startTestApp();
    const t = app;
    await t.command({ text: 'Document the 429 response' });
    const job = await waitFor(() => (t.docs.jobs.size === 1 ? t.docs.onlyJob : undefined), { what: 'job' });
    await waitFor(() => t.slack.callsOf('chat.update').length > 0, { what: 'card tracked' });
    const watching = await (await fetch(`${t.metricsUrl}/metrics`)).text();
    expect(watching).toMatch(/^docs_agent_watched_jobs\{status="\w+"\} 1$/m);

    await waitFor(() => t.docs.requestsTo('GET', /\/job\//).length > 0, {
      what: 'a poll of the running job',
    });
    t.docs.complete(job.id, 'https://github.com/acme/docs/pull/42');
    await waitFor(() => t.slack.messages.some((m) => m.thread_ts), { what: 'terminal reply' });
    // Not a member: the first post fails with not_in_channel (counted), the bot joins and posts again.
    t.slack.notMemberOf.add('C0ELSEWHERE');
    await t.command({ text: 'Another change', channel_id: 'C0ELSEWHERE' });
    await waitFor(() => t.docs.jobs.size === 2, { what: 'second job' });

    const response = await fetch(`${t.metricsUrl}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/plain');
    const text = await response.text();
    const value = (series: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${series} `));
      return line === undefined ? undefined : Number(line.slice(series.length + 1));
    };
    expect(value('docs_agent_job_starts_total{outcome="started"}')).toBe(2);
    expect(value('docs_agent_jobs_finished_total{status="completed"}')).toBe(1);
    expect(value('docs_agent_polls_total{outcome="terminal"}')).toBe(1);
    expect(value('docs_agent_polls_total{outcome="running"}')).toBeGreaterThanOrEqual(1);
    expect(value('docs_agent_docs_api_requests_total{method="POST",code="ok"}')).toBe(2);
    expect(value('docs_agent_docs_api_requests_total{method="GET",code="ok"}')).toBeGreaterThanOrEqual(2);
    expect(value('docs_agent_slack_api_errors_total{method="chat.postMessage",code="not_in_channel"}')).toBe(
      1,
    );
    expect(value('docs_agent_quota_remaining{budget="agent_jobs"}')).toBe(98);
    expect(value('docs_agent_quota_remaining{budget="analytics"}')).toBeGreaterThan(0);
    expect(text).toMatch(/^docs_agent_watched_jobs\{status="\w+"\} 1$/m);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    // Not on the port Slack reaches.
    expect((await fetch(`${t.url}/metrics`)).status).toBe(404);
  });

  it('counts docs-API errors by code', async () => {
    app = await startTestApp();
    const t = app;
    t.docs.inject({ method: 'POST' }, { kind: 'status', status: 401 });
    await t.command({ text: 'Document the 429 response' });
    await waitFor(
      async () => (await (await fetch(`${t.metricsUrl}/metrics`)).text()).includes('code="unauthorized"'),
      {
        what: 'error counted',
      },
    );
    const text = await (await fetch(`${t.metricsUrl}/metrics`)).text();
    expect(text).toMatch(/^docs_agent_docs_api_requests_total\{method="POST",code="unauthorized"\} 1$/m);
    expect(text).toMatch(/^docs_agent_job_starts_total\{outcome="create_failed"\} 1$/m);
  });
});

describe('shutdown', () => {
  it('stops taking requests but finishes acknowledged work first', async () => {
    app = await startTestApp();
    const t = app;
    // The job creation is slow: stop() is called while the command's work is still running.
    t.docs.inject({ method: 'POST' }, { kind: 'delay', ms: 400 });
    const ack = await t.command({ text: 'Document the 429 response' });
    expect(ack.status).toBe(200);
    await waitFor(() => t.slack.callsOf('chat.postMessage').length === 1, { what: 'card posted' });
    await t.agent.stop();
    // The job was created and its card updated before the app let go of its connections.
    expect(t.docs.jobs.size).toBe(1);
    expect(JSON.stringify(t.slack.callsOf('chat.update').at(-1)?.args)).toContain(t.docs.onlyJob.id);
    expect(t.logs.join('')).not.toContain('Slack work still running');
    // No new requests once stopped.
    await expect(fetch(`${t.url}/healthz`)).rejects.toThrow();
  });

  it('SIGTERM: the real process stops within its deadline and exits 0', async () => {
    const slack = await FakeSlack.start();
    const docs = await FakeDocs.start();
    try {
      const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
        env: { PATH: process.env.PATH ?? '', ...testEnv(slack, docs, { LOG_LEVEL: 'info' }) },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      child.stderr.on('data', (chunk: Buffer) => {
        output += chunk.toString();
      });
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      await waitFor(() => output.includes('is listening for Slack'), { what: 'started', timeoutMs: 20_000 });
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
      const lines = output
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { msg: string; signal?: string });
      expect(lines.map((l) => l.msg)).toEqual(
        expect.arrayContaining([
          'shutting down: no new requests; finishing work in flight (at most 10 s)',
          'docs-agent stopped',
          'shutdown complete',
        ]),
      );
      expect(output).not.toContain('shutdown took longer than 10 s');
      expect(output).not.toContain(BOT_TOKEN);
    } finally {
      await slack.close();
      await docs.close();
    }
  }, 30_000);
});
