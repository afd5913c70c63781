import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import { JOB_RETRY_ACTION } from '../../messages/job-card.js';
import { jobModalView } from '../../messages/job-modal.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type JobRetryDeps = Pick<SlackDeps, 'logger' | 'jobs'>;

/** The parts of the `block_actions` payload of a failed card's Retry button read here. */
export interface JobRetryArgs {
  ack: () => Promise<void>;
  body: {
    trigger_id: string;
    user: { id: string };
    container?: { channel_id?: string; message_ts?: string; thread_ts?: string };
  };
  respond: (message: {
    response_type: 'ephemeral';
    replace_original: false;
    text: string;
  }) => Promise<unknown>;
  client: { views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> } };
}

export function registerJobRetryAction(app: App, deps: RequestDeps<JobRetryDeps>): void {
  app.action(JOB_RETRY_ACTION, deps.each(jobRetry) as never);
}

/**
 * Retry on a failed card: the job form, prefilled with the same instruction and bound to the card's channel.
 * Its submission is the normal start path (Home's), so access, channel membership and budgets are checked
 * then, for whoever submits; nothing starts on the click itself.
 */
export function jobRetry(deps: JobRetryDeps) {
  return async ({ ack, body, client, respond }: JobRetryArgs): Promise<void> => {
    await ack();
    const channelId = body.container?.channel_id;
    const threadTs = body.container?.thread_ts ?? body.container?.message_ts;
    const tell = (text: string) =>
      respond({ response_type: 'ephemeral', replace_original: false, text }).catch((error: unknown) => {
        deps.logger.warn({ error: describeError(error) }, 'could not answer a Retry click');
      });
    if (!channelId || !threadTs) return void (await tell("I can't tell which job this card is for."));
    let record: Awaited<ReturnType<JobRetryDeps['jobs']['jobOfThread']>>;
    try {
      record = await deps.jobs.jobOfThread(channelId, threadTs);
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'state store unavailable for Retry');
      return void (await tell(
        "I can't reach my storage right now, so I can't retry. Try again in a minute.",
      ));
    }
    if (!record)
      return void (await tell(
        'I no longer know this job (jobs are kept for 30 days). Start a new one with `/docs-agent`.',
      ));
    try {
      await client.views.open({
        trigger_id: body.trigger_id,
        view: jobModalView({ refs: { origin: 'home', channelId }, instruction: record.prompt }),
      });
    } catch (error) {
      deps.logger.warn({ error: describeError(error) }, 'could not open the job form for Retry');
      await tell("I couldn't open the job form (Slack took too long or refused it). Press *Retry* again.");
    }
  };
}
