import type { App } from '@slack/bolt';
import { describeError } from '../../../common/errors.js';
import { findSecret } from '../../../common/secret-shapes.js';
import { COPY_JOB_ID_OPTION, JOB_CARD_MENU_ACTION } from '../../messages/job-card.js';
import { cardBlockId, PLAIN_JOB_ID } from '../../messages/job-card-actions.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';

export type JobCardMenuDeps = Pick<SlackDeps, 'logger' | 'jobs'>;

/** The parts of the `block_actions` payload of the card's ⋯ menu read here. */
export interface JobCardMenuArgs {
  ack: () => Promise<void>;
  action: { block_id?: string; selected_option?: { value?: string } };
  body: { container?: { channel_id?: string; message_ts?: string; thread_ts?: string } };
  respond: (message: {
    response_type: 'ephemeral';
    replace_original: false;
    text: string;
  }) => Promise<unknown>;
}

export function registerJobCardMenuAction(app: App, deps: RequestDeps<JobCardMenuDeps>): void {
  app.action(JOB_CARD_MENU_ACTION, deps.each(jobCardMenu) as never);
}

/**
 * The card's ⋯ → *Copy job ID*: answers only the person who chose it, with the id in a code span to copy
 * (for `/docs-agent status` or the dashboard). The id is read from the job store by the card, never from
 * the click, and shown only when it is a plain id that holds no credential.
 */
export function jobCardMenu(deps: JobCardMenuDeps) {
  return async ({ ack, action, body, respond }: JobCardMenuArgs): Promise<void> => {
    await ack();
    if (action.selected_option?.value !== COPY_JOB_ID_OPTION) return;
    const tell = (text: string) =>
      respond({ response_type: 'ephemeral', replace_original: false, text }).catch((error: unknown) => {
        deps.logger.warn({ error: describeError(error) }, 'could not answer a Copy job ID click');
      });
    const channelId = body.container?.channel_id;
    const threadTs = body.container?.thread_ts ?? body.container?.message_ts;
    if (!channelId || !threadTs) return void (await tell("I can't tell which job this card is for."));
    let record: Awaited<ReturnType<JobCardMenuDeps['jobs']['jobOfThread']>>;
    try {
      record = await deps.jobs.jobOfThread(channelId, threadTs);
    } catch (error) {
      deps.logger.warn({ channelId, error: describeError(error) }, 'state store unavailable for Copy job ID');
      return void (await tell(
        "I can't reach my state store right now, so I can't look the job up. Try again in a minute.",
      ));
    }
    if (!record)
      return void (await tell(
        'I no longer know this job (jobs are kept for 30 days), so I have no ID to show.',
      ));
    const id = record.jobId;
    // A card drawn for another job than its thread holds now (a later job in the thread): not this id.
    if (action.block_id?.startsWith('job:') && action.block_id !== cardBlockId(id))
      return void (await tell(
        "This card's job is no longer the one I follow in its thread, so I can't tell its ID. `/docs-agent list` in this channel shows the jobs I follow.",
      ));
    if (!PLAIN_JOB_ID.test(id) || findSecret(id)) {
      deps.logger.warn({ channelId }, 'a job id not shown: not a plain id');
      return void (await tell(
        "This job's ID is not in a form I can show safely, so I left it out. Ask whoever runs docs-agent to look it up in the bot's logs.",
      ));
    }
    await tell(
      `This job's ID: \`${id}\`. Use it with \`/docs-agent status ${id}\` or in the docs dashboard.`,
    );
  };
}
