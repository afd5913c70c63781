import type { App, BlockButtonAction } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import { weeklyFormView } from '../../messages/home-schedules-form.js';
import { SCHEDULE_REPORT_ACTION } from '../../messages/page-views-report.js';
import type { ButtonArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';
import { type ViewerZoneReader, viewerZone } from './home-schedule-open.js';

export function registerDocsViewsScheduleAction(
  app: App,
  deps: RequestDeps<Pick<SlackDeps, 'logger'>>,
): void {
  app.action<BlockButtonAction>(SCHEDULE_REPORT_ACTION, deps.each(docsViewsScheduleAction));
}

const CHANNEL_ID = /^[CG][A-Z0-9]{2,30}$/;

/** What Slack could not open the form for: the command that does the same, privately. */
const USE_THE_COMMAND =
  'I couldn’t open the weekly-post form. Run `/docs-views schedule monday 09:00 Europe/Berlin` in the channel (your day, time and time zone), or use *Add weekly post* on my Home tab.';

/**
 * **Schedule…** under a report: the weekly-post form of Home (home-schedule-submission.ts saves it, asking
 * again about access and membership), with page views and this channel chosen, in the viewer's time zone.
 */
export function docsViewsScheduleAction(deps: Pick<SlackDeps, 'logger'>) {
  return async (
    args: ButtonArgs & {
      client?: ViewerZoneReader & {
        views: { open(a: { trigger_id: string; view: ModalView }): Promise<unknown> };
      };
    },
  ): Promise<void> => {
    const { ack, body, respond, client } = args;
    await ack();
    const channelId = body.channel?.id;
    try {
      if (!client) throw new Error('no client');
      const timeZone = await viewerZone(client, body.user.id, deps.logger);
      const preset =
        channelId && CHANNEL_ID.test(channelId) ? { kind: 'page_views' as const, channelId } : undefined;
      await client.views.open({
        trigger_id: body.trigger_id,
        view: weeklyFormView({ timeZone, ...(preset ? { preset } : {}) }),
      });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not open the weekly-post form from a report');
      await respondSafely(respond, { text: USE_THE_COMMAND }, deps.logger, { replaceOriginal: false });
    }
  };
}
