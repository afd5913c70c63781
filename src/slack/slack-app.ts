import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { App, type CustomRoute, HTTPReceiver, type Receiver, SocketModeReceiver } from '@slack/bolt';
import type { Config } from '../config.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { boltLevel, boltLogger } from './bolt-logger.js';
import { registerListeners, type SlackDeps } from './listeners/index.js';
import { SlackGateway } from './slack-gateway.js';

export interface HttpRoute {
  path: string;
  /** Status and JSON body; evaluated per request. */
  handle(): { status: number; body: unknown };
}

export interface SlackApp {
  gateway: SlackGateway;
  mode: 'http' | 'socket';
  register(deps: SlackDeps): void;
  /** Starts receiving; resolves the HTTP port (Slack requests in HTTP mode, health routes in both). */
  start(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * The Bolt app in HTTP mode (requests at POST /slack/events) or Socket Mode (when SLACK_APP_TOKEN is set).
 * Its WebClient has a timeout and no automatic retries: SlackGateway decides what is safe to repeat.
 */
export function createSlackApp(config: Config, logger: Logger, routes: HttpRoute[]): SlackApp {
  const log = boltLogger(logger);
  const logLevel = boltLevel(config.logLevel);
  const customRoutes: CustomRoute[] = routes.map((route) => ({
    path: route.path,
    method: ['GET'],
    handler: (_req, res) => {
      const { status, body } = route.handle();
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    },
  }));
  const socketMode = config.slack.appToken !== undefined;
  let receiver: Receiver;
  let httpReceiver: HTTPReceiver | undefined;
  if (socketMode) {
    receiver = new SocketModeReceiver({
      appToken: config.slack.appToken!,
      customRoutes,
      installerOptions: { port: config.port },
      logger: log,
      logLevel,
    });
  } else {
    httpReceiver = new HTTPReceiver({
      signingSecret: config.slack.signingSecret!,
      endpoints: '/slack/events',
      customRoutes,
      logger: log,
      logLevel,
      processBeforeResponse: false,
    });
    receiver = httpReceiver;
  }
  const app = new App({
    token: config.slack.botToken,
    receiver,
    logger: log,
    logLevel,
    clientOptions: {
      ...(config.slack.apiUrl ? { slackApiUrl: withTrailingSlash(config.slack.apiUrl) } : {}),
      timeout: config.slack.timeoutMs,
      retryConfig: { retries: 0 },
      rejectRateLimitedCalls: true,
      logger: log,
      logLevel,
    },
  });
  app.error(async (error) => {
    logger.error({ error: describeError(error) }, 'unhandled error in a Slack listener');
  });
  const gateway = new SlackGateway(app.client, { logger, settleMs: 2 * config.slack.timeoutMs });

  return {
    gateway,
    mode: socketMode ? 'socket' : 'http',
    register: (deps) => registerListeners(app, deps),
    async start() {
      if (httpReceiver) {
        const server = (await app.start(config.port)) as Server;
        return (server.address() as AddressInfo).port;
      }
      await app.start();
      return config.port;
    },
    async stop() {
      await app.stop();
    },
  };
}

function withTrailingSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`;
}
