import type { IncomingMessage } from 'node:http';
import { readBody } from './http.js';

/** A request to the fake docs platform, as its routes, faults and checks read it. */
export interface FakeDocsRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  authorization: string | undefined;
}

/** The request read whole: its JSON body parsed (kept as text when it is not JSON). */
export async function readFakeDocsRequest(req: IncomingMessage): Promise<FakeDocsRequest> {
  const raw = await readBody(req);
  const url = new URL(req.url ?? '/', 'http://fake');
  let body: unknown;
  try {
    body = raw ? JSON.parse(raw) : undefined;
  } catch {
    body = raw;
  }
  const { method = 'GET', headers } = req;
  return { method, path: url.pathname, query: url.searchParams, body, authorization: headers.authorization };
}
