import { request } from 'node:http';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Playground, startPlayground } from '../../demo/playground.js';
import { waitFor } from '../support/http.js';

/*
 * The playground (`npm run demo`) drives a real bot with a signing secret anyone can read: only its own page
 * may act. A page of another site open in the same browser (a cross-origin POST), or a name rebound to
 * 127.0.0.1 (a foreign Host), is refused and reaches neither the stand-in Slack nor the bot.
 */

let playground: Playground;
let port: number;

beforeAll(async () => {
  playground = await startPlayground({ port: 0, jobWorkMs: 200, seed: false });
  port = Number(new URL(playground.url).port);
}, 30_000);

afterAll(() => playground?.stop());

/** node:http, not fetch: the test sets Host and Origin as a browser (or a rebinding attacker) would send them. */
function send(
  method: 'GET' | 'POST',
  path: string,
  headers: Record<string, string>,
  body?: unknown,
): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, method, path, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => {
          text += chunk.toString();
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.once('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

const said = (text: string) => playground.slack.messages.some((m) => m.text === text);

describe('the playground answers only its own page', () => {
  it('refuses a cross-origin POST /act, which does nothing, and performs a same-origin one', async () => {
    const own = `localhost:${port}`;
    const refused = await send(
      'POST',
      '/act',
      { host: own, origin: 'https://evil.example' },
      { kind: 'type', text: 'sent from another site' },
    );
    expect(refused.status).toBe(403);
    expect(refused.text).toContain('I only answer the playground page itself');

    const done = await send(
      'POST',
      '/act',
      { host: own, origin: `http://${own}` },
      { kind: 'type', text: 'sent from the page' },
    );
    expect(done.status).toBe(204);
    // The same-origin action reached the channel (after the refused one was answered): the refused one did not.
    await waitFor(() => said('sent from the page'), { what: 'the same-origin message in the channel' });
    expect(said('sent from another site')).toBe(false);
  });

  it('refuses a foreign Host (DNS rebinding), with or without an Origin, on every path', async () => {
    const rebound = `attacker.example:${port}`;
    for (const [method, path] of [
      ['POST', '/act'],
      ['GET', '/'],
      ['GET', '/fragment'],
      ['GET', '/message.json?ts=1'],
    ] as const) {
      const answer = await send(
        method,
        path,
        { host: rebound },
        method === 'POST' ? { kind: 'home' } : undefined,
      );
      expect(answer.status, `${method} ${path}`).toBe(403);
    }
    const withOrigin = await send(
      'POST',
      '/act',
      { host: rebound, origin: `http://${rebound}` },
      { kind: 'type', text: 'sent through a rebound name' },
    );
    expect(withOrigin.status).toBe(403);
    expect((await send('GET', '/', { host: `127.0.0.1:${port}` })).status).toBe(200);
    expect(said('sent through a rebound name')).toBe(false);
  });
});

describe('the playground is reachable from this machine only', () => {
  // A port bound to every interface also holds 127.0.0.2; one bound to 127.0.0.1 leaves it free.
  const bindsOn127002 = (port: number) =>
    new Promise<boolean>((resolve) => {
      const probe = createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.2', () => probe.close(() => resolve(true)));
    });

  it('listens on 127.0.0.1 only, the page and the bot alike', async () => {
    expect(await bindsOn127002(port)).toBe(true);
    expect(await bindsOn127002(playground.botPort)).toBe(true);
  });
});
