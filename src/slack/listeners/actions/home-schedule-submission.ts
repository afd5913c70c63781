import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { isValidTimeZone } from '../../../insights/ranges/dates.js';
import { accessDeniedMessage } from '../../command-text.js';
import {
  FORM_STORAGE_TEXT,
  FORM_UNREADABLE_TEXT,
  formMembershipProblem,
  nothingChangedAnswer,
  weeklyRemovedText,
  weeklySavedText,
  weeklyTakenText,
} from '../../messages/home-forms-words.js';
import {
  parseWeeklyRemove,
  parseWeeklySubmission,
  type SubmittedFormView,
  WEEKLY_CHANNEL_BLOCK,
  WEEKLY_FORM_CALLBACK_ID,
  WEEKLY_REMOVE_CALLBACK_ID,
  WEEKLY_TIME_BLOCK,
} from '../../messages/home-schedules-form.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { type PrivateAnswerClient, tellPrivately } from '../tell-privately.js';
import { checkChannelMembership, type MembersReader } from './channel-membership.js';

export type HomeScheduleSubmissionDeps = Pick<SlackDeps, 'access' | 'logger' | 'afterAck' | 'home'> & {
  pageViews: { weekly: Pick<SlackDeps['pageViews']['weekly'], 'schedule' | 'list' | 'removeSchedule'> };
};

/** The answer that keeps the form open with words under one field. */
export interface FormErrors {
  response_action: 'errors';
  errors: Record<string, string>;
}

export interface HomeScheduleSubmissionArgs {
  ack: (response?: FormErrors) => Promise<void>;
  body: { user: { id: string }; team?: { id: string } | null; view: SubmittedFormView };
  client: PrivateAnswerClient & MembersReader;
  context?: { botUserId?: string };
}

export function registerHomeScheduleSubmission(
  app: App,
  deps: RequestDeps<HomeScheduleSubmissionDeps>,
): void {
  app.view(WEEKLY_FORM_CALLBACK_ID, deps.each(homeScheduleSubmission) as never);
  app.view(WEEKLY_REMOVE_CALLBACK_ID, deps.each(homeScheduleRemoval) as never);
}

export const inField = (block: string, text: string): FormErrors => ({
  response_action: 'errors',
  errors: { [block]: text },
});

/**
 * Home's weekly-post form submitted. Asked again now, as `/docs-views schedule` asks: the person may use
 * docs-agent in the channel (the access lists), both they and the bot are in it (so the post can land);
 * one post per kind per channel. An edit saves under the same schedule when its channel and kind stay (the
 * store's key: no second schedule, the next run moves); moved elsewhere, the new one is saved before the old
 * one is removed, so a failure between the two loses no post. The cron is one croner pattern in the zone.
 */
export function homeScheduleSubmission(deps: HomeScheduleSubmissionDeps) {
  return async ({ ack, body, client, context }: HomeScheduleSubmissionArgs): Promise<void> => {
    const form = parseWeeklySubmission(body.view);
    if ('missing' in form) return ack(inField(form.missing, FORM_UNREADABLE_TEXT));
    if (!isValidTimeZone(form.timeZone)) return ack(inField(WEEKLY_TIME_BLOCK, FORM_UNREADABLE_TEXT));
    const userId = body.user.id;
    for (const channelId of new Set([form.channelId, form.was?.channelId].filter((c) => c !== undefined))) {
      const access = deps.access.check(userId, channelId);
      if (!access.ok)
        return ack(inField(WEEKLY_CHANNEL_BLOCK, accessDeniedMessage(access.reason, access.ask)));
    }
    const membership = await checkChannelMembership(client, form.channelId, userId, context?.botUserId);
    if (!membership.ok) return ack(inField(WEEKLY_CHANNEL_BLOCK, formMembershipProblem(membership)));
    const same = form.was?.kind === form.kind && form.was.channelId === form.channelId;
    let saved: Awaited<ReturnType<typeof deps.pageViews.weekly.schedule>>;
    try {
      if (!same && (await deps.pageViews.weekly.list(form.channelId, form.kind)).length > 0)
        return ack(inField(WEEKLY_CHANNEL_BLOCK, weeklyTakenText(form.kind)));
      saved = await deps.pageViews.weekly.schedule({ ...form, userId });
      if (form.was && !same) await deps.pageViews.weekly.removeSchedule(form.was.channelId, form.was.kind);
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not save a weekly post from Home');
      return ack(inField(WEEKLY_CHANNEL_BLOCK, FORM_STORAGE_TEXT));
    }
    await ack();
    const text = weeklySavedText(
      { kind: form.kind, channelId: form.channelId, cron: saved.schedule.cron, timeZone: form.timeZone },
      saved.nextRun,
      form.was !== undefined,
    );
    deps.afterAck(async () => {
      await tellPrivately(client, { userId, channelId: form.channelId }, text, deps.logger);
      await deps.home?.opened(body.team?.id ?? null, userId);
    });
  };
}

/** "Remove" confirmed: asked again whether the person may use docs-agent in that channel and is in it. */
export function homeScheduleRemoval(deps: HomeScheduleSubmissionDeps) {
  return async ({ ack, body, client }: HomeScheduleSubmissionArgs): Promise<void> => {
    const ref = parseWeeklyRemove(body.view);
    // The confirmation has no field: what goes wrong replaces it with the words.
    const answer = (text: string) => ack(nothingChangedAnswer(text) as never);
    if (!ref) return answer(FORM_UNREADABLE_TEXT);
    const userId = body.user.id;
    const access = deps.access.check(userId, ref.channelId);
    if (!access.ok) return answer(accessDeniedMessage(access.reason, access.ask));
    const membership = await checkChannelMembership(client, ref.channelId, userId, undefined);
    if (!membership.ok) return answer(formMembershipProblem(membership));
    let removed: boolean;
    try {
      removed = (await deps.pageViews.weekly.removeSchedule(ref.channelId, ref.kind)).removed;
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not remove a weekly post from Home');
      return answer(FORM_STORAGE_TEXT);
    }
    await ack();
    deps.afterAck(async () => {
      await tellPrivately(
        client,
        { userId, channelId: ref.channelId },
        weeklyRemovedText(ref, removed),
        deps.logger,
      );
      await deps.home?.opened(body.team?.id ?? null, userId);
    });
  };
}
