import type {
  BlockButtonAction,
  Context,
  SlackActionMiddlewareArgs,
  SlackCommandMiddlewareArgs,
} from '@slack/bolt';

/*
 * The parts of Bolt's listener arguments each kind of listener reads. Bolt passes more (client, logger,
 * next, say...); a callback typed with only these is still a valid Bolt listener, and a unit test calls it
 * with just these, faked.
 */

/** A slash command: its payload, the acknowledgement and the response_url. */
export type CommandArgs = Pick<SlackCommandMiddlewareArgs, 'command' | 'ack' | 'respond'>;

/** A button click on a message. */
export type ButtonArgs = Pick<
  SlackActionMiddlewareArgs<BlockButtonAction>,
  'ack' | 'body' | 'action' | 'respond'
>;

/** A click whose only duty is the acknowledgement. */
export type AckOnlyArgs = Pick<SlackActionMiddlewareArgs, 'ack'>;

/** A `message` or `app_mention` event: read field by field (see `toInbound`), so typed loosely here. */
export interface MessageEventArgs {
  event: { type: string };
  body: unknown;
  context: Context;
}
