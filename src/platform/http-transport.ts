import { setTimeout as sleep } from 'node:timers/promises';
import type { Dispatcher } from 'undici';
import { backoffDelay, boundedDelay, parseRetryAfter } from '../common/backoff.js';
import { codeForStatus, DocsApiError, requestNeverSent } from '../common/docs-api-error.js';
import type { Logger } from '../common/logger.js';
import { cleanUntrusted, collapseWhitespace } from '../common/untrusted-text.js';
import { OriginDispatchers } from './dispatchers.js';
import { errorBodySchema } from './schemas.js';

const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** A Retry-After longer than this is not waited out inside one call; the caller gets `rate_limited`. */
const MAX_INLINE_WAIT_MS = 30_000;
/**
 * A Retry-After is the platform's to set but ours to bound: callers turn it into poll delays and timers, and
 * past ~24.8 days Node fires a timer after 1 ms (a tight retry loop). An hour covers any real rate window.
 */
export const MAX_RETRY_AFTER_MS = 60 * 60 * 1000;

/** Where each attempt's outcome is counted (`code`: `ok` or the `DocsApiError` code). Injected; optional. */
export interface ApiMetrics {
  apiCall(method: string, code: string): void;
}

export interface TransportOptions {
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  logger: Logger;
  /** Extra attempts for retryable requests (default 2). */
  retries?: number;
  retryBaseMs?: number;
  connections?: number;
  random?: () => number;
  metrics?: ApiMetrics;
  /** OAuth mode: the keys were connected in Slack (a refusal says so, for advice that fits). */
  keyConnectedInSlack?: boolean;
  /** The process's pools (one per origin, closed by its owner); absent: a pool of this transport's own. */
  dispatchers?: OriginDispatchers;
}

export interface JsonRequest {
  method: 'GET' | 'POST';
  path: string;
  query?: Record<string, string | number | undefined>;
  body?: unknown;
  /** GETs are retried on network errors, 5xx and 429; POSTs only when the request surely never left. */
  idempotent: boolean;
  /** Overrides the transport's retry count for this call (analytics spends a tight hourly budget). */
  retries?: number;
  /** The project's own admin key (DOCS_CHANNEL_PROJECTS); absent: the transport's (DOCS_API_KEY). */
  apiKey?: string;
}

export interface JsonResponse {
  status: number;
  body: unknown;
}

/**
 * Calls to the docs platform over the process's keep-alive pool for its origin (or one of its own); explicit
 * connect, header and body timeouts.
 */
export class HttpTransport {
  private readonly pool: Dispatcher;
  /** Set when the pool is this transport's own: closed with it. */
  private readonly ownPools: OriginDispatchers | undefined;
  private readonly basePath: string;
  private readonly options: Required<Omit<TransportOptions, 'random' | 'metrics' | 'dispatchers'>> & {
    random: () => number;
    metrics?: ApiMetrics;
  };

