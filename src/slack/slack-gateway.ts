import type { HomeView } from '@slack/types';
import { describeError } from '../common/errors.js';
import type { SlackMessage } from './messages/types.js';
import { type BlocksGate, NO_GATE } from './new-blocks.js';
import type { PostOptions, WebClient } from './slack-calls.js';
import { classify, isBlocksProblem, SlackDeliveryError, toDeliveryError } from './slack-errors.js';
import type { SlackPriority } from './slack-pacing.js';
import { MESSAGE_EVENT_TYPE, SlackReads } from './slack-reads.js';

export type { GatewayOptions, PostOptions, SlackApiMetrics, ThreadReply, WebClient } from './slack-calls.js';
export { SlackDeliveryError } from './slack-errors.js';
export type { SlackPriority } from './slack-pacing.js';

export { type HistoryPageArgs, MESSAGE_EVENT_TYPE } from './slack-reads.js';

/**
 * The bot's outbound Slack calls, on a WebClient built with retries off. 429s are retried after Retry-After
 * (Slack did not act on the call); updates, reactions and reads are idempotent and retried; a post is made
 * once. What the bot owes exactly once goes through the outbox (src/delivery), which alone decides retries.
 */
export class SlackGateway extends SlackReads {
  /** Charts and data tables: left out where the workspace refused them, sent once more without them. */
  blocksGate: BlocksGate = NO_GATE;

  /** The Web API client itself, for single attempts made inside `attemptOnce` (the delivery sender). */
  get web(): WebClient {
    return this.client;
  }

  /**
   * Posts a message once (paced per channel); resolves its ts. Never retried here, not even after a look-up:
   * a message that must reach someone exactly once is owed through the outbox (src/delivery), which records
   * it, looks up an unknown outcome and sweeps late copies durably.
   */
  async post({ channel, threadTs, message, dedupeKey, priority = 'user' }: PostOptions): Promise<string> {
    // The layout is settled inside the channel's pacing slot, so the post queues in the order it was made.
    let sentBlocks: SlackMessage['blocks'] | undefined;
    const send = (blocks: () => Promise<SlackMessage['blocks'] | undefined>) =>
      this.paced('chat.postMessage', channel, priority, async () => {
        sentBlocks = await blocks();
        return this.client.chat.postMessage({
          channel,
          text: message.text,
          ...(sentBlocks ? { blocks: sentBlocks } : {}),
          ...(threadTs ? { thread_ts: threadTs } : {}),
          ...(dedupeKey
            ? { metadata: { event_type: MESSAGE_EVENT_TYPE, event_payload: { key: dedupeKey } } }
            : {}),
          unfurl_links: false,
          unfurl_media: false,
        });
      });
    try {
      return String((await send(() => this.blocksGate.blocksFor(message.blocks))).ts);
    } catch (error) {
      const kind = classify(error);
      this.options.metrics?.slackError('chat.postMessage', kind.code);
      const refused = sentBlocks;
      if (!(kind.type === 'platform' && refused && isBlocksProblem(kind.code)))
        throw toDeliveryError(error, kind);
      // Slack rejected the layout (nothing was stored): without charts where the workspace lacks them, else
      // the plain text, which still tells the user.
      let fewer = await this.blocksGate.retryWithout(refused, kind.code, message.blocks);
      if (!fewer)
        this.options.logger.warn({ channel, code: kind.code }, 'Slack rejected blocks; posting text only');
      for (;;) {
        try {
          const layout = fewer;
          const ts = String((await send(async () => layout)).ts);
          if (fewer) await this.blocksGate.confirm();
          return ts;
        } catch (retryError) {
          const retryKind = classify(retryError);
          if (!fewer || !isBlocksProblem(retryKind.code)) throw toDeliveryError(retryError, retryKind);
          fewer = undefined;
        }
      }
    }
  }

  /** Replaces a message (a job card); `refresh` waits behind everything a person is waiting for. */
  async update(
    channel: string,
    ts: string,
    message: SlackMessage,
    priority: SlackPriority = 'user',
  ): Promise<void> {
    let blocks = await this.blocksGate.blocksFor(message.blocks);
    await this.retrying('chat.update', channel, priority, async () => {
      try {
        await this.client.chat.update({ channel, ts, text: message.text, blocks: blocks ?? [] });
      } catch (error) {
        const kind = classify(error);
        if (kind.type === 'platform' && blocks && isBlocksProblem(kind.code)) {
          const fewer = await this.blocksGate.retryWithout(blocks, kind.code, message.blocks);
          if (fewer)
            try {
              await this.client.chat.update({ channel, ts, text: message.text, blocks: fewer });
              await this.blocksGate.confirm();
              return;
            } catch (retryError) {
              if (!isBlocksProblem(classify(retryError).code)) throw retryError;
            }
          blocks = undefined;
          await this.client.chat.update({ channel, ts, text: message.text, blocks: [] });
          return;
        }
        throw error;
      }
    });
  }

