import type { App, BlockButtonAction } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { accessDeniedMessage } from '../../command-text.js';
import { ALERT_LOOK_ACTION, lookingOn } from '../../messages/shared-state.js';
import { sharedMessageRef } from '../../posted-message-edits.js';
import type { ButtonArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';

export type AlertLookDeps = Pick<SlackDeps, 'access' | 'logger' | 'shared'>;

/** A Slack user id as payloads carry it (it goes into the alert as a mention). */
const USER_ID = /^[UW][A-Z0-9]{2,}$/;

export function registerAlertLookAction(app: App, deps: RequestDeps<AlertLookDeps>): void {
  app.action<BlockButtonAction>(ALERT_LOOK_ACTION, deps.each(alertLookAction));
}

/**
 * "I'll look" under a docs-health alert: the alert says, for everyone, who is looking and since when (the
 * shared message's change, as Mute's). Who may is who may mute it. Clicking again changes nothing.
 */
export function alertLookAction(deps: AlertLookDeps) {
  return async ({ ack, body, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const tell = (text: string) => respondSafely(respond, { text }, deps.logger, { replaceOriginal: false });
    const channelId = body.channel?.id;
    const userId = body.user.id;
    const ref =
      body.container?.type === 'message' ? sharedMessageRef(channelId, body.message?.ts) : undefined;
    if (!channelId || !ref || !deps.shared || !USER_ID.test(userId)) {
      await tell('This button no longer works. `/docs-health alerts` shows this channel’s alerts.');
      return;
    }
    const access = deps.access.check(userId, channelId);
    if (!access.ok) {
      await tell(accessDeniedMessage(access.reason, access.ask));
      return;
    }
    let changed: boolean;
    try {
      changed = await deps.shared.change(ref.channel, ref.ts, body.message, (blocks, atMs) =>
        lookingOn(blocks, { userId, atMs }),
      );
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'could not mark the alert looked at');
      await tell("I couldn't mark the alert (the bot's storage did not answer). Try again in a minute.");
      return;
    }
    deps.logger.info({ channelId, userId, changed }, 'someone is looking at a docs-health alert');
    await tell(
      changed
        ? 'Thanks: I marked the alert so everyone sees you’re looking into it.'
        : 'I left the alert as it is: it already says you’re looking (or has no room for more names).',
    );
  };
}
