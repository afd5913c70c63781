import type { AuthorizeResult, Receiver, ReceiverEvent } from '@slack/bolt';
import type { Config } from '../common/config.js';
import type { Logger } from '../common/logger.js';
import type { TenantInstallation } from '../tenants/tenant.js';
import { boltCore, RotatingTokenClient, type SlackAppOptions, webClientOptions } from './bolt-core.js';
import type { SlackApp } from './slack-app.js';

/** A tenant's Slack side in OAuth mode: the shared front door hands it requests already verified. */
export interface TenantSlackApp extends SlackApp {
  /** Processes one verified request of this tenant (the shared receiver resolved the tenant). */
  receive(event: ReceiverEvent): Promise<void>;
}

/** Requests reach a tenant's Bolt app through `receive`, never through a port of its own. */
const dispatchedReceiver: Receiver = {
  init: () => undefined,
  start: async () => undefined,
  stop: async () => undefined,
};

/**
 * One tenant's Bolt app, listeners and gateway: every call carries the installation's current bot token (read
 * per call, so a rotated token applies at once), and the pacing is this tenant's alone.
 */
export function createTenantSlackApp(
  config: Config,
  logger: Logger,
  installation: () => TenantInstallation,
  options: SlackAppOptions = {},
): TenantSlackApp {
  const client = new RotatingTokenClient(() => installation().botToken, webClientOptions(config, logger));
  const core = boltCore({
    config,
    logger,
    receiver: dispatchedReceiver,
    authorize: async (source): Promise<AuthorizeResult> => {
      const current = installation();
      return {
        botToken: current.botToken,
        botId: current.botId,
        botUserId: current.botUserId,
        // An org-wide install serves each workspace of the org: the request's team, the install's org.
        teamId: source.teamId ?? current.teamId,
        enterpriseId: source.enterpriseId ?? current.enterpriseId,
      };
    },
    client,
    options,
  });
  return {
    gateway: core.gateway,
    mode: 'http',
    register: core.register,
    receive: (event) => core.app.processEvent(event),
    // The shared receiver listens; the installation names the bot, so there is nothing to check first.
    start: async () => 0,
    connected: () => true,
    drain: core.drain,
    stop: async () => undefined,
    close: () => core.gateway.close(),
  };
}
