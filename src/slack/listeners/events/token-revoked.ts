import type { App } from '@slack/bolt';
import type { SlackDeps } from '../deps.js';

export type TokenRevokedDeps = Pick<SlackDeps, 'logger' | 'tokenRevoked'>;

/**
 * `app_uninstalled` and `tokens_revoked` (the bot's own token): the workspace took the bot away, so
 * nothing it owes can be sent any more. Single-workspace mode stops the process (main.ts exits non-zero):
 * an orchestrator restarts it or alerts, instead of a bot that stays up and fails every call.
 */
export function tokenRevoked(deps: TokenRevokedDeps) {
  return async ({ event }: { event: { type: string; tokens?: { bot?: unknown } } }): Promise<void> => {
    if (event.type === 'tokens_revoked') {
      const bots = event.tokens?.bot;
      // A user token revoked (none of ours) leaves the bot working.
      if (!Array.isArray(bots) || bots.length === 0) return;
    }
    deps.logger.warn({ event: event.type }, 'Slack says the app was uninstalled or its token revoked');
    deps.tokenRevoked?.(
      event.type === 'app_uninstalled' ? 'the app was uninstalled' : 'the bot token was revoked',
    );
  };
}

export function registerTokenRevoked(app: App, deps: TokenRevokedDeps): void {
  app.event('app_uninstalled', tokenRevoked(deps) as never);
  app.event('tokens_revoked', tokenRevoked(deps) as never);
}