  constructor(options: TransportOptions) {
    const url = new URL(options.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.options = {
      retries: 2,
      retryBaseMs: 250,
      connections: 16,
      random: Math.random,
      keyConnectedInSlack: false,
      ...options,
    };
    this.ownPools = options.dispatchers ? undefined : new OriginDispatchers();
    const pools = options.dispatchers ?? this.ownPools!;
    this.pool = pools.for(url.origin, {
      connectTimeoutMs: options.timeoutMs,
      connections: this.options.connections,
    });
  }

  async request(req: JsonRequest): Promise<JsonResponse> {
    const maxRetries = req.retries ?? this.options.retries;
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await this.once(req);
        this.options.metrics?.apiCall(req.method, 'ok');
        return response;
      } catch (error) {
        this.options.metrics?.apiCall(req.method, error instanceof DocsApiError ? error.code : 'unknown');
        const wait = this.retryDelay(req, error, attempt, maxRetries);
        if (wait === undefined) throw error;
        this.options.logger.debug(
          { method: req.method, path: req.path, attempt: attempt + 1, waitMs: wait },
          'docs API call failed; retrying',
        );
        await sleep(wait);
      }
    }
  }

  /** Closes the pool if it is this transport's own; the process's pools close with the process. */
  async close(): Promise<void> {
    await this.ownPools?.close();
  }

  private retryDelay(
    req: JsonRequest,
    error: unknown,
    attempt: number,
    maxRetries: number,
  ): number | undefined {
    if (attempt >= maxRetries || !(error instanceof DocsApiError)) return undefined;
    if (!req.idempotent && !requestNeverSent(error)) return undefined;
    if (error.code !== 'unavailable' && error.code !== 'rate_limited') return undefined;
    if (error.retryAfterMs !== undefined) {
      return error.retryAfterMs <= MAX_INLINE_WAIT_MS ? error.retryAfterMs : undefined;
    }
    return backoffDelay(attempt, {
      baseMs: this.options.retryBaseMs,
      maxMs: 5_000,
      random: this.options.random,
    });
  }

  private async once(req: JsonRequest): Promise<JsonResponse> {
    const started = performance.now();
    const path = this.buildPath(req);
    let statusCode: number;
    let text: string;
    let headers: Record<string, string | string[] | undefined>;
    try {
      const response = await this.pool.request({
        method: req.method,
        path,
        headers: {
          authorization: `Bearer ${req.apiKey ?? this.options.apiKey}`,
          accept: 'application/json',
          ...(req.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: req.body === undefined ? undefined : JSON.stringify(req.body),
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        signal: AbortSignal.timeout(this.options.timeoutMs * 2),
      });
      statusCode = response.statusCode;
      headers = response.headers;
      // Always read (or destroy) the body: an unconsumed undici body holds its socket.
      text = await readLimited(response.body);
    } catch (error) {
      this.options.logger.debug(
        { method: req.method, path: req.path, ms: elapsed(started), error: networkCode(error) },
        'docs API network error',
      );
      throw new DocsApiError(
        'unavailable',
        `The docs API could not be reached (${networkCode(error) ?? 'network error'})`,
        {
          cause: error,
        },
      );
    }
    this.options.logger.debug(
      { method: req.method, path: req.path, status: statusCode, ms: elapsed(started) },
      'docs API call',
    );
    if (statusCode >= 200 && statusCode < 300) {
      try {
        return { status: statusCode, body: text === '' ? undefined : JSON.parse(text) };
      } catch (error) {
        throw new DocsApiError(
          'bad_response',
          `The docs API answered ${statusCode} with a body that is not JSON`,
          {
            status: statusCode,
            cause: error,
          },
        );
      }
    }
    const code = codeForStatus(statusCode);
    const apiMessage = extractApiMessage(text);
    const retryAfterMs = parseRetryAfter(headers['retry-after']);
    throw new DocsApiError(
      code,
      `The docs API answered ${statusCode}${apiMessage ? `: ${apiMessage}` : ''}`,
      {
        status: statusCode,
        apiMessage,
        retryAfterMs: retryAfterMs === undefined ? undefined : boundedDelay(retryAfterMs, MAX_RETRY_AFTER_MS),
        keyConnectedInSlack:
          this.options.keyConnectedInSlack === true && (code === 'unauthorized' || code === 'forbidden'),
      },
    );
  }

  private buildPath(req: JsonRequest): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) params.set(key, String(value));
    }
    const query = params.toString();
    return `${this.basePath}${req.path}${query ? `?${query}` : ''}`;
  }
}

async function readLimited(
  body: AsyncIterable<Buffer> & { destroy(error?: Error): unknown },
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) {
      body.destroy();
      throw new Error('response body too large');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function extractApiMessage(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  const body = errorBodySchema.safeParse(parsed);
  if (!body.success) return undefined;
  const parts = [
    body.data.error ?? body.data.message,
    ...(body.data.details ?? []).map((d) => d.message),
  ].filter((part): part is string => typeof part === 'string' && part.trim() !== '');
  if (parts.length === 0) return undefined;
  // Platform text is outside text: capped and stripped of invisible characters before anything else.
  const clean = cleanUntrusted(parts.join('; '), 2000).text;
  const joined = collapseWhitespace(clean);
  return joined.length > 300 ? `${joined.slice(0, 299)}…` : joined;
}

function networkCode(error: unknown): string | undefined {
  if (error && typeof error === 'object') {
    const code = (error as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    const name = (error as { name?: unknown }).name;
    if (name === 'TimeoutError' || name === 'AbortError') return 'TIMEOUT';
  }
  return undefined;
}

function elapsed(started: number): number {
  return Math.round(performance.now() - started);
}
