import type { ScheduleKind } from '../../../insights/ports.js';
import type { Weekday } from '../../../insights/ranges/grammar.js';
import { describePageViewsFailure } from '../../messages/page-views-replies.js';
import {
  noScheduleHere,
  scheduleConfirmation,
  schedulesList,
  unscheduleReply,
} from '../../messages/schedule-replies.js';
import type { SlackDeps } from '../deps.js';

export type ScheduleCommand =
  | { kind: 'schedule'; weekday: Weekday; hour: number; minute: number; timeZone?: string | undefined }
  | { kind: 'schedules' }
  | { kind: 'unschedule' };

export interface WeeklyScheduleDeps extends Pick<SlackDeps, 'access' | 'limits'> {
  weekly: SlackDeps['pageViews']['weekly'];
  now(): number;
}

/**
 * `schedule`, `schedules` and `unschedule` of `/docs-views` and `/docs-health`: the same grammar, answers and
 * privacy rule for both kinds of weekly post, which share one store.
 */
export async function answerScheduleCommand(
  deps: WeeklyScheduleDeps,
  kind: ScheduleKind,
  parsed: ScheduleCommand,
  command: { user_id: string; channel_id: string },
): Promise<string> {
  try {
    switch (parsed.kind) {
      case 'schedule': {
        const result = await deps.weekly.schedule({
          kind,
          channelId: command.channel_id,
          userId: command.user_id,
          weekday: parsed.weekday,
          hour: parsed.hour,
          minute: parsed.minute,
          timeZone: parsed.timeZone ?? 'UTC',
        });
        return scheduleConfirmation(result.schedule, result.nextRun, result.replaced);
      }
      case 'schedules':
        return await listSchedules(deps, kind, command.user_id, command.channel_id);
      case 'unschedule':
        return unscheduleReply(await deps.weekly.unschedule(command.channel_id, kind), kind);
    }
  } catch (error) {
    return describePageViewsFailure(error, deps.now(), deps.limits);
  }
}

/**
 * Schedules name private channels and their creators: members see the current channel's only; the
 * workspace-wide list is for ADMIN_USER_IDS.
 */
async function listSchedules(
  deps: WeeklyScheduleDeps,
  kind: ScheduleKind,
  userId: string,
  channelId: string,
): Promise<string> {
  if (deps.access.isAdmin(userId))
    return schedulesList(await deps.weekly.list(undefined, kind), channelId, kind);
  const here = await deps.weekly.list(channelId, kind);
  return here.length === 0 ? noScheduleHere(kind) : schedulesList(here, channelId, kind);
}
