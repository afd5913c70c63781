import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FakeDocsRequest } from './fake-docs-request.js';

/* Faults the fake docs platform injects: on demand (`inject`) or drawn at random with a seed (`randomFaults`). */

export type Fault =
  | { kind: 'status'; status: number; body?: string; retryAfter?: string }
  | { kind: 'delay'; ms: number }
  /** Holds the request open until `until` settles, then answers it as usual (a test decides when). */
  | { kind: 'gate'; until: Promise<unknown> }
  | { kind: 'reset' }
  | { kind: 'garbage'; body: string; status?: number };

/** Faults the seeded random mode draws from (see `randomFaults`). */
export type RandomFaultKind =
  | 'status_500'
  | 'status_502'
  | 'status_503'
  | 'reset'
  | 'timeout'
  | 'rate_limited_retry_after'
  | 'rate_limited'
  | 'truncated_json'
  | 'wrong_shape'
  | 'html_error';

export const RANDOM_FAULT_KINDS: readonly RandomFaultKind[] = [
  'status_500',
  'status_502',
  'status_503',
  'reset',
  'timeout',
  'rate_limited_retry_after',
  'rate_limited',
  'truncated_json',
  'wrong_shape',
  'html_error',
];

export interface RandomFaultOptions {
  /** Seed of the generator: the same seed draws the same sequence of faults. */
  seed: number;
  /** Share of matching requests that fail, 0..1. */
  rate: number;
  kinds?: readonly RandomFaultKind[];
  match?: RequestMatch;
  /** How long a `timeout` fault holds the answer (make it longer than the client's timeout). */
  timeoutMs?: number;
}

/** Which requests a fault applies to: a method and a path prefix (or pattern), each optional. */
export interface RequestMatch {
  method?: string;
  path?: string | RegExp;
  /** Only requests whose query passes (e.g. one range of the analytics). */
  query?: (query: URLSearchParams) => boolean;
}

export function matchesRequest(match: RequestMatch, r: FakeDocsRequest): boolean {
  const { method, path, query } = match;
  if (method !== undefined && r.method !== method) return false;
  if (query !== undefined && !query(r.query)) return false;
  return path === undefined || (typeof path === 'string' ? r.path.startsWith(path) : path.test(r.path));
}

/** Answers with the fault, or resolves false when the request should go on (a delay only slows it). */
export async function applyFault(fault: Fault, req: IncomingMessage, res: ServerResponse): Promise<boolean> {
  switch (fault.kind) {
    case 'gate':
      await fault.until;
      return false;
    case 'reset':
      req.socket.destroy();
      return true;
    case 'delay':
      await new Promise((resolve) => setTimeout(resolve, fault.ms));
      return false;
    case 'status':
      res.writeHead(fault.status, {
        'content-type': 'application/json',
        ...(fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter }),
      });
      res.end(fault.body ?? JSON.stringify({ error: `injected ${fault.status}` }));
      return true;
    case 'garbage':
      res.writeHead(fault.status ?? 200, { 'content-type': 'text/html' });
      res.end(fault.body);
      return true;
  }
}

/** Draws whether `r` fails under `options` and how; `next` is the seeded generator. */
export function drawFault(
  options: RandomFaultOptions,
  next: () => number,
  r: FakeDocsRequest,
): { kind: RandomFaultKind; fault: Fault } | undefined {
  if (options.match && !matchesRequest(options.match, r)) return undefined;
  if (next() >= options.rate) return undefined;
  const kinds = options.kinds ?? RANDOM_FAULT_KINDS;
  const kind = kinds[Math.floor(next() * kinds.length)]!;
  return { kind, fault: faultOf(kind, options) };
}

function faultOf(kind: RandomFaultKind, options: RandomFaultOptions): Fault {
  switch (kind) {
    case 'status_500':
      return { kind: 'status', status: 500 };
    case 'status_502':
      return { kind: 'status', status: 502 };
    case 'status_503':
      return { kind: 'status', status: 503 };
    case 'reset':
      return { kind: 'reset' };
    case 'timeout':
      return { kind: 'delay', ms: options.timeoutMs ?? 1_000 };
    case 'rate_limited_retry_after':
      return { kind: 'status', status: 429, retryAfter: '1', body: JSON.stringify({ error: 'Slow down' }) };
    case 'rate_limited':
      return { kind: 'status', status: 429, body: JSON.stringify({ error: 'Rate limit exceeded' }) };
    case 'truncated_json':
      return { kind: 'garbage', status: 200, body: '{"id":"job_trunc","status":"act' };
    case 'wrong_shape':
      return { kind: 'garbage', status: 200, body: JSON.stringify({ data: { jobs: [] }, ok: true }) };
    case 'html_error':
      return {
        kind: 'garbage',
        status: 502,
        body: '<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>',
      };
  }
}
