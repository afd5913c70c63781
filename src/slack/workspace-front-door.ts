import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type App, HTTPReceiver, type ReceiverEvent, SocketModeReceiver } from '@slack/bolt';
import type { Config } from '../common/config.js';
import { listenOn } from '../common/listen-address.js';
import type { Logger } from '../common/logger.js';
import { withTrailingSlash } from './bolt-core.js';
import { boltLevel, boltLogger } from './bolt-logger.js';
import { customRoutesOf, type HttpRoute, MAX_REQUEST_BODY_BYTES, rejectFutureDated } from './http-edge.js';

/** Single-workspace mode's way in from Slack: POST /slack/events, or Socket Mode with SLACK_APP_TOKEN. */
export interface WorkspaceFrontDoor {
  mode: 'http' | 'socket';
  /** Starts receiving; resolves the HTTP port (Slack's requests in HTTP mode, the GET routes in both). */
  start(): Promise<number>;
  stop(): Promise<void>;
  /** Socket Mode: whether the socket is open (HTTP mode: always true). */
  open(): boolean;
}

/**
 * The receiver (HTTP with its signature check, or Socket Mode) hands each request to `dispatch`, which
 * processes it on the process's one Bolt app, as OAuth mode's front door does: no Bolt app of its own.
 */
export function createWorkspaceFrontDoor(
  config: Config,
  logger: Logger,
  routes: HttpRoute[],
  dispatch: (event: ReceiverEvent) => Promise<void>,
): WorkspaceFrontDoor {
  const log = boltLogger(logger);
  const logLevel = boltLevel(config.logLevel);
  const customRoutes = customRoutesOf(routes, logger);
  const router = { processEvent: dispatch } as unknown as App;
  if (config.slack.appToken !== undefined) {
    const socket = new SocketModeReceiver({
      appToken: config.slack.appToken,
      customRoutes,
      // Its own WebClient (apps.connections.open) must honour SLACK_API_URL too, for proxies.
      installerOptions: {
        port: config.port,
        clientOptions: config.slack.apiUrl ? { slackApiUrl: withTrailingSlash(config.slack.apiUrl) } : {},
      },
      logger: log,
      logLevel,
    });
    socket.init(router);
    return {
      mode: 'socket',
      start: async () => {
        await socket.start();
        return config.port;
      },
      stop: () => socket.stop(),
      open: () => socket.client.websocket?.isActive() === true,
    };
  }
  const http = new HTTPReceiver({
    signingSecret: config.slack.signingSecret!,
    endpoints: '/slack/events',
    customRoutes,
    logger: log,
    logLevel,
    processBeforeResponse: false,
    // The request's signature reaches the middleware (context.slackSignature) that handles a replay once.
    customPropertiesExtractor: (req) => ({ slackSignature: req.headers['x-slack-signature'] }),
    // Bolt's default is 4 MB; Slack's largest payloads (a 40,000-character message with blocks) are far
    // smaller, and a signed body is buffered in full before it is checked.
    bodyLimit: MAX_REQUEST_BODY_BYTES,
  });
  rejectFutureDated(http, logger);
  http.init(router);
  return {
    mode: 'http',
    start: async () => {
      const server = (await http.start(listenOn(config))) as Server;
      return (server.address() as AddressInfo).port;
    },
    stop: () => http.stop(),
    open: () => true,
  };
}
