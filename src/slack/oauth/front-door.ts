import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type App, HTTPModuleFunctions, HTTPReceiver, type ReceiverEvent } from '@slack/bolt';
import type { Config } from '../../common/config.js';
import { errorCode } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';
import type { TenantSource } from '../../tenants/tenant.js';
import { tenantSourceOf } from '../../tenants/tenant-source.js';
import { boltLevel, boltLogger } from '../bolt-logger.js';
import { customRoutesOf, type HttpRoute, MAX_REQUEST_BODY_BYTES, rejectFutureDated } from '../http-edge.js';
import { installedRoutes } from './installed-link.js';
import { type InstallerInput, slackInstaller } from './installer.js';

export interface FrontDoor {
  /** Listens on `port` (0: any); resolves the port. */
  start(where: number | { port: number; host?: string }): Promise<number>;
  stop(): Promise<void>;
}

/**
 * OAuth mode's one HTTP front door for every tenant: POST /slack/events verifies each request's signature
 * (and refuses future-dated ones) and hands it, with the tenant it names, to `dispatch`; GET /slack/install
 * and /slack/oauth_redirect run "Add to Slack", /slack/installed is its success page and / leads to the
 * install page; GET routes serve health.
 */
export function createFrontDoor(input: {
  config: Config;
  logger: Logger;
  routes: HttpRoute[];
  installer: InstallerInput;
  dispatch(request: ReceiverEvent, source: TenantSource | undefined): Promise<void>;
}): FrontDoor {
  const { config, logger } = input;
  const receiver = new HTTPReceiver({
    signingSecret: config.slack.signingSecret!,
    endpoints: '/slack/events',
    customRoutes: customRoutesOf(
      [...input.routes, ...installedRoutes(input.installer.stateSecret, input.installer.links)],
      logger,
    ),
    logger: boltLogger(logger),
    logLevel: boltLevel(config.logLevel),
    processBeforeResponse: false,
    // The request's signature reaches the tenant's middleware (context.slackSignature) that drops replays.
    customPropertiesExtractor: (req) => ({ slackSignature: req.headers['x-slack-signature'] }),
    bodyLimit: MAX_REQUEST_BODY_BYTES,
    // The directory did not say whose request it is: 503, so Slack delivers the event again later.
    processEventErrorHandler: async (args) => {
      if (errorCode(args.error) !== 'directory_unreadable' || args.response.headersSent)
        return HTTPModuleFunctions.defaultProcessEventErrorHandler(args);
      args.response.writeHead(503);
      args.response.end();
      return true;
    },
    ...slackInstaller(input.installer),
  });
  rejectFutureDated(receiver, logger);
  // The receiver's "app" is the router: each verified request goes to its tenant's Bolt app.
  receiver.init({
    processEvent: (event: ReceiverEvent) => input.dispatch(event, tenantSourceOf(event.body)),
  } as unknown as App);
  return {
    async start(where) {
      const server = (await receiver.start(where)) as Server;
      return (server.address() as AddressInfo).port;
    },
    stop: () => receiver.stop(),
  };
}
