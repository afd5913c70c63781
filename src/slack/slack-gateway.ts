import { setTimeout as sleep } from 'node:timers/promises';
import type { HomeView } from '@slack/types';
import { describeError } from '../common/errors.js';
import { findPostedCopies, type ReadPage } from './message-lookup.js';
import type { SlackMessage } from './messages/types.js';
import type { PostOptions, WebClient } from './slack-calls.js';
import { SlackCalls } from './slack-calls.js';
import { classify, isBlocksProblem, toDeliveryError } from './slack-errors.js';
import type { SlackPriority } from './slack-pacing.js';

export type { GatewayOptions, PostOptions, SlackApiMetrics, ThreadReply, WebClient } from './slack-calls.js';
export { SlackDeliveryError } from './slack-errors.js';
export type { SlackPriority } from './slack-pacing.js';

/** Metadata type on every message the bot posts: lets a retry find out whether an earlier attempt landed. */
export const MESSAGE_EVENT_TYPE = 'docs_agent_message';

/**
 * The bot's outbound Slack calls, on a WebClient built with retries off: this class decides what is safe
 * to retry. 429s are always retried after Retry-After (Slack did not act on the call); updates, reactions
 * and reads are idempotent; a post is retried only after proving the earlier attempt did not land.
 */
export class SlackGateway extends SlackCalls {
  /** The Web API client itself, for single attempts made inside `attemptOnce` (the delivery sender). */
  get web(): WebClient {
    return this.client;
  }

  /** Posts a message (paced per channel); resolves its ts. */
  async post({ channel, threadTs, message, dedupeKey, priority = 'user' }: PostOptions): Promise<string> {
    const startedAt = Date.now();
    let blocks: SlackMessage['blocks'] | undefined = message.blocks;
    let ambiguous = false;
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.paced('chat.postMessage', channel, priority, () =>
          this.client.chat.postMessage({
            channel,
            text: message.text,
            ...(blocks ? { blocks } : {}),
            ...(threadTs ? { thread_ts: threadTs } : {}),
            ...(dedupeKey
              ? { metadata: { event_type: MESSAGE_EVENT_TYPE, event_payload: { key: dedupeKey } } }
              : {}),
            unfurl_links: false,
            unfurl_media: false,
          }),
        );
        const ts = String(result.ts);
        // This ts is handed back and becomes the message everyone uses: any other copy is the duplicate.
        if (ambiguous && dedupeKey)
          this.removeDuplicatesLater(channel, threadTs ?? null, dedupeKey, startedAt, ts);
        return ts;
      } catch (error) {
        const kind = classify(error);
        this.options.metrics?.slackError('chat.postMessage', kind.code);
        if (kind.type === 'platform' && blocks && isBlocksProblem(kind.code)) {
          // Rare: Slack rejected the layout. The plain text still tells the user what happened.
          this.options.logger.warn({ channel, code: kind.code }, 'Slack rejected blocks; posting text only');
          blocks = undefined;
          continue;
        }
        if (kind.type === 'platform' || attempt + 1 >= this.attempts) throw toDeliveryError(error, kind);
        if (kind.type === 'ambiguous') {
          if (!dedupeKey) throw toDeliveryError(error, kind);
          ambiguous = true;
          // After a timeout or reset Slack may still be storing the message: let it settle, then look
          // before posting again. An HTTP 5xx answer came back, so a short backoff is enough.
          const settle = kind.code === 'request_failed' ? this.settleMs : 0;
          await sleep(Math.max(settle, this.retryDelay(kind, attempt)));
          const landed = await this.findPosted(channel, threadTs ?? null, dedupeKey, startedAt).catch(
            () => undefined,
          );
          if (landed) {
            // Another timed-out attempt may still land after the one found: the found one is canonical.
            this.removeDuplicatesLater(channel, threadTs ?? null, dedupeKey, startedAt, landed);
            return landed;
          }
          continue;
        }
        await this.waitBeforeRetry('chat.postMessage', channel, kind, attempt);
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
    let blocks: SlackMessage['blocks'] | undefined = message.blocks;
    await this.retrying('chat.update', channel, priority, async () => {
      try {
        await this.client.chat.update({ channel, ts, text: message.text, blocks: blocks ?? [] });
      } catch (error) {
        const kind = classify(error);
        if (kind.type === 'platform' && blocks && isBlocksProblem(kind.code)) {
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
    await send(message.blocks).catch(async (error: unknown) => {
      const kind = classify(error);
      this.options.metrics?.slackError('chat.postEphemeral', kind.code);
      // Refused layout: the plain text still tells the user, instead of silence.
      if (kind.type === 'platform' && message.blocks && isBlocksProblem(kind.code))
        return send(undefined).catch((retryError: unknown) => {
          throw toDeliveryError(retryError, classify(retryError));
        });
      throw toDeliveryError(error, kind);
    });
  }

  /** Looks for a message the bot posted with this dedupe key since `sinceMs`; the earliest if several. */
  async findPosted(
    channel: string,
    threadTs: string | null,
    key: string,
    sinceMs: number,
  ): Promise<string | undefined> {
    return (await this.findAllPosted(channel, threadTs, key, sinceMs))[0];
  }

  private async findAllPosted(
    channel: string,
    threadTs: string | null,
    key: string,
    sinceMs: number,
  ): Promise<string[]> {
    // Each page is retried like any read: a look-up that fails once would otherwise repost a message that
    // did land, or leave a duplicate the sweep could not see.
    const read: ReadPage = (method, args) =>
      this.retrying(method, channel, 'reply', () =>
        method === 'conversations.replies' && args.ts
          ? this.client.conversations.replies({ ...args, ts: args.ts })
          : this.client.conversations.history(args),
      );
    return findPostedCopies(
      read,
      { channel, threadTs, key, sinceMs, eventType: MESSAGE_EVENT_TYPE },
      {
        onTruncated: (pages) =>
          this.options.logger.warn(
            { channel, key, pages },
            'look-up stopped at its page bound; a copy may be missed',
          ),
      },
    );
  }

  /**
   * Last line of defence: an attempt that timed out may still land after its retry did. Once things have
   * settled, every copy but `keepTs` is deleted. `keepTs` is the ts handed back to the caller (the card
   * and thread everyone uses from then on), never "the earliest": that one may be the stray.
   */
  removeDuplicatesLater(
    channel: string,
    threadTs: string | null,
    key: string,
    sinceMs: number,
    keepTs: string,
  ): void {
    const timer = setTimeout(() => {
      this.findAllPosted(channel, threadTs, key, sinceMs)
        .then(async (copies) => {
          for (const ts of copies.filter((ts) => ts !== keepTs)) {
            await this.retrying('chat.delete', channel, 'reply', () =>
              this.client.chat.delete({ channel, ts }),
            );
            this.options.logger.warn({ channel, key }, 'deleted a duplicate left by a timed-out post');
          }
        })
        .catch((error: unknown) =>
          this.options.logger.warn({ error: describeError(error) }, 'duplicate check failed'),
        );
    }, this.settleMs);
    timer.unref();
  }
}
