import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type AppHomeOpenedDeps = Pick<SlackDeps, 'logger' | 'afterAck' | 'home'>;

/** The parts of an `app_home_opened` delivery read here. */
export interface AppHomeOpenedArgs {
  event: { user: string; tab?: string };
  body: { team_id?: string };
}

export function registerAppHomeOpened(app: App, deps: RequestDeps<AppHomeOpenedDeps>): void {
  app.event('app_home_opened', deps.each(appHomeOpened) as never);
}

/**
 * The Home tab opened: publishes that user's own view (their jobs, their schedules, the budgets left).
 * The Messages tab fires the same event with `tab: 'messages'`; it needs nothing.
 */
export function appHomeOpened(deps: AppHomeOpenedDeps) {
  return async ({ event, body }: AppHomeOpenedArgs): Promise<void> => {
    const home = deps.home;
    if (event.tab !== 'home' || !home) return;
    deps.afterAck(async () => {
      try {
        await home.opened(body.team_id ?? null, event.user);
      } catch (error) {
        deps.logger.warn(
          { userId: event.user, error: describeError(error) },
          'could not publish the Home tab',
        );
      }
    });
  };
}
