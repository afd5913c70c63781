import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type TokenRevokedDeps = Pick<SlackDeps, 'logger' | 'tokenRevoked' | 'installed'>;

interface RevocationSignal {
  event: { type: string; tokens?: { bot?: unknown } };
  body?: { event_time?: unknown };
}

/**
 * Whether a signal is about an earlier install than the one served now: Slack retries an event for a while,
 * so an `app_uninstalled` sent before the workspace installed the app again arrives after it. `installedAt`
 * is the latest install or re-install (never the first: a re-install after the signal was sent must not be
 * purged). Slack's `event_time` is in whole seconds: only a second that ended before the install is earlier.
 */
function beforeInstall(body: RevocationSignal['body'], installedAt: number): boolean {
  const seconds = body?.event_time;
  return typeof seconds === 'number' && Number.isFinite(seconds) && (seconds + 1) * 1000 <= installedAt;
}

/**
 * `app_uninstalled` and `tokens_revoked` (the bot's own token): the workspace took the bot away, so
 * nothing it owes can be sent any more. Single-workspace mode stops the process (main.ts exits non-zero):
 * an orchestrator restarts it or alerts, instead of a bot that stays up and fails every call. In OAuth mode
 * a signal counts only when it is about the install served now (its time, its bot user).
 */
export function tokenRevoked(deps: TokenRevokedDeps) {
  return async ({ event, body }: RevocationSignal): Promise<void> => {
    const install = deps.installed?.();
    if (event.type === 'tokens_revoked') {
      const bots = event.tokens?.bot;
      // A user token revoked (none of ours) leaves the bot working.
      if (!Array.isArray(bots) || bots.length === 0) return;
      if (install && !bots.includes(install.botUserId)) {
        deps.logger.info({ event: event.type }, 'Slack revoked another bot’s token, not ours; nothing to do');
        return;
      }
    }
    if (install && beforeInstall(body, install.lastInstalledAt ?? install.installedAt)) {
      const what = 'an uninstall signal from before the app was installed again; ignored';
      deps.logger.info({ event: event.type }, what);
      return;
    }
    deps.logger.warn({ event: event.type }, 'Slack says the app was uninstalled or its token revoked');
    deps.tokenRevoked?.(
      event.type === 'app_uninstalled' ? 'the app was uninstalled' : 'the bot token was revoked',
    );
  };
}

export function registerTokenRevoked(app: App, deps: RequestDeps<TokenRevokedDeps>): void {
  app.event('app_uninstalled', deps.each(tokenRevoked) as never);
  app.event('tokens_revoked', deps.each(tokenRevoked) as never);
}
