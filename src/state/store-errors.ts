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

/**
 * The error listener of a store or queue on Redis. A lost connection is reported by the connection itself
 * (one line per 5 s); every store and queue repeating it on each reconnect attempt, once per tenant in
 * OAuth mode, would bury it, so here it is debug. Anything else is an error.
 */
export function storeErrorListener(
  logger: Logger,
  what: string,
  level: 'warn' | 'error' = 'error',
): (error: unknown) => void {
  return (error) => logger[isConnectionLoss(error) ? 'debug' : level]({ error: describeError(error) }, what);
}
