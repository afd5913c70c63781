import type { App, BlockButtonAction } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { kindOf, type ScheduleKind } from '../../../insights/ports.js';
import { accessDeniedMessage } from '../../command-text.js';
import { restartedOn, WEEKLY_UNDO_ACTION } from '../../messages/shared-state.js';
import { sharedMessageRef } from '../../posted-message-edits.js';
import type { ButtonArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';
import { WEEKLY_KINDS } from './weekly-stop.js';

export type WeeklyUndoDeps = Pick<SlackDeps, 'access' | 'logger' | 'shared'> & {
  pageViews: { weekly: Pick<SlackDeps['pageViews']['weekly'], 'restore'> };
};

const COMMANDS: Record<ScheduleKind, string> = { page_views: '/docs-views', health: '/docs-health' };

export function registerWeeklyUndoAction(app: App, deps: RequestDeps<WeeklyUndoDeps>): void {
  app.action<BlockButtonAction>(WEEKLY_UNDO_ACTION, deps.each(weeklyUndoAction));
}

/**
 * Undo under a stopped weekly post: the schedule Stop removed (kept with the message, never read from the
 * button) is put back, by whoever may stop it (the same check), unless the channel set up posts of that
 * kind again meanwhile. The post then says who restarted them and when, with its Stop button again.
 */
export function weeklyUndoAction(deps: WeeklyUndoDeps) {
  return async ({ ack, body, action, respond }: ButtonArgs): Promise<void> => {
    await ack();
    const tell = (text: string) => respondSafely(respond, { text }, deps.logger, { replaceOriginal: false });
    const channelId = body.channel?.id;
    const ref =
      body.container?.type === 'message' ? sharedMessageRef(channelId, body.message?.ts) : undefined;
    const gone = 'This button no longer works. `/docs-views schedule` sets weekly posts up again.';
    if (!channelId || !ref || !deps.shared || !WEEKLY_KINDS.has(action.value ?? ''))
      return void (await tell(gone));
    const kind = action.value as ScheduleKind;
    const access = deps.access.check(body.user.id, channelId);
    if (!access.ok) return void (await tell(accessDeniedMessage(access.reason)));
    let restored: boolean;
    try {
      const schedule = await deps.shared.stoppedSchedule(ref.channel, ref.ts);
      if (!schedule || kindOf(schedule) !== kind || schedule.channelId !== channelId)
        return void (await tell(gone));
      restored = await deps.pageViews.weekly.restore(schedule);
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'could not restart a weekly post');
      return void (await tell(
        "I couldn't restart these posts (the bot's storage did not answer). Try again in a minute.",
      ));
    }
    deps.logger.info(
      { channelId, kind, userId: body.user.id, restored },
      'weekly post restarted from its Undo',
    );
    if (!restored) {
      await tell(
        `I left things as they are: this channel has weekly posts of this kind again, set up since. \`${COMMANDS[kind]} schedules\` shows them.`,
      );
      return;
    }
    await tell('Done: these weekly posts go on in this channel as before.');
    const userId = body.user.id;
    await deps.shared
      .change(ref.channel, ref.ts, body.message, (blocks, atMs) =>
        restartedOn(blocks, { userId, atMs, kind }),
      )
      .catch((error: unknown) => {
        deps.logger.warn(
          { channelId, error: describeError(error) },
          'could not mark the weekly post restarted',
        );
      });
  };
}
