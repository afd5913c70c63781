import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';

/** Node's codes for a connection refused, reset or unreachable. */
const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
/** node-redis's errors for a connection lost, closed or not yet back. */
const CONNECTION_ERRORS = new Set([
  'SocketClosedUnexpectedlyError',
  'ConnectionTimeoutError',
  'SocketTimeoutError',
  'ClientClosedError',
  'ClientOfflineError',
  'DisconnectsClientError',
]);

/** Whether an error says the connection to the store is lost or refused (not what a command did). */
export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string' && CONNECTION_CODES.has(code)) return true;
  if (CONNECTION_ERRORS.has(error.name) || CONNECTION_ERRORS.has(error.constructor.name)) return true;
  return error.message === 'Connection is closed.' || error.message === 'The client is closed';
}

/** A listener writes one line per this window; the rest are counted into the next line. */
export const STORE_ERROR_LOG_WINDOW_MS = 10_000;

/**
 * The error listener of a store or queue on Redis. A lost connection is reported by the connection itself
 * (one line per 5 s); every store and queue repeating it on each reconnect attempt, once per tenant in
 * OAuth mode, would bury it, so here it is debug. Anything else is an error, one line per window: a queue
 * worker whose every command is refused (Redis out of memory) reports thousands a second.
 */
export function storeErrorListener(
  logger: Logger,
  what: string,
  level: 'warn' | 'error' = 'error',
  now: () => number = Date.now,
): (error: unknown) => void {
  let windowEndsAt = 0;
  let unwritten = 0;
  return (error) => {
    if (isConnectionLoss(error)) return logger.debug({ error: describeError(error) }, what);
    if (now() < windowEndsAt) {
      unwritten += 1;
      return;
    }
    windowEndsAt = now() + STORE_ERROR_LOG_WINDOW_MS;
    const repeated = unwritten > 0 ? { repeated: unwritten } : {};
    unwritten = 0;
    logger[level]({ error: describeError(error), ...repeated }, what);
  };
}
