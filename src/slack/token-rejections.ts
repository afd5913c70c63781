import type { Logger } from '../common/logger.js';
import type { AttemptFailure } from '../delivery/ports.js';

/** Slack's answers when it does not accept the bot token (wrong, revoked, or its workspace or user gone). */
export const TOKEN_REJECTED: ReadonlySet<string> = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'account_inactive',
]);

export interface TokenRejectionOptions {
  logger: Logger;
  /** How long refusals of the token are "not sent, later" before they count as permanent (15 min). */
  windowMs?: number;
  /** Wait before the next attempt of a message refused for the token (30 s). */
  retryAfterMs?: number;
  /**
   * OAuth mode: the token is a tenant's install, kept current from the directory (rotation, re-install), so
   * the message says so and the next attempt comes as soon as the directory has been read again.
   */
  tenant?: boolean;
  now?: () => number;
}

export const TOKEN_REJECTION_WINDOW_MS = 15 * 60_000;
const TOKEN_RETRY_AFTER_MS = 30_000;
/** OAuth mode: a replica reads the directory every 2 s, and at once after a refusal. */
const TENANT_TOKEN_RETRY_AFTER_MS = 3_000;

/**
 * A token change (the app reinstalled, a token rotated, the secret updated replica by replica) makes Slack
 * refuse this process's token for a while, although the replicas started with the new one accept it. What
 * the bot owes is kept meanwhile: a refusal of the token is "not sent, retry later" (another replica, or
 * this one once restarted, delivers it) for a bounded window from the first refusal; only a token still
 * refused after the window abandons messages. Said once, clearly, per episode; a call Slack accepts ends it.
 */
export class TokenRejections {
  private since: number | undefined;
  private toldPermanent = false;
  private readonly now: () => number;

  constructor(private readonly options: TokenRejectionOptions) {
    this.now = options.now ?? Date.now;
  }

  /** How an attempt refused with `code` ends, or undefined when `code` is no refusal of the token. */
  failureOf(code: string): AttemptFailure | undefined {
    if (!TOKEN_REJECTED.has(code)) return undefined;
    const now = this.now();
    const windowMs = this.options.windowMs ?? TOKEN_REJECTION_WINDOW_MS;
    if (this.since === undefined) {
      this.since = now;
      this.options.logger[this.options.tenant ? 'warn' : 'error'](
        { code, keptForMinutes: Math.round(windowMs / 60_000) },
        this.options.tenant
          ? "Slack refuses the workspace's bot token: rotated a moment ago, or the app uninstalled (then the " +
              'workspace stops here shortly). Messages the bot owes are kept and retried with the current token'
          : 'Slack refuses the bot token (SLACK_BOT_TOKEN): check it was not revoked or replaced by a reinstall. ' +
              'Messages the bot owes are kept and retried meanwhile (any replica with a valid token delivers them)',
      );
    }
    const retryAfterMs =
      this.options.retryAfterMs ?? (this.options.tenant ? TENANT_TOKEN_RETRY_AFTER_MS : TOKEN_RETRY_AFTER_MS);
    if (now - this.since < windowMs) return { kind: 'not_sent', code, retryAfterMs };
    if (!this.toldPermanent) {
      this.toldPermanent = true;
      this.options.logger.error(
        { code },
        'Slack still refuses the bot token: messages this replica owes are abandoned from now on',
      );
    }
    return { kind: 'permanent', code };
  }

  /** Slack accepted a call: the token works (again). */
  accepted(): void {
    if (this.since === undefined) return;
    this.since = undefined;
    this.toldPermanent = false;
    this.options.logger.info({}, 'Slack accepts the bot token again');
  }
}

/**
 * Slack's answer to auth.test with one token: true when it takes it, false when it refused it, undefined when
 * it could not tell (no answer, or not_authed: no token reached Slack, a proxy dropped it).
 */
export async function tokenAcceptedBy(
  authTest: (args: { token: string }) => Promise<unknown>,
  token: string,
): Promise<boolean | undefined> {
  try {
    await authTest({ token });
    return true;
  } catch (error) {
    const code = (error as { data?: { error?: unknown } }).data?.error;
    return typeof code === 'string' && code !== 'not_authed' && TOKEN_REJECTED.has(code) ? false : undefined;
  }
}
