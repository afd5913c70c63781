import { webApi } from '@slack/bolt';
import { withTrailingSlash } from '../bolt-core.js';
import { TOKEN_REJECTED, tokenAcceptedBy } from '../token-rejections.js';

export interface RefreshedToken {
  botToken: string;
  refreshToken: string | undefined;
  /** Seconds the new token lives (token rotation), when Slack says. */
  expiresIn: number | undefined;
}

/** Token rotation: trades a refresh token for a new bot token (oauth.v2.access, grant_type=refresh_token). */
export class BotTokenRefresher {
  private readonly client: webApi.WebClient;

  constructor(
    private readonly app: { clientId: string; clientSecret: string },
    options: { slackApiUrl: string | undefined; timeoutMs: number },
  ) {
    // No logger of the client's own: at debug level it would write the client secret and refresh token.
    this.client = new webApi.WebClient(undefined, {
      ...(options.slackApiUrl ? { slackApiUrl: withTrailingSlash(options.slackApiUrl) } : {}),
      timeout: options.timeoutMs,
      retryConfig: { retries: 0 },
      logLevel: webApi.LogLevel.ERROR,
    });
  }

  async refresh(refreshToken: string): Promise<RefreshedToken> {
    const answer = (await this.client.oauth.v2.access({
      client_id: this.app.clientId,
      client_secret: this.app.clientSecret,
      grant_type: 'refresh_token',
      refresh_token: refreshToken,
    })) as { access_token?: string; refresh_token?: string; expires_in?: number };
    if (!answer.access_token) throw new Error('oauth.v2.access answered without a token');
    return {
      botToken: answer.access_token,
      refreshToken: answer.refresh_token,
      expiresIn: answer.expires_in,
    };
  }

  /** Asks Slack whether it takes a bot token (auth.test): false when refused, undefined when it could not tell. */
  accepted(token: string): Promise<boolean | undefined> {
    return tokenAcceptedBy((args) => this.client.auth.test(args), token);
  }
}

/**
 * Slack refused the refresh (its refresh token spent or revoked, the app's access gone): trying the same one
 * again will not work. A time-out or a network error is not a refusal (Slack may never have seen it).
 */
export function refreshRefused(error: unknown): string | undefined {
  const code = (error as { data?: { error?: unknown } }).data?.error;
  return typeof code === 'string' &&
    (code === 'invalid_refresh_token' || (code !== 'not_authed' && TOKEN_REJECTED.has(code)))
    ? code
    : undefined;
}
