import type { App, BlockOverflowAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { accessDeniedMessage } from '../../command-text.js';
import { ALERT_MENU_ACTION, MUTE_SIGNAL_PREFIX } from '../../messages/health-alert.js';
import type { SlackDeps } from '../deps.js';
import { respondSafely } from '../respond-safely.js';

export type AlertMenuDeps = Pick<SlackDeps, 'access' | 'logger'> & {
  health?: { alerts?: Pick<NonNullable<NonNullable<SlackDeps['health']>['alerts']>, 'muteSignal'> };
};

export type AlertMenuArgs = Pick<
  SlackActionMiddlewareArgs<BlockOverflowAction>,
  'ack' | 'body' | 'action' | 'respond'
>;

/** A signal hash as `shortHash` writes it: 16 base64url characters. */
const SIGNAL_HASH = /^[A-Za-z0-9_-]{16}$/;

export function registerAlertMenuAction(app: App, deps: AlertMenuDeps): void {
  app.action<BlockOverflowAction>(ALERT_MENU_ACTION, alertMenuAction(deps) as never);
}

/**
 * The alert's overflow menu: "Mute this signal for 7 days" mutes that signal in this channel (in the alert
 * store, so every replica's next check skips it); the channel's other signals still alert. Who may is who
 * may turn the channel's alerts on or off. The answer is ephemeral, to the person who chose it.
 */
export function alertMenuAction(deps: AlertMenuDeps) {
  return async ({ ack, body, action, respond }: AlertMenuArgs): Promise<void> => {
    await ack();
    const tell = (text: string) => respondSafely(respond, { text }, deps.logger, { replaceOriginal: false });
    const channelId = body.channel?.id;
    const value = action.selected_option?.value ?? '';
    const hash = value.startsWith(MUTE_SIGNAL_PREFIX) ? value.slice(MUTE_SIGNAL_PREFIX.length) : '';
    const alerts = deps.health?.alerts;
    if (!channelId || !SIGNAL_HASH.test(hash) || !alerts) {
      await tell('This menu no longer works. `/docs-health alerts` shows this channel’s alerts.');
      return;
    }
    const access = deps.access.check(body.user.id, channelId);
    if (!access.ok) {
      await tell(accessDeniedMessage(access.reason, access.ask));
      return;
    }
    try {
      await alerts.muteSignal(channelId, hash);
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'could not mute an alert signal');
      await tell("I couldn't mute this signal (the bot's storage did not answer). Try again in a minute.");
      return;
    }
    deps.logger.info({ channelId, userId: body.user.id }, 'docs-health alert signal muted for 7 days');
    await tell(
      `:no_bell: Muted: this signal won't alert in <#${channelId}> for 7 days. Other signals still do; \`/docs-health alerts off\` stops them all.`,
    );
  };
}
