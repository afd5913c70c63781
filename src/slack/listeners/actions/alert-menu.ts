import type { App, BlockOverflowAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { MUTE_MS } from '../../../insights/alerts/health-alerts.js';
import { accessDeniedMessage } from '../../command-text.js';
import { ALERT_MENU_ACTION, MUTE_SIGNAL_PREFIX } from '../../messages/health-alert.js';
import { sharedMessageRef } from '../../posted-message-edits.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';

export type AlertMenuDeps = Pick<SlackDeps, 'access' | 'logger' | 'shared'> & {
  health?: { alerts?: Pick<NonNullable<NonNullable<SlackDeps['health']>['alerts']>, 'muteSignal'> };
};

export type AlertMenuArgs = Pick<
  SlackActionMiddlewareArgs<BlockOverflowAction>,
  'ack' | 'body' | 'action' | 'respond'
>;

/** A signal hash as `shortHash` writes it: 16 base64url characters. */
const SIGNAL_HASH = /^[A-Za-z0-9_-]{16}$/;

export function registerAlertMenuAction(app: App, deps: RequestDeps<AlertMenuDeps>): void {
  app.action<BlockOverflowAction>(ALERT_MENU_ACTION, deps.each(alertMenuAction) as never);
}

/**
 * The alert's overflow menu: "Mute this signal for 7 days" mutes that signal in this channel (in the alert
 * store, so every replica's next check skips it); the channel's other signals still alert. Who may is who
 * may turn the channel's alerts on or off. The alert then says who muted it and until when, for everyone;
 * the person who chose it is also answered privately.
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
    // The alert itself says so, for everyone: who muted it and until when (its mute menu goes).
    const ref =
      body.container?.type === 'message' ? sharedMessageRef(channelId, body.message?.ts) : undefined;
    if (ref && deps.shared) {
      // The line and the edit owed at its end name the same instant (the store's mute ends within a moment).
      await deps.shared
        .muted(ref.channel, ref.ts, body.message, { userId: body.user.id, forMs: MUTE_MS, signal: hash })
        .catch((error: unknown) => {
          deps.logger.warn({ channelId, error: describeError(error) }, 'could not mark the alert muted');
        });
    }
    await tell(
      `:no_bell: Muted: this signal won't alert in <#${channelId}> for 7 days. Other signals still do; \`/docs-health alerts off\` stops them all.`,
    );
  };
}
