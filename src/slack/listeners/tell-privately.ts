import { describeError } from '../../common/errors.js';
import type { Logger } from '../../common/logger.js';

/** The Web API calls a form's listener answers with after its modal closed. */
export interface PrivateAnswerClient {
  chat: {
    postEphemeral(args: { channel: string; user: string; text: string }): Promise<unknown>;
    /** To the user's own DM with the app (Home's Messages tab). */
    postMessage(args: { channel: string; text: string }): Promise<unknown>;
  };
}

/**
 * Tells one person something after their form closed: in the channel (ephemeral) when there is one and
 * Slack lets the bot, else in their DM with the app (the bot may not be in the channel). Never throws.
 */
export async function tellPrivately(
  client: PrivateAnswerClient,
  to: { userId: string; channelId?: string },
  text: string,
  logger: Logger,
): Promise<void> {
  if (to.channelId) {
    try {
      await client.chat.postEphemeral({ channel: to.channelId, user: to.userId, text });
      return;
    } catch {
      // Not in the channel, or the channel is gone: the DM below still reaches them.
    }
  }
  try {
    await client.chat.postMessage({ channel: to.userId, text });
  } catch (error) {
    logger.warn(
      { channelId: to.channelId, error: describeError(error) },
      'could not tell the user privately',
    );
  }
}
