import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type AuthorizeResult, HTTPReceiver, type Receiver, SocketModeReceiver, webApi } from '@slack/bolt';
import type { Config } from '../common/config.js';
import { AppError, describeError } from '../common/errors.js';
import { listenOn } from '../common/listen-address.js';
import type { Logger } from '../common/logger.js';
import {
  boltApp,
  InFlight,
  listenerDeps,
  type SlackAppOptions,
  slackGateway,
  trackRequests,
  webClientOptions,
  withTrailingSlash,
} from './bolt-core.js';
import { boltLevel, boltLogger } from './bolt-logger.js';
import { customRoutesOf, MAX_REQUEST_BODY_BYTES, rejectFutureDated } from './http-edge.js';
import { registerListeners, type SlackDeps } from './listeners/index.js';
import type { SlackGateway } from './slack-gateway.js';
import { TOKEN_REJECTED } from './token-rejections.js';

export type { SlackAppOptions } from './bolt-core.js';

import type { HttpRoute } from './http-edge.js';

export type { HttpRoute, RouteAnswer } from './http-edge.js';

export interface SlackApp {
  gateway: SlackGateway;
  mode: 'http' | 'socket';
  register(deps: Omit<SlackDeps, 'afterAck'>): void;
  /** Starts receiving; resolves the HTTP port (Slack requests in HTTP mode, health routes in both). */
  start(): Promise<number>;
  /**
   * Whether Slack can reach the bot: in Socket Mode the socket is connected; in HTTP mode auth.test
   * succeeded (checked at start, retried in the background until it does).
   */
  connected(): boolean;
  /** Waits until no listener is running, at most `timeoutMs`; resolves how many were still running. */
  drain(timeoutMs: number): Promise<number>;
  /** Stops receiving Slack requests; the Web API client keeps working so acknowledged work can finish. */
  stop(): Promise<void>;
  /** Closes the Web API side (per-channel posting queue); call after every drain. */
  close(): Promise<void>;
}

/**
 * The Bolt app in HTTP mode (requests at POST /slack/events) or Socket Mode (when SLACK_APP_TOKEN is set).
 * Its WebClient has a timeout and no automatic retries: SlackGateway decides what is safe to repeat.
 */
export function createSlackApp(
  config: Config,
  logger: Logger,
  routes: HttpRoute[],
  options: SlackAppOptions = {},
): SlackApp {
  const log = boltLogger(logger);
  const logLevel = boltLevel(config.logLevel);
  const customRoutes = customRoutesOf(routes, logger);
  const socketMode = config.slack.appToken !== undefined;
  let receiver: Receiver;
  let httpReceiver: HTTPReceiver | undefined;
  let socketReceiver: SocketModeReceiver | undefined;
  if (socketMode) {
    socketReceiver = new SocketModeReceiver({
      appToken: config.slack.appToken!,
      customRoutes,
      // Its own WebClient (apps.connections.open) must honour SLACK_API_URL too, for proxies.
      installerOptions: {
        port: config.port,
        clientOptions: config.slack.apiUrl ? { slackApiUrl: withTrailingSlash(config.slack.apiUrl) } : {},
      },
      logger: log,
      logLevel,
    });
    receiver = socketReceiver;
  } else {
    httpReceiver = new HTTPReceiver({
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
    rejectFutureDated(httpReceiver, logger);
    receiver = httpReceiver;
  }
  // The bot's own client (gateway, readiness): it carries the token; Bolt builds per-request clients from
  // `authorize` with the same options.
  const client = new webApi.WebClient(config.slack.botToken, webClientOptions(config, logger));
  const app = boltApp({
    config,
    logger,
    receiver,
    // Not `token`: with it Bolt calls auth.test once in its constructor and caches the promise, so if Slack
    // is unreachable at that moment every later request fails authorization until a restart.
    authorize: cachedAuthorize(client, config.slack.botToken),
  });
  const inFlight = new InFlight(logger);
  trackRequests(app, () => inFlight);
  const gateway = slackGateway(config, logger, client, options);
  let authenticated = false;
  let authRetry: NodeJS.Timeout | undefined;
  const slackHost = new URL(config.slack.apiUrl ?? 'https://slack.com/api/').host;
  /** auth.test: a rejected token throws (start fails, the process exits); anything else retries. */
  const verifyAuth = async (): Promise<void> => {
    try {
      await client.auth.test();
      authenticated = true;
    } catch (error) {
      const code = (error as { data?: { error?: unknown } }).data?.error;
      if (typeof code === 'string' && TOKEN_REJECTED.has(code)) {
        throw new AppError(
          'slack_token_rejected',
          `Slack rejected SLACK_BOT_TOKEN (auth.test: ${code}): copy the Bot User OAuth Token (xoxb-…) from OAuth & Permissions again, or reinstall the app`,
        );
      }
      logger.warn(
        { error: describeError(error), host: slackHost },
        `could not check the bot token with Slack at ${slackHost} (auth.test); not ready; retrying auth.test in 10 s`,
      );
      authRetry = setTimeout(() => {
        verifyAuth().catch((rejected: unknown) =>
          logger.error({ error: describeError(rejected) }, String(rejected)),
        );
      }, 10_000);
      authRetry.unref();
    }
  };

  return {
    gateway,
    mode: socketMode ? 'socket' : 'http',
    register: (deps) => {
      const all = listenerDeps(deps, gateway, logger, inFlight, config.slack.appTier);
      registerListeners(app, () => all);
    },
    async start() {
      // Both modes check the token first: Socket Mode connects with the app token alone, so a wrong bot
      // token would otherwise look connected while every command fails.
      await verifyAuth();
      if (httpReceiver) {
        const server = (await app.start(listenOn(config))) as Server;
        return (server.address() as AddressInfo).port;
      }
      await app.start();
      return config.port;
    },
    connected() {
      if (socketReceiver) return authenticated && socketReceiver.client.websocket?.isActive() === true;
      return authenticated;
    },
    drain: (timeoutMs) => inFlight.drain(timeoutMs),
    async stop() {
      clearTimeout(authRetry);
      // The gateway stays open: acknowledged work and running polls still reply while the app drains
      // (the app closes it last).
      await app.stop();
    },
    async close() {
      await gateway.close();
    },
  };
}

/**
 * Single-workspace authorization: auth.test once, cached on success; a failure is not cached, so the next
 * request tries again once Slack is reachable.
 */
function cachedAuthorize(client: webApi.WebClient, botToken: string): () => Promise<AuthorizeResult> {
  let identity: Promise<AuthorizeResult> | undefined;
  return () => {
    identity ??= client.auth.test().then((result) => ({
      botToken,
      botId: result.bot_id,
      botUserId: result.user_id,
      teamId: result.team_id,
    }));
    return identity.catch((error: unknown) => {
      identity = undefined;
      throw error;
    });
  };
}
