import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import { accessDeniedMessage } from '../../command-text.js';
import {
  ALERT_CHANNEL_BLOCK,
  ALERT_FORM_CALLBACK_ID,
  ALERT_REMOVE_CALLBACK_ID,
  alertFormView,
  alertRemoveView,
  HOME_ALERT_ADD_ACTION,
  HOME_ALERT_MENU_ACTION,
  parseAlertChoice,
  parseAlertRemove,
  parseAlertSubmission,
} from '../../messages/home-alerts-form.js';
import {
  ALERT_TAKEN_TEXT,
  ALERTS_OFF_TEXT,
  alertRemovedText,
  alertSavedText,
  FORM_NOT_OPENED_TEXT,
  FORM_STORAGE_TEXT,
  FORM_UNREADABLE_TEXT,
  formMembershipProblem,
  nothingChangedAnswer,
} from '../../messages/home-forms-words.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { tellPrivately } from '../tell-privately.js';
import { checkChannelMembership } from './channel-membership.js';
import { type HomeScheduleSubmissionArgs, inField } from './home-schedule-submission.js';

type Alerts = Pick<
  NonNullable<NonNullable<SlackDeps['health']>['alerts']>,
  'subscribe' | 'unsubscribe' | 'status'
>;
export type HomeAlertFormsDeps = Pick<SlackDeps, 'access' | 'logger' | 'afterAck' | 'home'> & {
  health?: { alerts?: Alerts | undefined } | undefined;
};

export interface HomeAlertOpenArgs {
  ack: () => Promise<void>;
  body: { trigger_id: string; user: { id: string }; team?: { id: string } | null };
  action: { selected_option?: { value?: string } };
  client: {
    views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> };
    chat: { postMessage(args: { channel: string; text: string }): Promise<unknown> };
  };
}

export function registerHomeAlertForms(app: App, deps: RequestDeps<HomeAlertFormsDeps>): void {
  app.action(HOME_ALERT_ADD_ACTION, deps.each(homeAlertOpen) as never);
  app.action(HOME_ALERT_MENU_ACTION, deps.each(homeAlertOpen) as never);
  app.view(ALERT_FORM_CALLBACK_ID, deps.each(homeAlertSubmission) as never);
  app.view(ALERT_REMOVE_CALLBACK_ID, deps.each(homeAlertRemoval) as never);
}

/** [Add alert channel] and a channel's ⋯ menu on Home: the alert form, or the question before Turn off. */
export function homeAlertOpen(deps: HomeAlertFormsDeps) {
  return async ({ ack, body, action, client }: HomeAlertOpenArgs): Promise<void> => {
    const alerts = deps.health?.alerts;
    await ack();
    const userId = body.user.id;
    const tell = (text: string) =>
      client.chat.postMessage({ channel: userId, text }).catch((e: unknown) => {
        deps.logger.warn({ error: describeError(e) }, 'could not tell the user in their app DM');
      });
    if (!alerts) return void (await tell(ALERTS_OFF_TEXT));
    const choice = parseAlertChoice(action.selected_option?.value);
    if (action.selected_option && !choice) return;
    try {
      let view = alertFormView();
      if (choice?.choice === 'remove') view = alertRemoveView(choice.channelId);
      else if (choice) {
        const current = await alerts.status(choice.channelId);
        if (!current) {
          await tell(alertRemovedText(choice.channelId, false));
          if (deps.home) deps.afterAck(() => deps.home!.opened(body.team?.id ?? null, userId));
          return;
        }
        view = alertFormView(current);
      }
      await client.views.open({ trigger_id: body.trigger_id, view });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not open the alert form from Home');
      await tell(FORM_NOT_OPENED_TEXT);
    }
  };
}

/**
 * The alert form submitted: the same checks as `/docs-health alerts on` in that channel (the access lists),
 * both the person and the bot in it; one subscription per channel. Moved to another channel, the new one is
 * saved before the old one is turned off.
 */
export function homeAlertSubmission(deps: HomeAlertFormsDeps) {
  return async ({ ack, body, client, context }: HomeScheduleSubmissionArgs): Promise<void> => {
    const alerts = deps.health?.alerts;
    const form = parseAlertSubmission(body.view);
    if ('missing' in form) return ack(inField(form.missing, FORM_UNREADABLE_TEXT));
    if (!alerts) return ack(inField(ALERT_CHANNEL_BLOCK, ALERTS_OFF_TEXT));
    const userId = body.user.id;
    for (const channelId of new Set([form.channelId, form.was].filter((c) => c !== undefined))) {
      const access = deps.access.check(userId, channelId);
      if (!access.ok)
        return ack(inField(ALERT_CHANNEL_BLOCK, accessDeniedMessage(access.reason, access.ask)));
    }
    const membership = await checkChannelMembership(client, form.channelId, userId, context?.botUserId);
    if (!membership.ok) return ack(inField(ALERT_CHANNEL_BLOCK, formMembershipProblem(membership)));
    try {
      if (form.was !== form.channelId && (await alerts.status(form.channelId)))
        return ack(inField(ALERT_CHANNEL_BLOCK, ALERT_TAKEN_TEXT));
      await alerts.subscribe(form.channelId, userId, form.sensitivity);
      if (form.was && form.was !== form.channelId) await alerts.unsubscribe(form.was);
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not save alerts from Home');
      return ack(inField(ALERT_CHANNEL_BLOCK, FORM_STORAGE_TEXT));
    }
    await ack();
    const text = alertSavedText(form.channelId, form.sensitivity, form.was !== undefined);
    deps.afterAck(async () => {
      await tellPrivately(client, { userId, channelId: form.channelId }, text, deps.logger);
      await deps.home?.opened(body.team?.id ?? null, userId);
    });
  };
}

/** "Turn off" confirmed: asked again whether the person may use docs-agent in that channel and is in it. */
export function homeAlertRemoval(deps: HomeAlertFormsDeps) {
  return async ({ ack, body, client }: HomeScheduleSubmissionArgs): Promise<void> => {
    const alerts = deps.health?.alerts;
    const channelId = parseAlertRemove(body.view);
    const answer = (text: string) => ack(nothingChangedAnswer(text) as never);
    if (!channelId) return answer(FORM_UNREADABLE_TEXT);
    if (!alerts) return answer(ALERTS_OFF_TEXT);
    const userId = body.user.id;
    const access = deps.access.check(userId, channelId);
    if (!access.ok) return answer(accessDeniedMessage(access.reason, access.ask));
    const membership = await checkChannelMembership(client, channelId, userId, undefined);
    if (!membership.ok) return answer(formMembershipProblem(membership));
    let removed: boolean;
    try {
      removed = await alerts.unsubscribe(channelId);
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not turn alerts off from Home');
      return answer(FORM_STORAGE_TEXT);
    }
    await ack();
    deps.afterAck(async () => {
      await tellPrivately(client, { userId, channelId }, alertRemovedText(channelId, removed), deps.logger);
      await deps.home?.opened(body.team?.id ?? null, userId);
    });
  };
}
