import type { CustomRoute, HTTPReceiver } from '@slack/bolt';
import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';

/** What every HTTP front door of the bot shares: its GET routes, body limit and replay-window check. */

export interface RouteAnswer {
  status: number;
  /** Sent as JSON, or as-is (a string) when `contentType` is set. */
  body: unknown;
  contentType?: string;
  /** More response headers (a redirect's Location, an HTML page's security headers). */
  headers?: Record<string, string>;
}

export interface HttpRoute {
  path: string;
  /** Evaluated per request, with the request's URL (its query). */
  handle(url: URL): RouteAnswer | Promise<RouteAnswer>;
}

/** GET routes (health, readiness) in Bolt's custom-route form; a route that throws answers 500. */
export function customRoutesOf(routes: HttpRoute[], logger: Logger): CustomRoute[] {
  return routes.map((route) => ({
    path: route.path,
    method: ['GET'],
    handler: (req, res) => {
      Promise.resolve()
        .then(() => route.handle(new URL(req.url ?? '/', 'http://localhost')))
        .then(
          ({ status, body, contentType, headers }) => {
            res.writeHead(status, { ...headers, 'content-type': contentType ?? 'application/json' });
            res.end(contentType ? String(body) : JSON.stringify(body));
          },
          (error: unknown) => {
            logger.warn({ path: route.path, error: describeError(error) }, 'HTTP route failed');
            res.writeHead(500, { 'content-type': 'application/json' });
            res.end(JSON.stringify({ status: 'error' }));
          },
        );
    },
  }));
}

/** Largest request body accepted on POST /slack/events (413 above it). */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;
/** Slack's replay window; Bolt refuses older timestamps but accepts any timestamp in the future. */
const MAX_CLOCK_SKEW_SEC = 5 * 60;

/**
 * Refuses (401) requests whose x-slack-request-timestamp is more than five minutes ahead: Bolt checks only
 * the past side of Slack's replay window, so a request signed with a future timestamp would stay replayable
 * until that time plus five minutes.
 */
export function rejectFutureDated(receiver: HTTPReceiver, logger: Logger): void {
  const verified = receiver.requestListener;
  receiver.requestListener = (req, res) => {
    const header = req.headers['x-slack-request-timestamp'];
    const timestamp = Number(Array.isArray(header) ? header[0] : header);
    if (
      header !== undefined &&
      Number.isFinite(timestamp) &&
      timestamp - Date.now() / 1000 > MAX_CLOCK_SKEW_SEC
    ) {
      logger.warn({ timestamp }, 'refused a Slack request dated in the future');
      req.resume();
      res.writeHead(401);
      res.end();
      return;
    }
    verified(req, res);
  };
}
