import type { ReceiverEvent } from '@slack/bolt';
import type { Config } from '../common/config.js';
import { AppError, describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { TenantInstallation } from '../tenants/tenant.js';
import { type SlackAppOptions, webClientOptions } from './bolt-core.js';
import type { EdgeApp } from './edge-app.js';
import type { HttpRoute } from './http-edge.js';
import type { SlackApp } from './slack-app.js';
import { createTenantSlackApp } from './tenant-slack-app.js';
import { TOKEN_REJECTED } from './token-rejections.js';
import type { WebClients } from './web-clients.js';
import { createWorkspaceFrontDoor } from './workspace-front-door.js';

/**
 * Single-workspace mode's Slack side: the one workspace of SLACK_BOT_TOKEN served as OAuth mode serves a
 * tenant (issue 43 §6). Its requests come in through its own front door (HTTP, or Socket Mode) and run on
 * the process's one Bolt app with the tenant Slack side of the installation auth.test describes; its calls
 * go through the process's one WebClient. `installed` names another installation (tests of a tenant's scope).
 */
export function createWorkspaceSlackApp(
  config: Config,
  logger: Logger,
  routes: HttpRoute[],
  options: SlackAppOptions,
  edge: { app: EdgeApp; clients: WebClients },
  installed?: () => TenantInstallation | undefined,
): SlackApp {
  const token = config.slack.botToken;
  const client = edge.clients.for(token, webClientOptions(config, logger));
  let workspace: TenantInstallation | undefined;
  let identity: Promise<TenantInstallation> | undefined;
  /** auth.test once, kept on success; a failure is not kept, so the next request tries once Slack answers. */
  const identify = (): Promise<TenantInstallation> => {
    identity ??= client.auth.test().then((result) => {
      workspace = installationOf(token, result);
      return workspace;
    });
    return identity.catch((error: unknown) => {
      identity = undefined;
      throw error;
    });
  };
  const installation = installed ?? (() => workspace);
  const side = createTenantSlackApp(config, logger, installation, options, undefined, () => false, edge);
  const door = createWorkspaceFrontDoor(config, logger, routes, async (event: ReceiverEvent) => {
    await identify();
    return side.receive(event);
  });
  let authRetry: NodeJS.Timeout | undefined;
  const slackHost = new URL(config.slack.apiUrl ?? 'https://slack.com/api/').host;
  /** auth.test: a rejected token throws (start fails, the process exits); anything else retries. */
  const verifyAuth = async (): Promise<void> => {
    try {
      await identify();
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
    ...side,
    mode: door.mode,
    async start() {
      // Both modes check the token first: Socket Mode connects with the app token alone, so a wrong bot
      // token would otherwise look connected while every command fails.
      await verifyAuth();
      return door.start();
    },
    connected: () => workspace !== undefined && door.open(),
    async stop() {
      clearTimeout(authRetry);
      // The gateway stays open: acknowledged work and running polls still reply while the app drains.
      await door.stop();
    },
  };
}

/** The workspace's installation as auth.test describes its token (no "Add to Slack": nobody installed it here). */
function installationOf(
  botToken: string,
  result: { team_id?: string; team?: string; user_id?: string; bot_id?: string; enterprise_id?: string },
): TenantInstallation {
  const teamId = result.team_id;
  return {
    tenant: teamId ?? 'workspace',
    teamId,
    enterpriseId: result.enterprise_id,
    isEnterpriseInstall: false,
    name: result.team ?? 'this workspace',
    botToken,
    botUserId: result.user_id ?? '',
    botId: result.bot_id,
    refreshToken: undefined,
    expiresAt: undefined,
    installerUserId: '',
    scopes: [],
    appId: undefined,
    installedAt: 0,
  };
}
