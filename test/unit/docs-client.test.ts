import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DocsApiError } from '../../src/common/docs-api-error.js';
import { createLogger } from '../../src/common/logger.js';
import { DocsApiClient } from '../../src/platform/docs-client.js';
import { describeDocsFailure } from '../../src/slack/messages/failures.js';
import { listen, readBody } from '../support/http.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const KEY = 'svc_unit_test_key_abcdefghijklmnopqrstuvw';
let handler: Handler;
let hits: Array<{ method: string; url: string; auth: string | undefined; body: string }> = [];
let server: Awaited<ReturnType<typeof listen>>;
const logs: string[] = [];

beforeAll(async () => {
  server = await listen(async (req, res) => {
    const body = await readBody(req);
    hits.push({ method: req.method ?? '', url: req.url ?? '', auth: req.headers.authorization, body });
    handler(req, res, body);
  });
});
afterAll(() => server.close());
afterEach(() => {
  hits = [];
});

function client(timeoutMs = 1000) {
  return new DocsApiClient({
    baseUrl: `${server.url}/base/`,
    apiKey: KEY,
    projectId: 'proj 1',
    timeoutMs,
    retryBaseMs: 1,
    logger: createLogger({
      level: 'debug',
      secrets: [KEY],
      destination: { write: (l: string) => logs.push(l) },
    }),
  });
}

function reply(status: number, body: unknown, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

async function codeOf(promise: Promise<unknown>): Promise<DocsApiError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(DocsApiError);
    return error as DocsApiError;
  }
  throw new Error('expected a DocsApiError');
}

const job = {
  id: 'job_1',
  status: 'active',
  source: { repository: 'https://github.com/acme/docs', ref: null },
  model: 'm',
  prLink: null,
  createdAt: '2026-11-21T10:00:00Z',
  archivedAt: null,
};

