import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { webApi } from '@slack/bolt';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { WebClients } from '../../src/slack/web-clients.js';

/** What a call reached Slack with: its method (or upload path), bearer token and body's team_id. */
interface Seen {
  path: string;
  token: string;
  teamId: string | undefined;
}

/** A Slack that records each call's token and answers the calls a file upload and a stream make. */
describe('WebClients: one Slack client for every token of the process', () => {
  let server: Server;
  let url = '';
  let base = '';
  const seen: Seen[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      req.on('end', () => {
        const path = (req.url ?? '').replace(/^\/api\//, '');
        const teamId = new URLSearchParams(body).get('team_id') ?? undefined;
        seen.push({ path, token: (req.headers.authorization ?? '').replace(/^Bearer /, ''), teamId });
        const answers: Record<string, object> = {
          'files.getUploadURLExternal': { upload_url: `${base}/upload/F1`, file_id: 'F1' },
          'files.completeUploadExternal': { files: [{ id: 'F1' }] },
          'chat.startStream': { ts: '1.000100', channel: 'C1' },
          'conversations.list': { channels: [], response_metadata: { next_cursor: '' } },
        };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ ok: true, ...answers[path] }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    url = `${base}/api/`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    seen.length = 0;
  });

  const options = () => ({ slackApiUrl: url, retryConfig: { retries: 0 } });

  it('builds one WebClient however many tokens call through it, each call with its own token', async () => {
    const clients = new WebClients();
    await clients.for('xoxb-alpha', options()).chat.postMessage({ channel: 'C1', text: 'hi' });
    await clients.for('xoxb-beta', options()).users.info({ user: 'U1' });
    // Bolt's per-request client of a workspace's own token, and of an org-wide install (names the workspace).
    await clients
      .boltPool(() => false)
      .getOrCreate('xoxb-gamma', { ...options(), teamId: 'T0G' })
      .auth.test();
    await clients
      .boltPool(() => true)
      .getOrCreate('xoxb-org', { ...options(), teamId: 'T0ONE' })
      .auth.test();
    // A call that names its own token goes out with it.
    await clients.for('xoxb-alpha', options()).auth.test({ token: 'xoxb-named' });
    expect(seen).toEqual([
      { path: 'chat.postMessage', token: 'xoxb-alpha', teamId: undefined },
      { path: 'users.info', token: 'xoxb-beta', teamId: undefined },
      { path: 'auth.test', token: 'xoxb-gamma', teamId: undefined },
      { path: 'auth.test', token: 'xoxb-org', teamId: 'T0ONE' },
      { path: 'auth.test', token: 'xoxb-named', teamId: undefined },
    ]);
    expect(clients.size).toBe(1);
    expect(clients.for('xoxb-beta', options()).token).toBe('xoxb-beta');
  });

  it('keeps the token on the calls the helpers make through the client (upload, stream, pages)', async () => {
    const client = new WebClients().for('xoxb-files', options());
    await client.files.uploadV2({ channel_id: 'C1', content: 'a,b\n1,2', filename: 'r.csv' });
    const streamer = client.chatStream({ channel: 'C1', thread_ts: '1.0', recipient_team_id: 'T1' });
    await streamer.append({ markdown_text: 'x'.repeat(300) });
    for await (const _page of client.paginate('conversations.list', {})) break;
    expect(seen.map((call) => call.path)).toEqual([
      'files.getUploadURLExternal',
      '/upload/F1',
      'files.completeUploadExternal',
      'chat.startStream',
      'conversations.list',
    ]);
    expect(seen.every((call) => call.token === 'xoxb-files')).toBe(true);
  });

  it('calls, for every Web API method of the client, the method its path names', async () => {
    const reached: string[] = [];
    /** A client whose methods record what they call instead of calling Slack. */
    class Recording extends webApi.WebClient {
      override async apiCall(method: string) {
        reached.push(method);
        return { ok: true };
      }
    }
    const real = new Recording();
    const view = new WebClients().for('xoxb-paths', options()) as unknown as Record<string, unknown>;
    const leaves: string[][] = [];
    const walk = (value: unknown, path: string[]) => {
      if (typeof value === 'function') leaves.push(path);
      else if (value && typeof value === 'object' && path.length < 6)
        for (const [key, inner] of Object.entries(value)) walk(inner, [...path, key]);
    };
    for (const key of Object.keys(real)) {
      const value = (real as unknown as Record<string, unknown>)[key];
      if (value && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
        walk(value, [key]);
    }
    const at = (root: unknown, path: string[]) =>
      path.reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], root);
    const methodsOf = (path: string[]) => {
      reached.length = 0;
      void (at(real, path) as (o: object) => unknown)({});
      return reached[0];
    };
    const named = leaves.filter((path) => path.join('.') !== 'files.uploadV2');
    expect(named.length).toBeGreaterThan(250);
    // The real client's method at each path calls the Web API method the path names...
    expect(named.filter((path) => methodsOf(path) !== path.join('.'))).toEqual([]);
    // ...and the view, at each path, reaches Slack's that same method with its token.
    for (const path of named) await (at(view, path) as (o: object) => Promise<unknown>)({});
    expect(seen.map((call) => call.path)).toEqual(named.map((path) => path.join('.')));
    expect(seen.every((call) => call.token === 'xoxb-paths')).toBe(true);
  });
});
