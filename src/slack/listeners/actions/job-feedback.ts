import type { App, BlockFeedbackButtonsAction, SlackActionMiddlewareArgs } from '@slack/bolt';
import { describeError, errorCode } from '../../../common/errors.js';
import { feedbackAnswerText, JOB_FEEDBACK_ACTION, parseFeedbackValue } from '../../messages/job-feedback.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { respondSafely } from '../respond-safely.js';

export type JobFeedbackDeps = Pick<SlackDeps, 'logger' | 'access'> & { feedback?: SlackDeps['feedback'] };

/** A click on the feedback buttons of a job's result. */
export type FeedbackButtonArgs = Pick<
  SlackActionMiddlewareArgs<BlockFeedbackButtonsAction>,
  'ack' | 'body' | 'action' | 'respond'
>;

export function registerJobFeedbackAction(app: App, deps: RequestDeps<JobFeedbackDeps>): void {
  app.action<BlockFeedbackButtonsAction>(JOB_FEEDBACK_ACTION, deps.each(jobFeedbackAction));
}

/**
 * 👍 / 👎 on a job's terminal reply: records the clicker's vote on that job (replacing their earlier one)
 * and tells only them that it counted, or why it did not.
 */
export function jobFeedbackAction(deps: JobFeedbackDeps) {
  return async ({ ack, body, action, respond }: FeedbackButtonArgs): Promise<void> => {
    await ack();
    const tell = (text: string) => respondSafely(respond, { text }, deps.logger, { replaceOriginal: false });
    const clicked = parseFeedbackValue(action.value);
    const channelId = body.channel?.id ?? body.container?.channel_id;
    if (!deps.feedback) return;
    if (!clicked || typeof channelId !== 'string') {
      await tell(feedbackAnswerText({ ok: false, why: 'unknown_job' }));
      return;
    }
    // The same people who may use the bot here may rate its results.
    const access = deps.access.check(body.user.id, channelId);
    if (!access.ok) {
      await tell(
        feedbackAnswerText({
          ok: false,
          why: access.reason === 'user' ? 'not_allowed' : 'channel_not_allowed',
        }),
      );
      return;
    }
    try {
      const result = await deps.feedback.rate({ ...clicked, channelId, userId: body.user.id });
      await tell(
        feedbackAnswerText(
          result.ok
            ? { ok: true, vote: clicked.vote, change: result.change }
            : { ok: false, why: result.reason },
        ),
      );
    } catch (error) {
      deps.logger.warn({ jobId: clicked.jobId, error: describeError(error) }, 'could not record feedback');
      if (errorCode(error) !== 'state_unavailable') throw error;
      await tell(feedbackAnswerText({ ok: false, why: 'state_unavailable' }));
    }
  };
}