describe('DocsApiClient', () => {
  it('creates a job (201) with the bearer key, JSON body and encoded project path', async () => {
    handler = reply(201, job);
    const created = await client().createJob('Document 429');
    expect(created).toMatchObject({
      id: 'job_1',
      status: 'active',
      repository: 'https://github.com/acme/docs',
      ref: null,
    });
    expect(hits).toHaveLength(1);
    expect(hits[0]).toMatchObject({
      method: 'POST',
      url: '/base/v2/agent/proj%201/job',
      auth: `Bearer ${KEY}`,
    });
    expect(JSON.parse(hits[0]!.body)).toEqual({ prompt: 'Document 429' });
  });

  it('parses tolerantly: missing optional fields and a bad prLink become null', async () => {
    handler = reply(200, { id: 'job_2', status: 'completed', prLink: 'javascript:alert(1)', extra: true });
    const got = await client().getJob('job_2');
    expect(got).toEqual({
      id: 'job_2',
      status: 'completed',
      repository: null,
      ref: null,
      model: null,
      prLink: null,
      createdAt: null,
      archivedAt: null,
    });
  });

  it.each([
    [400, 'invalid_request'],
    [401, 'unauthorized'],
    [403, 'forbidden'],
    [404, 'not_found'],
  ] as const)('maps %i to %s without retrying', async (status, code) => {
    handler = reply(status, { error: `nope ${status}` });
    const error = await codeOf(client().getJob('x'));
    expect(error.code).toBe(code);
    expect(error.status).toBe(status);
    expect(error.apiMessage).toBe(`nope ${status}`);
    expect(hits).toHaveLength(1);
  });

  it("cleans the platform's error text before anyone shows it: no invisible characters, no live link", async () => {
    handler = reply(400, { error: 'Bad\u202e prompt: see https://evil.example/x and <!channel>\u200b' });
    const error = await codeOf(client().createJob('x'));
    expect(error.apiMessage).toBe('Bad prompt: see https://evil.example/x and <!channel>');
    const shown = describeDocsFailure(error, Date.now());
    expect(shown).toContain('hxxps[:]//evil[.]example/x');
    expect(shown).toContain('&lt;!channel&gt;');
    expect(shown).not.toMatch(/https:\/\/evil|<!channel>|[\u200b\u202e]/);
  });

  it('retries a GET on 500 and 429 (honouring Retry-After), then succeeds', async () => {
    let n = 0;
    handler = (req, res, body) => {
      n += 1;
      if (n === 1) return reply(500, { error: 'boom' })(req, res, body);
      if (n === 2) return reply(429, { error: 'slow down' }, { 'retry-after': '0' })(req, res, body);
      return reply(200, job)(req, res, body);
    };
    await expect(client().getJob('job_1')).resolves.toMatchObject({ id: 'job_1' });
    expect(hits).toHaveLength(3);
  });

  it('gives up after its retries with unavailable', async () => {
    handler = reply(503, 'Service Unavailable');
    const error = await codeOf(client().getJob('job_1'));
    expect(error.code).toBe('unavailable');
    expect(hits).toHaveLength(3);
  });

  it('reports rate_limited with the retry time when Retry-After is too long to wait', async () => {
    handler = reply(429, { error: 'Rate limit exceeded' }, { 'retry-after': '1200' });
    const error = await codeOf(client().createJob('x'));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(1_200_000);
    expect(hits).toHaveLength(1);
  });

  it('never retries a create that may have reached the server', async () => {
    handler = reply(502, '<html>Bad gateway</html>');
    const error = await codeOf(client().createJob('x'));
    expect(error.code).toBe('unavailable');
    expect(hits).toHaveLength(1);
  });

  it('turns garbage and wrong-shaped JSON into bad_response', async () => {
    handler = reply(200, '<!doctype html><p>maintenance</p>');
    expect((await codeOf(client().getJob('x'))).code).toBe('bad_response');
    handler = reply(200, { id: 42 });
    expect((await codeOf(client().getJob('x'))).code).toBe('bad_response');
    handler = reply(201, '{"id":"job_1","status":');
    expect((await codeOf(client().createJob('x'))).code).toBe('bad_response');
  });

  it('logs which field of a rejected body failed and why, never its values', async () => {
    const from = logs.length;
    handler = reply(200, {
      totals: { human: 'sk_live_leaked_value', ai: 1, total: 2 },
      views: [{ path: '/a', human: 1, ai: 1, total: null }],
      hasMore: false,
    });
    const error = await codeOf(
      client().getPageViews({ dateFrom: '2026-11-01', dateTo: '2026-11-08', limit: 250, offset: 0 }),
    );
    expect(error.code).toBe('bad_response');
    const line = logs.slice(from).find((l) => l.includes('docs API response rejected'));
    expect(line).toBeDefined();
    const entry = JSON.parse(line!) as { problems: string[]; path: string };
    expect(entry.problems).toEqual(['totals.human: expected number', 'views.0.total: expected number']);
    expect(entry.path).toBe('/v1/analytics/proj%201/views');
    expect(logs.slice(from).join('\n')).not.toContain('sk_live_leaked_value');
  });

  it('times out a hanging server as unavailable, and the POST is not repeated', async () => {
    handler = () => undefined; // never answers
    const error = await codeOf(client(150).createJob('x'));
    expect(error.code).toBe('unavailable');
    expect(hits).toHaveLength(1);
  });

  it('retries a POST when the connection was refused (it never left)', async () => {
    const dead = new DocsApiClient({
      baseUrl: 'http://127.0.0.1:1',
      apiKey: KEY,
      projectId: 'p',
      timeoutMs: 500,
      retryBaseMs: 1,
      logger: createLogger({ level: 'silent', secrets: [] }),
    });
    const error = await codeOf(dead.createJob('x'));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('ECONNREFUSED');
  });

  it('reads page views with the query the API documents', async () => {
    handler = reply(200, {
      totals: { human: 3, ai: 1, total: 4 },
      views: [{ path: '/a', human: 3, ai: 1, total: 4 }],
      hasMore: false,
    });
    const page = await client().getPageViews({
      dateFrom: '2026-11-01',
      dateTo: '2026-11-08',
      limit: 250,
      offset: 500,
    });
    expect(page.views).toHaveLength(1);
    expect(hits[0]!.url).toBe(
      '/base/v1/analytics/proj%201/views?dateFrom=2026-11-01&dateTo=2026-11-08&limit=250&offset=500',
    );
  });

  it('never logs the key', () => {
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('\n')).not.toContain(KEY);
  });

  it('bounds a Retry-After to an hour, whatever the platform says (seconds or a date)', async () => {
    handler = reply(429, { error: 'Rate limit exceeded' }, { 'retry-after': '99999999999' });
    const seconds = await codeOf(client().createJob('x'));
    expect(seconds.code).toBe('rate_limited');
    expect(seconds.retryAfterMs).toBe(60 * 60 * 1000);
    handler = reply(
      429,
      { error: 'Rate limit exceeded' },
      { 'retry-after': 'Fri, 01 Jan 2100 00:00:00 GMT' },
    );
    const date = await codeOf(client().getJob('job_1'));
    expect(date.retryAfterMs).toBe(60 * 60 * 1000);
  });
});
