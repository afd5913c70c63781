import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import type { Weekday } from '../../../insights/ranges/grammar.js';
import { FORM_NOT_OPENED_TEXT, weeklyRemovedText } from '../../messages/home-forms-words.js';
import {
  HOME_WEEKLY_ADD_ACTION,
  HOME_WEEKLY_MENU_ACTION,
  parseWeeklyChoice,
  weeklyFormView,
  weeklyRemoveView,
} from '../../messages/home-schedules-form.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type HomeScheduleOpenDeps = Pick<SlackDeps, 'logger' | 'afterAck' | 'home'> & {
  pageViews: { weekly: Pick<SlackDeps['pageViews']['weekly'], 'list'> };
};

/** What of users.info the forms read: the viewer's time zone. */
export interface ViewerZoneReader {
  users: { info(args: { user: string }): Promise<{ user?: { tz?: string } }> };
}

/** The parts of the `block_actions` payload of Home's weekly-post buttons read here. */
export interface HomeScheduleOpenArgs {
  ack: () => Promise<void>;
  body: { trigger_id: string; user: { id: string }; team?: { id: string } | null };
  action: { selected_option?: { value?: string } };
  client: ViewerZoneReader & {
    views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> };
    chat: { postMessage(args: { channel: string; text: string }): Promise<unknown> };
  };
}

export function registerHomeScheduleOpen(app: App, deps: RequestDeps<HomeScheduleOpenDeps>): void {
  app.action(HOME_WEEKLY_ADD_ACTION, deps.each(homeScheduleOpen) as never);
  app.action(HOME_WEEKLY_MENU_ACTION, deps.each(homeScheduleOpen) as never);
}

/** The viewer's IANA zone as Slack knows it (users.info `tz`); undefined if Slack did not say. */
export async function viewerZone(
  client: ViewerZoneReader,
  userId: string,
  logger: SlackDeps['logger'],
): Promise<string | undefined> {
  try {
    const tz = (await client.users.info({ user: userId })).user?.tz;
    return typeof tz === 'string' && tz.length > 0 && tz.length <= 64 ? tz : undefined;
  } catch (error) {
    logger.warn({ error: describeError(error) }, "could not read the viewer's time zone");
    return undefined;
  }
}

/** An instant's weekday, hour and minute in a zone (what the form shows of a post's next run). */
export function localTime(ms: number, timeZone: string): { weekday: Weekday; hour: number; minute: number } {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone,
    weekday: 'short',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(new Date(ms));
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  const weekday = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'].indexOf(part('weekday'));
  return {
    weekday: Math.max(0, weekday) as Weekday,
    hour: Number(part('hour')),
    minute: Number(part('minute')),
  };
}

/**
 * [Add weekly post] and a post's ⋯ menu on Home: the form in the viewer's time zone (Edit: prefilled with
 * the post's next run in that zone), or the question before Remove. Nothing is changed here: the forms'
 * submissions check access and save (home-schedule-submission.ts).
 */
export function homeScheduleOpen(deps: HomeScheduleOpenDeps) {
  return async ({ ack, body, action, client }: HomeScheduleOpenArgs): Promise<void> => {
    await ack();
    const userId = body.user.id;
    const tell = (text: string) =>
      client.chat.postMessage({ channel: userId, text }).catch((e: unknown) => {
        deps.logger.warn({ error: describeError(e) }, 'could not tell the user in their app DM');
      });
    const choice = parseWeeklyChoice(action.selected_option?.value);
    if (action.selected_option && !choice) return;
    try {
      if (choice?.choice === 'remove') {
        await client.views.open({ trigger_id: body.trigger_id, view: weeklyRemoveView(choice.ref) });
        return;
      }
      // The trigger lives 3 s: one users.info and, to edit, one read of the store before the form opens.
      const [timeZone, current] = await Promise.all([
        viewerZone(client, userId, deps.logger),
        choice ? deps.pageViews.weekly.list(choice.ref.channelId, choice.ref.kind) : Promise.resolve([]),
      ]);
      const schedule = current[0];
      if (choice && !schedule) {
        await tell(weeklyRemovedText(choice.ref, false));
        if (deps.home) deps.afterAck(() => deps.home!.opened(body.team?.id ?? null, userId));
        return;
      }
      const at = schedule?.nextRun ? localTime(schedule.nextRun, timeZone ?? 'UTC') : undefined;
      const view = weeklyFormView({
        timeZone,
        ...(choice ? { editing: { ...choice.ref, ...(at ?? {}) } } : {}),
      });
      await client.views.open({ trigger_id: body.trigger_id, view });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not open the weekly-post form from Home');
      await tell(FORM_NOT_OPENED_TEXT);
    }
  };
}
