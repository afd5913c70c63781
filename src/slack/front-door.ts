import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type App,
  HTTPModuleFunctions,
  HTTPReceiver,
  type ReceiverEvent,
  SocketModeReceiver,
} from '@slack/bolt';
import type { Config } from '../common/config.js';
import { errorCode } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { TenantSource } from '../tenants/tenant.js';
import { tenantSourceOf } from '../tenants/tenant-source.js';
import { withTrailingSlash } from './bolt-core.js';
import { boltLevel, boltLogger } from './bolt-logger.js';
import { customRoutesOf, type HttpRoute, MAX_REQUEST_BODY_BYTES, rejectFutureDated } from './http-edge.js';
import { installedRoutes } from './oauth/installed-link.js';
import { type InstallerInput, slackInstaller } from './oauth/installer.js';

export interface FrontDoor {
  mode: 'http' | 'socket';
  /** Starts receiving; resolves the HTTP port (Slack's requests in HTTP mode, the GET routes in both). */
  start(where: number | { port: number; host?: string }): Promise<number>;
  stop(): Promise<void>;
  /** Socket Mode: whether the socket is open (HTTP mode: always). */
  open(): boolean;
}

export interface FrontDoorInput {
  config: Config;
  logger: Logger;
  routes: HttpRoute[];
  /** OAuth mode: "Add to Slack" (GET /slack/install, /slack/oauth_redirect, /slack/installed, /). */
  installer?: InstallerInput;
  dispatch(request: ReceiverEvent, source: TenantSource | undefined): Promise<void>;
}

/**
 * The process's one way in from Slack, whatever the number of tenants: POST /slack/events verifies each
 * request's signature (and refuses future-dated ones), or Socket Mode (single-workspace mode with
 * SLACK_APP_TOKEN) receives it over the socket; either hands it, with the tenant it names, to `dispatch`,
 * which runs it on the process's one Bolt app. GET routes serve health, and in OAuth mode the install pages.
 */
export function createFrontDoor(input: FrontDoorInput): FrontDoor {
  const { config, logger } = input;
  // The receiver's "app" is the router: each verified request goes to its tenant's scope.
  const router = {
    processEvent: (event: ReceiverEvent) => input.dispatch(event, tenantSourceOf(event.body)),
  } as unknown as App;
  const routes = [
    ...input.routes,
    ...(input.installer ? installedRoutes(input.installer.stateSecret, input.installer.links) : []),
  ];
  if (config.slack.appToken !== undefined && !input.installer) return socketDoor(input, routes, router);
  const receiver = new HTTPReceiver({
    signingSecret: config.slack.signingSecret!,
    endpoints: '/slack/events',
    customRoutes: customRoutesOf(routes, logger),
    logger: boltLogger(logger),
    logLevel: boltLevel(config.logLevel),
    processBeforeResponse: false,
    // The request's signature reaches the tenant's middleware (context.slackSignature) that drops replays.
    customPropertiesExtractor: (req) => ({ slackSignature: req.headers['x-slack-signature'] }),
    // Bolt's default is 4 MB; Slack's largest payloads (a 40,000-character message with blocks) are far
    // smaller, and a signed body is buffered in full before it is checked.
    bodyLimit: MAX_REQUEST_BODY_BYTES,
    // The directory did not say whose request it is: 503, so Slack delivers the event again later.
    processEventErrorHandler: async (args) => {
      if (errorCode(args.error) !== 'directory_unreadable' || args.response.headersSent)
        return HTTPModuleFunctions.defaultProcessEventErrorHandler(args);
      args.response.writeHead(503);
      args.response.end();
      return true;
    },
    ...(input.installer ? slackInstaller(input.installer) : {}),
  });
  rejectFutureDated(receiver, logger);
  receiver.init(router);
  return {
    mode: 'http',
    async start(where) {
      const server = (await receiver.start(where)) as Server;
      return (server.address() as AddressInfo).port;
    },
    stop: () => receiver.stop(),
    open: () => true,
  };
}

/** Socket Mode: the socket brings Slack's requests; its HTTP server on PORT serves the GET routes. */
function socketDoor(input: FrontDoorInput, routes: HttpRoute[], router: App): FrontDoor {
  const { config, logger } = input;
  const receiver = new SocketModeReceiver({
    appToken: config.slack.appToken!,
    customRoutes: customRoutesOf(routes, logger),
    // Its own WebClient (apps.connections.open) must honour SLACK_API_URL too, for proxies.
    installerOptions: {
      port: config.port,
      clientOptions: config.slack.apiUrl ? { slackApiUrl: withTrailingSlash(config.slack.apiUrl) } : {},
    },
    logger: boltLogger(logger),
    logLevel: boltLevel(config.logLevel),
  });
  receiver.init(router);
  return {
    mode: 'socket',
    start: async () => {
      await receiver.start();
      return config.port;
    },
    stop: () => receiver.stop(),
    open: () => receiver.client.websocket?.isActive() === true,
  };
}
