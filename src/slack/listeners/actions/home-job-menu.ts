import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { HOME_JOB_MENU_ACTION, homeStopText, parseHomeStopValue } from '../../messages/home-jobs.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type HomeJobMenuDeps = Pick<SlackDeps, 'logger' | 'access'> & {
  jobs: Pick<SlackDeps['jobs'], 'job' | 'stopFollowingAndShow'>;
};

/** The parts of the `block_actions` payload of a Home job's ⋯ menu read here. */
export interface HomeJobMenuArgs {
  ack: () => Promise<void>;
  action: { selected_option?: { value?: string } };
  body: { user: { id: string } };
  client: { chat: { postMessage(args: { channel: string; text: string }): Promise<unknown> } };
}

export function registerHomeJobMenuAction(app: App, deps: RequestDeps<HomeJobMenuDeps>): void {
  app.action(HOME_JOB_MENU_ACTION, deps.each(homeJobMenu) as never);
}

/**
 * A Home job's ⋯ menu. *Open thread* and *Open in dashboard* are links Slack opens itself (acknowledged,
 * nothing more). *Stop following* reads the job again and checks, on this click, that the person started it
 * or is an admin (a Home view outlives a demotion, and a click's value is text from outside); then the
 * stop-following use case, whose card update refreshes Home. The answer goes to the person's app DM.
 */
export function homeJobMenu(deps: HomeJobMenuDeps) {
  return async ({ ack, action, body, client }: HomeJobMenuArgs): Promise<void> => {
    await ack();
    const jobId = parseHomeStopValue(action.selected_option?.value);
    if (!jobId) return;
    const userId = body.user.id;
    const tell = (text: string) =>
      client.chat.postMessage({ channel: userId, text }).catch((e: unknown) => {
        deps.logger.warn({ error: describeError(e) }, 'could not tell the user in their app DM');
      });
    try {
      const record = await deps.jobs.job(jobId);
      if (!record) return void (await tell(homeStopText({ kind: 'unknown' })));
      if (record.requesterId !== userId && !deps.access.isAdmin(userId)) {
        deps.logger.warn({ jobId }, 'Stop following from Home by someone not allowed; refused');
        return void (await tell(homeStopText({ kind: 'refused', requesterId: record.requesterId })));
      }
      const result = await deps.jobs.stopFollowingAndShow(jobId);
      deps.logger.info({ jobId, stopped: result.ok }, 'stop following from Home');
      await tell(
        homeStopText(
          result.ok
            ? { kind: 'stopped', channelId: result.record.channelId }
            : { kind: result.reason === 'unknown_job' ? 'unknown' : 'not_watched' },
        ),
      );
    } catch (error) {
      deps.logger.warn({ jobId, error: describeError(error) }, 'could not stop following from Home');
      await tell(homeStopText({ kind: 'failed' }));
    }
  };
}
