import { AppError } from './errors.js';

export type DocsApiErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'rate_limited'
  | 'invalid_request'
  | 'unavailable'
  | 'bad_response'
  /** OAuth mode: this workspace has no docs project connected yet (nothing was sent). */
  | 'not_connected';

export class DocsApiError extends AppError<DocsApiErrorCode> {
  /** HTTP status, when the platform answered at all. */
  readonly status: number | undefined;
  /** When the platform said (Retry-After) how long to wait. */
  readonly retryAfterMs: number | undefined;
  /** The platform's own `error` message, shown to users for 400s; never contains our key. */
  readonly apiMessage: string | undefined;
  /**
   * OAuth mode: a refused key (401/403) was connected in Slack, so the fix is a manager's Reconnect
   * (`/docs-agent connect`), never an environment variable.
   */
  readonly keyConnectedInSlack: boolean;

  constructor(
    code: DocsApiErrorCode,
    message: string,
    details: {
      status?: number;
      retryAfterMs?: number;
      apiMessage?: string;
      cause?: unknown;
      keyConnectedInSlack?: boolean;
    } = {},
  ) {
    super(code, message, { cause: details.cause });
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.apiMessage = details.apiMessage;
    this.keyConnectedInSlack = details.keyConnectedInSlack === true;
  }
}

export function codeForStatus(status: number): DocsApiErrorCode {
  if (status === 400 || status === 409 || status === 413 || status === 422) return 'invalid_request';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404 || status === 410) return 'not_found';
  if (status === 429) return 'rate_limited';
  if (status >= 500) return 'unavailable';
  return 'bad_response';
}

/** Network failures before a request can have reached the server. */
const NOT_SENT_CODES = new Set([
  'ECONNREFUSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
]);

/** True when the request surely never left (connection refused, DNS…): even a POST is safe to repeat. */
export function requestNeverSent(error: unknown): boolean {
  if (!(error instanceof DocsApiError) || error.status !== undefined) return false;
  if (error.code === 'not_connected') return true;
  const cause = error.cause as { code?: unknown } | undefined;
  return typeof cause?.code === 'string' && NOT_SENT_CODES.has(cause.code);
}

/**
 * True when the platform may have acted on a request although the bot saw it fail: no answer came back
 * (timeout, connection reset) after the request could have been sent, or a gateway timed out (504). For a
 * POST this means the job or message may exist upstream.
 */
export function outcomeUnknown(error: unknown): boolean {
  if (!(error instanceof DocsApiError) || error.code !== 'unavailable') return false;
  if (error.status === 504) return true;
  if (error.status !== undefined) return false;
  return !requestNeverSent(error);
}

/** Errors after which the same request may succeed later. */
export function isTransient(error: unknown): boolean {
  return error instanceof DocsApiError && (error.code === 'unavailable' || error.code === 'rate_limited');
}
