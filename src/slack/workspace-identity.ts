import type { webApi } from '@slack/bolt';
import { AppError, describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { TenantInstallation } from '../tenants/tenant.js';
import { TOKEN_REJECTED } from './token-rejections.js';

/**
 * Single-workspace mode's installation: what auth.test says of SLACK_BOT_TOKEN (its workspace, its bot user),
 * asked once and kept on success. Start checks it first (a refused token fails start with what to do;
 * Slack unreachable: not ready, asked again every 10 s); a request before it is known asks again.
 */
export class WorkspaceIdentity {
  private known: TenantInstallation | undefined;
  private asking: Promise<TenantInstallation> | undefined;
  private retry: NodeJS.Timeout | undefined;
  private readonly host: string;

  constructor(
    private readonly token: string,
    private readonly client: Pick<webApi.WebClient, 'auth'>,
    private readonly logger: Logger,
    apiUrl: string | undefined,
  ) {
    this.host = new URL(apiUrl ?? 'https://slack.com/api/').host;
  }

  installation(): TenantInstallation | undefined {
    return this.known;
  }

  /** auth.test once, kept on success; a failure is not kept, so the next ask tries once Slack answers. */
  identify(): Promise<TenantInstallation> {
    this.asking ??= this.client.auth.test().then((result) => {
      this.known = installationOf(this.token, result);
      return this.known;
    });
    return this.asking.catch((error: unknown) => {
      this.asking = undefined;
      throw error;
    });
  }

  /** Start's check: a refused token throws (the process exits); Slack unreachable retries in the background. */
  async verify(): Promise<void> {
    try {
      await this.identify();
    } catch (error) {
      const code = (error as { data?: { error?: unknown } }).data?.error;
      if (typeof code === 'string' && TOKEN_REJECTED.has(code)) {
        throw new AppError(
          'slack_token_rejected',
          `Slack rejected SLACK_BOT_TOKEN (auth.test: ${code}): copy the Bot User OAuth Token (xoxb-…) from OAuth & Permissions again, or reinstall the app`,
        );
      }
      this.logger.warn(
        { error: describeError(error), host: this.host },
        `could not check the bot token with Slack at ${this.host} (auth.test); not ready; retrying auth.test in 10 s`,
      );
      this.retry = setTimeout(() => {
        this.verify().catch((rejected: unknown) =>
          this.logger.error({ error: describeError(rejected) }, String(rejected)),
        );
      }, 10_000);
      this.retry.unref();
    }
  }

  stop(): void {
    clearTimeout(this.retry);
  }
}

/** The workspace's installation as auth.test describes its token (nobody installed it through "Add to Slack"). */
function installationOf(
  botToken: string,
  result: { team_id?: string; team?: string; user_id?: string; bot_id?: string; enterprise_id?: string },
): TenantInstallation {
  return {
    tenant: result.team_id ?? 'workspace',
    teamId: result.team_id,
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