  /**
   * Publishes a user's Home tab, paced to the views.publish tier and retried (publishing is idempotent).
   * With `hash` (the previous publish's), Slack refuses with `hash_conflict` if the view changed since.
   * Resolves the published view's hash.
   */
  async publishHome(userId: string, view: HomeView, hash?: string): Promise<string | undefined> {
    const result = await this.retrying('views.publish', undefined, 'user', () =>
      this.client.views.publish({ user_id: userId, view, ...(hash ? { hash } : {}) }),
    );
    return result.view?.hash;
  }

  /**
   * Uploads a text file into a conversation (files upload v2). Not retried: a failure after the upload
   * step could otherwise share the file twice. Errors are SlackDeliveryErrors with Slack's code.
   */
  async uploadFile(input: {
    channel: string;
    filename: string;
    title: string;
    content: string;
    initialComment?: string;
  }): Promise<void> {
    try {
      await this.paced('files.uploadV2', input.channel, 'user', () =>
        this.client.files.uploadV2({
          channel_id: input.channel,
          filename: input.filename,
          title: input.title,
          file: Buffer.from(input.content, 'utf8'),
          ...(input.initialComment ? { initial_comment: input.initialComment } : {}),
        }),
      );
    } catch (error) {
      const kind = classify(error);
      this.options.metrics?.slackError('files.uploadV2', kind.code);
      this.options.logger.debug(
        { method: 'files.uploadV2', error: describeError(error) },
        'Slack upload failed',
      );
      throw toDeliveryError(error, kind);
    }
  }

  /** A message only `user` sees; never retried on an ambiguous failure (it could show twice). */
  async postEphemeral(
    channel: string,
    user: string,
    message: SlackMessage,
    threadTs?: string | null,
  ): Promise<void> {
    const send = (blocks: SlackMessage['blocks'] | undefined) =>
      this.paced('chat.postEphemeral', channel, 'user', () =>
        this.client.chat.postEphemeral({
          channel,
          user,
          text: message.text,
          ...(blocks ? { blocks } : {}),
          ...(threadTs ? { thread_ts: threadTs } : {}),
        }),
      );
    const blocks = await this.blocksGate.blocksFor(message.blocks);
    await send(blocks).catch(async (error: unknown) => {
      const kind = classify(error);
      this.options.metrics?.slackError('chat.postEphemeral', kind.code);
      if (!(kind.type === 'platform' && blocks && isBlocksProblem(kind.code)))
        throw toDeliveryError(error, kind);
      // No charts in this workspace: the same answer without them; any other refused layout: plain text.
      let fewer = await this.blocksGate.retryWithout(blocks, kind.code, message.blocks);
      for (;;) {
        try {
          await send(fewer);
          if (fewer) await this.blocksGate.confirm();
          return;
        } catch (retryError) {
          const retryKind = classify(retryError);
          if (!fewer || !isBlocksProblem(retryKind.code)) throw toDeliveryError(retryError, retryKind);
          fewer = undefined;
        }
      }
    });
  }

  /** The DM channel (D…) between the bot and `user`, opened if need be (conversations.open, im:write). */
  async openDirectMessage(user: string): Promise<string> {
    const result = await this.retrying('conversations.open', undefined, 'user', () =>
      this.client.conversations.open({ users: user }),
    );
    const id = result.channel?.id;
    if (!id) throw new SlackDeliveryError('no_channel', 'conversations.open answered without a channel');
    return id;
  }

  /** Looks for a message the bot posted with this dedupe key since `sinceMs`; the earliest if several. */
  async findPosted(
    channel: string,
    threadTs: string | null,
    key: string,
    sinceMs: number,
  ): Promise<string | undefined> {
    return (await this.postedCopies(channel, threadTs, key, sinceMs))[0];
  }

  /**
   * One pass of a durable sweep (the outbox schedules it): every copy of `key` but `keepTs` is deleted.
   * `keepTs` is the ts the outbox recorded (the card and thread everyone uses), never "the earliest": that
   * one may be the stray. When the recorded copy is gone (a person deleted it), the earliest other copy is
   * kept: a sweep removes duplicates, never the message itself. Resolves how many copies it deleted.
   */
  async removeDuplicates(
    channel: string,
    threadTs: string | null,
    key: string,
    sinceMs: number,
    keepTs: string,
  ): Promise<number> {
    const copies = await this.postedCopies(channel, threadTs, key, sinceMs, 'sweep');
    const keep = copies.includes(keepTs) ? keepTs : copies[0];
    let removed = 0;
    for (const ts of copies.filter((ts) => ts !== keep)) {
      await this.retrying('chat.delete', channel, 'reply', async () => {
        try {
          await this.client.chat.delete({ channel, ts });
        } catch (error) {
          // Already gone (another replica's pass, or a person): nothing left to delete.
          if (classify(error).code !== 'message_not_found') throw error;
        }
      });
      removed += 1;
    }
    return removed;
  }
}
