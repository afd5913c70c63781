import type { App } from '@slack/bolt';
import type { ModalView } from '@slack/types';
import { describeError } from '../../../common/errors.js';
import { accessDeniedMessage } from '../../command-text.js';
import { readBudgetSpentText } from '../../copy/tier-words.js';
import { EmptySourceMessageError } from '../../message-source.js';
import { decodeMessageRef, REVIEW_MESSAGE_ACTION } from '../../messages/review-message.js';
import type { SlackDeps } from '../deps.js';
import type { RequestDeps } from '../request-deps.js';
import { jobFormFor } from './send-to-docs-agent.js';
import { type MessageReader, readMessage, type ThreadReader } from './thread-reads.js';

export type ReviewReactedMessageDeps = Pick<SlackDeps, 'access' | 'logger' | 'threads'>;

/** The parts of the `block_actions` payload of "Review and send" read here, and the calls made. */
export interface ReviewReactedMessageArgs {
  ack: () => Promise<void>;
  body: {
    trigger_id: string;
    user: { id: string };
    actions?: Array<{ value?: string }>;
    /** Where the button was clicked (the ephemeral answer sits in the reacted message's channel). */
    container?: { channel_id?: string };
    channel?: { id?: string };
    team?: { id: string } | null;
  };
  respond: (message: {
    text: string;
    response_type: 'ephemeral';
    replace_original?: boolean;
  }) => Promise<unknown>;
  client: MessageReader &
    ThreadReader & { views: { open(args: { trigger_id: string; view: ModalView }): Promise<unknown> } };
}

export function registerReviewReactedMessageAction(
  app: App,
  deps: RequestDeps<ReviewReactedMessageDeps>,
): void {
  app.action(REVIEW_MESSAGE_ACTION, deps.each(reviewReactedMessage) as never);
}

const ELSEWHERE =
  "I didn't open that: this button names a message in another channel than the one it was clicked in, so I read nothing. Use *Send to docs agent* on the message itself (its ⋯ menu).";
const CANNOT_READ =
  "I can't read that message any more (deleted, or I was removed from the channel), so there is nothing to review.";

/**
 * "Review and send" under the answer to a reaction on a bot's, an app's or an outsider's message: opens
 * the same job form as the "Send to docs agent" shortcut, so a person reads and owns the instruction
 * before anything starts (the submission re-checks access as for the shortcut).
 */
export function reviewReactedMessage(deps: ReviewReactedMessageDeps) {
  return async ({ ack, body, respond, client }: ReviewReactedMessageArgs): Promise<void> => {
    await ack();
    const tell = (text: string) =>
      respond({ response_type: 'ephemeral', replace_original: false, text }).catch((error: unknown) =>
        deps.logger.warn({ error: describeError(error) }, 'could not answer the review button'),
      );
    const ref = decodeMessageRef(body.actions?.[0]?.value);
    if (!ref)
      return void (await tell('This button lost track of its message. Use *Send to docs agent* on it.'));
    // The value is the client's to send: only a message of the channel the button sits in is read.
    const clickedIn = body.container?.channel_id ?? body.channel?.id;
    if (clickedIn !== ref.channelId) {
      deps.logger.warn(
        { userId: body.user.id, clickedIn, named: ref.channelId },
        'a review button named another channel than the one it was clicked in; refused',
      );
      return void (await tell(ELSEWHERE));
    }
    const access = deps.access.check(body.user.id, ref.channelId);
    if (!access.ok) return void (await tell(accessDeniedMessage(access.reason, access.ask)));
    let view: ModalView;
    try {
      // The form must open within 3 s: the message is read only if a read is free within a second.
      const message = deps.threads
        ? await deps.threads.message(ref.channelId, ref.ts, { now: true })
        : await readMessage(client, ref.channelId, ref.ts);
      if (!message) return void (await tell(CANNOT_READ));
      view = await jobFormFor(client, ref.channelId, message, undefined, deps.threads, body.team?.id);
    } catch (error) {
      if (error instanceof EmptySourceMessageError)
        return void (await tell(`${error.message} Write the instruction with \`/docs-agent\`.`));
      if ((error as { code?: unknown }).code === 'slack_budget_spent')
        return void (await tell(readBudgetSpentText(deps.threads?.appTier)));
      deps.logger.warn(
        { channelId: ref.channelId, error: describeError(error) },
        'could not read the message',
      );
      return void (await tell(CANNOT_READ));
    }
    try {
      await client.views.open({ trigger_id: body.trigger_id, view });
    } catch (error) {
      deps.logger.warn(
        { channelId: ref.channelId, error: describeError(error) },
        'could not open the job modal',
      );
      await tell(
        "I couldn't open the docs agent form (Slack took too long or refused it). Press the button again.",
      );
    }
  };
}
