import type { App, BlockButtonAction } from '@slack/bolt';
import { SCHEDULE_REPORT_ACTION } from '../../messages/page-views-report.js';
import type { ButtonArgs } from '../args.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';

export function registerDocsViewsScheduleAction(
  app: App,
  deps: RequestDeps<Pick<SlackDeps, 'logger'>>,
): void {
  app.action<BlockButtonAction>(SCHEDULE_REPORT_ACTION, deps.each(docsViewsScheduleAction));
}

/** **Schedule…**: there is no weekly-post form yet, so it says how to set one up, privately. */
export function docsViewsScheduleAction(deps: Pick<SlackDeps, 'logger'>) {
  return async ({ ack, respond }: ButtonArgs): Promise<void> => {
    await ack();
    await respondSafely(
      respond,
      {
        text: 'I can post this report every week in a channel: run `/docs-views schedule monday 09:00 Europe/Berlin` there (your day, time and time zone). `/docs-views schedules` lists the weekly posts; `/docs-views unschedule` stops them.',
      },
      deps.logger,
      { replaceOriginal: false },
    );
  };
}
