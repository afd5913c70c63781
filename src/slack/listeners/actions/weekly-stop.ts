import type { App, BlockButtonAction } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import type { ScheduleKind } from '../../../insights/ports.js';
import { accessDeniedMessage } from '../../command-text.js';
import { unscheduleReply } from '../../messages/schedule-replies.js';
import { stoppedOn } from '../../messages/shared-state.js';
import { WEEKLY_STOP_ACTION } from '../../messages/weekly-post.js';
import { sharedMessageRef } from '../../posted-message-edits.js';
import type { ButtonArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';

export type WeeklyStopDeps = Pick<SlackDeps, 'access' | 'logger' | 'shared'> & {
  pageViews: { weekly: Pick<SlackDeps['pageViews']['weekly'], 'removeSchedule'> };
};

export const WEEKLY_KINDS: ReadonlySet<string> = new Set<ScheduleKind>(['page_views', 'health']);

export function registerWeeklyStopAction(app: App, deps: RequestDeps<WeeklyStopDeps>): void {
  app.action<BlockButtonAction>(WEEKLY_STOP_ACTION, deps.each(weeklyStopAction));
}

/**
 * "Stop these posts" under a weekly post (after Slack's confirm): the channel's schedule of that kind is
 * removed, as `unschedule` does, by whoever may use the command in this channel (checked again on the
 * click). The post then says who stopped them and when, for everyone, with Undo (the schedule as it was is
 * kept with the message); the person is also answered privately.
 */
export function weeklyStopAction(deps: WeeklyStopDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const tell = (text: string) => respondSafely(respond, { text }, deps.logger, { replaceOriginal: false });
    const channelId = body.channel?.id;
    if (!channelId || !WEEKLY_KINDS.has(action.value ?? '')) {
      await tell('This button no longer works. `/docs-views schedules` lists this channel’s weekly posts.');
      return;
    }
    const kind = action.value as ScheduleKind;
    const access = deps.access.check(body.user.id, channelId);
    if (!access.ok) {
      await tell(accessDeniedMessage(access.reason, access.ask));
      return;
    }
    let stopped: Awaited<ReturnType<WeeklyStopDeps['pageViews']['weekly']['removeSchedule']>>;
    try {
      stopped = await deps.pageViews.weekly.removeSchedule(channelId, kind);
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'could not stop a weekly post');
      await tell("I couldn't stop these posts (the bot's storage did not answer). Try again in a minute.");
      return;
    }
    if (stopped.removed)
      deps.logger.info({ channelId, kind, userId: body.user.id }, 'weekly post stopped from its button');
    await tell(unscheduleReply(stopped.removed, kind));
    const ref =
      body.container?.type === 'message' ? sharedMessageRef(channelId, body.message?.ts) : undefined;
    const { schedule } = stopped;
    if (!ref || !schedule || !deps.shared) return;
    const userId = body.user.id;
    await deps.shared
      .change(
        ref.channel,
        ref.ts,
        body.message,
        (blocks, atMs) => stoppedOn(blocks, { userId, atMs, kind }),
        {
          stopped: schedule,
        },
      )
      .catch((error: unknown) => {
        deps.logger.warn(
          { channelId, error: describeError(error) },
          'could not mark the weekly post stopped',
        );
      });
  };
}
