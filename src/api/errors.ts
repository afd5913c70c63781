import { AppError } from '../errors.js';

export type DocsApiErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'not_found'
  | 'rate_limited'
  | 'invalid_request'
  | 'unavailable'
  | 'bad_response';

export class DocsApiError extends AppError<DocsApiErrorCode> {
  /** HTTP status, when the platform answered at all. */
  readonly status: number | undefined;
  /** When the platform said (Retry-After) how long to wait. */
  readonly retryAfterMs: number | undefined;
  /** The platform's own `error` message, shown to users for 400s; never contains our key. */
  readonly apiMessage: string | undefined;

  constructor(
    code: DocsApiErrorCode,
    message: string,
    details: { status?: number; retryAfterMs?: number; apiMessage?: string; cause?: unknown } = {},
  ) {
    super(code, message, { cause: details.cause });
    this.status = details.status;
    this.retryAfterMs = details.retryAfterMs;
    this.apiMessage = details.apiMessage;
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

/** Errors after which the same request may succeed later. */
export function isTransient(error: unknown): boolean {
  return error instanceof DocsApiError && (error.code === 'unavailable' || error.code === 'rate_limited');
}
