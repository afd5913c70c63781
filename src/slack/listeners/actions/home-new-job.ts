import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import { HOME_NEW_JOB_ACTION } from '../../messages/app-home.js';
import { jobModalView } from '../../messages/job-modal.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type HomeNewJobDeps = Pick<SlackDeps, 'logger'>;

/** The parts of the `block_actions` payload of Home's "New job" button read here. */
export interface HomeNewJobArgs {
  ack: () => Promise<void>;
  body: { trigger_id: string; user: { id: string } };
  client: {
    views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> };
    chat: { postMessage(args: { channel: string; text: string }): Promise<unknown> };
  };
}

export function registerHomeNewJobAction(app: App, deps: RequestDeps<HomeNewJobDeps>): void {
  app.action(HOME_NEW_JOB_ACTION, deps.each(homeNewJob) as never);
}

const COULD_NOT_OPEN =
  "I couldn't open the new job form (Slack took too long or refused it). Press *New job* on my Home tab again, or use `/docs-agent &lt;instruction&gt;` in a channel.";

/**
 * "New job" on Home: the job modal with a channel picker (Home has no conversation). The trigger_id lives
 * 3 s, so the modal opens first; the submission (`jobModalSubmission`) starts the job.
 */
export function homeNewJob(deps: HomeNewJobDeps) {
  return async ({ ack, body, client }: HomeNewJobArgs): Promise<void> => {
    await ack();
    try {
      await client.views.open({
        trigger_id: body.trigger_id,
        view: jobModalView({ refs: { origin: 'home' } }),
      });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not open the job modal from Home');
      await client.chat.postMessage({ channel: body.user.id, text: COULD_NOT_OPEN }).catch((e: unknown) => {
        deps.logger.warn({ error: describeError(e) }, 'could not tell the user in their app DM');
      });
    }
  };
}
