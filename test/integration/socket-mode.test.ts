import { createServer } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { type WebSocket, WebSocketServer } from 'ws';
import { waitFor } from '../support/http.js';
import { startTestApp, type TestApp } from '../support/test-app.js';

let app: TestApp | undefined;
let wss: WebSocketServer | undefined;
afterEach(async () => {
  await app?.stop();
  app = undefined;
  await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
  wss = undefined;
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A Socket Mode endpoint as Slack runs it: says hello, delivers envelopes, collects acknowledgements. */
async function fakeSocketMode(): Promise<{
  url: string;
  connected: Promise<WebSocket>;
  acks: Array<{ envelope_id: string; payload?: unknown }>;
}> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  wss = server;
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const acks: Array<{ envelope_id: string; payload?: unknown }> = [];
  const connected = new Promise<WebSocket>((resolve) => {
    server.on('connection', (socket) => {
      socket.on('message', (data) => acks.push(JSON.parse(String(data))));
      socket.send(
        JSON.stringify({
          type: 'hello',
          num_connections: 1,
          debug_info: { host: 'fake' },
          connection_info: { app_id: 'A0DOCSAGENT' },
        }),
      );
      resolve(socket);
    });
  });
  const { port } = server.address() as { port: number };
  return { url: `ws://127.0.0.1:${port}/link`, connected, acks };
}

describe('Socket Mode', () => {
  it('connects with the app token, serves /healthz on PORT, and runs /docs-agent to its card', async () => {
    const socket = await fakeSocketMode();
    const port = await freePort();
    const { FakeSlack } = await import('../support/fake-slack.js');
    const slack = await FakeSlack.start();
    slack.socketUrl = socket.url;
    app = await startTestApp({
      slack,
      env: {
        SLACK_APP_TOKEN: 'xapp-1-A0DOCSAGENT-0000-fakeapptoken',
        SLACK_SIGNING_SECRET: '',
        PORT: String(port),
      },
    });
    const ws = await socket.connected;

    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);

    ws.send(
      JSON.stringify({
        envelope_id: 'env-1',
        type: 'slash_commands',
        accepts_response_payload: true,
        payload: {
          command: '/docs-agent',
          text: 'Document the socket mode setup',
          user_id: 'U0ALICE',
          channel_id: 'C0DOCS',
          team_id: 'T0TEAM',
          response_url: slack.responseUrl('socket'),
          trigger_id: '1.2.3',
          api_app_id: 'A0DOCSAGENT',
        },
      }),
    );
    await waitFor(() => socket.acks.find((a) => a.envelope_id === 'env-1'), { what: 'envelope ack' });
    const job = await waitFor(() => (app!.docs.jobs.size === 1 ? app!.docs.onlyJob : undefined), {
      what: 'job',
    });
    expect(job.prompts).toEqual(['Document the socket mode setup']);
    await waitFor(
      () => slack.messages.find((m) => !m.thread_ts && JSON.stringify(m.blocks).includes(job.id)),
      { what: 'card' },
    );
    expect(slack.callsOf('apps.connections.open')[0]?.authorization).toBe(
      'Bearer xapp-1-A0DOCSAGENT-0000-fakeapptoken',
    );
    await app.stop();
    app = undefined;
    await slack.close();
  });
});
