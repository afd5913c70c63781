import type { ReceiverEvent } from '@slack/bolt';
import type { Config } from '../common/config.js';
import { AppError, describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { TenantInstallation } from '../tenants/tenant.js';
import { InFlight, listenerDeps, type SlackAppOptions, slackGateway, webClientOptions } from './bolt-core.js';
import type { EdgeApp, EdgeTenant } from './edge-app.js';
import type { SlackDeps } from './listeners/index.js';
import { holdHomeView } from './messages/hold-home.js';
import type { SlackApp } from './slack-app.js';
import { tokenAcceptedBy } from './token-rejections.js';
import { scopeClient, type WebClients } from './web-clients.js';

/** A verified request from Slack, as the shared front door hands it over. */
export type InboundRequest = ReceiverEvent;

/** A tenant's Slack side in OAuth mode: the shared front door hands it requests already verified. */
export interface TenantSlackApp extends SlackApp {
  /** Processes one verified request of this tenant (the shared receiver resolved the tenant). */
  receive(event: ReceiverEvent): Promise<void>;
  /** Asks Slack whether it takes `token` (auth.test): false when refused, undefined when it could not tell. */
  tokenAccepted(token: string): Promise<boolean | undefined>;
  /**
   * On hold with a token Slack may still take (needs re-install): one Home saying what happened and how to
   * fix it, for the person who opened it. The only call such a tenant makes; a refusal is only logged.
   */
  publishHoldHome(userId: string, notice: string): Promise<void>;
}

/**
 * One tenant's Slack side: its gateway (its pacing alone), its listeners' deps and their work in flight.
 * Every call carries the installation's current bot token (read per call, so a rotated token applies at
 * once). Its requests are processed by the process's one Bolt app (`edge`), which reaches these per request.
 */
export function createTenantSlackApp(
  config: Config,
  logger: Logger,
  installation: () => TenantInstallation | undefined,
  options: SlackAppOptions,
  /** A newer token than `refused` in the directory (rotated elsewhere a moment ago), if there is one. */
  renewToken: ((refused: string) => Promise<string | undefined>) | undefined,
  /** Suspended or needing a re-install: requests are still read (an uninstall among them), no call leaves. */
  onHold: () => boolean,
  /** The process's one Bolt app and its WebClients by token (one cache for every tenant). */
  edge: { app: EdgeApp; clients: WebClients },
): TenantSlackApp {
  const current = (): TenantInstallation => {
    const now = installation();
    // Uninstalled: not one more call with its token, whatever was still on its way out.
    if (!now) throw new AppError('tenant_uninstalled', 'this workspace uninstalled the app');
    return now;
  };
  const client = scopeClient(
    () => {
      // Unanswered rather than refused: what the bot owes waits in the outbox until the hold is lifted.
      if (onHold()) throw new AppError('tenant_on_hold', 'this workspace’s Slack access is on hold');
      return current().botToken;
    },
    edge.clients,
    webClientOptions(config, logger),
    renewToken,
  );
  const gateway = slackGateway(config, logger, client, options);
  const inFlight = new InFlight(logger);
  let registered: SlackDeps | undefined;
  const tenant: EdgeTenant = {
    authorize: (source) => {
      const now = current();
      return {
        // A token rotated on another replica a moment ago replaces the refused one here too (views.open).
        botToken: client.tokenFor(now.botToken),
        botId: now.botId,
        botUserId: now.botUserId,
        // The installation's team, never the request's (a shared channel's request may name another team);
        // an org-wide install serves each workspace of the org: the request's team there, the install's org.
        teamId: now.isEnterpriseInstall ? (source.teamId ?? now.teamId) : now.teamId,
        enterpriseId: now.isEnterpriseInstall ? now.enterpriseId : (source.enterpriseId ?? now.enterpriseId),
        // What the external-user check compares the person's team with: this install's workspace, or for an
        // org-wide install its org (the org's own people are let in from any of its workspaces).
        installedTeamId: now.isEnterpriseInstall ? undefined : now.teamId,
        orgWideEnterpriseId: now.isEnterpriseInstall ? now.enterpriseId : undefined,
      };
    },
    orgWide: () => installation()?.isEnterpriseInstall === true,
    deps: () => {
      if (!registered)
        throw new AppError('tenant_not_composed', 'this workspace’s listeners are not set up yet');
      return registered;
    },
    inFlight,
    logger,
  };
  return {
    gateway,
    mode: 'http',
    register: (deps) => {
      registered = listenerDeps(deps, gateway, logger, inFlight, config.slack.appTier);
    },
    receive: (event) => edge.app.receive(event, tenant),
    // Outside the gateway: a refusal here is the answer asked for, not one more refusal to report.
    tokenAccepted: (token) => tokenAcceptedBy((args) => client.auth.test(args), token),
    publishHoldHome: async (userId, notice) => {
      const now = installation();
      if (!now) return;
      try {
        await client.views.publish({ token: now.botToken, user_id: userId, view: holdHomeView(notice) });
      } catch (error) {
        logger.info({ error: describeError(error) }, 'could not show the re-install notice on Home');
      }
    },
    // The shared receiver listens; the installation names the bot, so there is nothing to check first.
    start: async () => 0,
    connected: () => true,
    drain: (timeoutMs) => inFlight.drain(timeoutMs),
    stop: async () => undefined,
    close: () => gateway.close(),
  };
}
