import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { postJsonText } from '../../src/platform/json-post.js';

let server: Server | undefined;
afterEach(() => server?.close());

async function serve(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  server = createServer(handler);
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/response/1`;
}

describe('postJsonText (response_url posts, issue 43)', () => {
  it('sends the JSON and resolves the status with the start of the body', async () => {
    const received: string[] = [];
    const url = await serve((req, res) => {
      let body = '';
      req.on('data', (chunk) => {
        body += chunk;
      });
      req.on('end', () => {
        received.push(`${req.headers['content-type']} ${body}`);
        res.writeHead(400).end(`invalid_blocks${'x'.repeat(5_000)}`);
      });
    });
    const answer = await postJsonText(url, '{"text":"hi"}', new AbortController().signal);
    expect(received).toEqual(['application/json; charset=utf-8 {"text":"hi"}']);
    expect(answer.status).toBe(400);
    expect(answer.body.startsWith('invalid_blocks')).toBe(true);
    expect(answer.body.length).toBeLessThanOrEqual(1_000);
  });

  it('keeps the status when the body breaks off after it (as fetch and response.text() did)', async () => {
    const url = await serve((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(200, { 'content-length': '100' });
        res.write('ok');
        setImmediate(() => res.destroy());
      });
    });
    const answer = await postJsonText(url, '{}', new AbortController().signal);
    expect(answer.status).toBe(200);
  });

  it('follows no redirect: a 3xx is the answer', async () => {
    const url = await serve((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end());
    });
    expect((await postJsonText(url, '{}', new AbortController().signal)).status).toBe(302);
  });

  it('rejects when no status came before the signal aborted', async () => {
    const url = await serve(() => undefined);
    const controller = new AbortController();
    setImmediate(() => controller.abort(new Error('timeout')));
    await expect(postJsonText(url, '{}', controller.signal)).rejects.toThrow();
  });
});
