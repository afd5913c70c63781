import type { App, BlockButtonAction } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import type { ScheduleKind } from '../../../insights/ports.js';
import { accessDeniedMessage } from '../../command-text.js';
import { unscheduleReply } from '../../messages/schedule-replies.js';
import { WEEKLY_STOP_ACTION } from '../../messages/weekly-post.js';
import type { ButtonArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import { respondSafely } from '../respond-safely.js';

export type WeeklyStopDeps = Pick<SlackDeps, 'access' | 'pageViews' | 'logger'>;

const KINDS: ReadonlySet<string> = new Set<ScheduleKind>(['page_views', 'health']);

export function registerWeeklyStopAction(app: App, deps: WeeklyStopDeps): void {
  app.action<BlockButtonAction>(WEEKLY_STOP_ACTION, weeklyStopAction(deps));
}

/**
 * "Stop these posts" under a weekly post (after Slack's confirm): the channel's schedule of that kind is
 * removed, as `unschedule` does, by whoever may use the command in this channel (checked again on the
 * click). The answer is private; the post itself stays.
 */
export function weeklyStopAction(deps: WeeklyStopDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const tell = (text: string) => respondSafely(respond, { text }, deps.logger, { replaceOriginal: false });
    const channelId = body.channel?.id;
    if (!channelId || !KINDS.has(action.value ?? '')) {
      await tell('This button no longer works. `/docs-views schedules` lists this channel’s weekly posts.');
      return;
    }
    const kind = action.value as ScheduleKind;
    const access = deps.access.check(body.user.id, channelId);
    if (!access.ok) {
      await tell(accessDeniedMessage(access.reason, access.ask));
      return;
    }
    try {
      const removed = await deps.pageViews.weekly.unschedule(channelId, kind);
      if (removed)
        deps.logger.info({ channelId, kind, userId: body.user.id }, 'weekly post stopped from its button');
      await tell(unscheduleReply(removed, kind));
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'could not stop a weekly post');
      await tell("I couldn't stop these posts (the bot's storage did not answer). Try again in a minute.");
    }
  };
}
