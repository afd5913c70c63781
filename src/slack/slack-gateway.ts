import { setTimeout as sleep } from 'node:timers/promises';
import { webApi } from '@slack/bolt';
import { backoffDelay } from '../api/backoff.js';
import { AppError, describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import { KeyedPacer } from '../services/keyed-pacer.js';
import type { SlackMessage } from './views/types.js';

type WebClient = webApi.WebClient;

/** Metadata type on every message the bot posts: lets a retry find out whether an earlier attempt landed. */
export const MESSAGE_EVENT_TYPE = 'docs_agent_message';

export class SlackDeliveryError extends AppError<string> {}

/** A message of a thread, as conversations.replies reports it (the fields the bot reads). */
export interface ThreadReply {
  ts?: string;
  user?: string;
  bot_id?: string;
  subtype?: string;
  text?: string;
}

export interface PostOptions {
  channel: string;
  threadTs?: string | null;
  message: SlackMessage;
  /**
   * Identity of this message. With a key, a post whose outcome is unknown (timeout, 5xx) is looked up in
   * the conversation before it is retried, so a retry never duplicates it. Without one it is never retried.
   */
  dedupeKey?: string;
}

/** Counts failed Slack Web API calls (each attempt) by method and Slack's error code. Injected; optional. */
export interface SlackApiMetrics {
  slackError(method: string, code: string): void;
}

export interface GatewayOptions {
  logger: Logger;
  metrics?: SlackApiMetrics;
  /** Attempts for retryable failures (default 4). */
  attempts?: number;
  retryBaseMs?: number;
  /**
   * How long to wait after a post with an unknown outcome before checking whether it landed: Slack may
   * still be storing it. Twice the WebClient timeout by default.
   */
  settleMs?: number;
  /**
   * Slack allows about one chat.postMessage per second per channel, with short bursts. Posts to one
   * channel are paced to that (a burst of `channelPostBurst`, then one per interval) instead of running
   * into 429s, which also keeps a flood of commands from crowding out acknowledgements. 0 turns it off.
   */
  channelPostIntervalMs?: number;
  channelPostBurst?: number;
  random?: () => number;
}

/**
 * The bot's outbound Slack calls, on a WebClient built with retries off: this class decides what is safe
 * to retry. 429s are always retried after Retry-After (Slack did not act on the call); updates, reactions
 * and reads are idempotent; a post is retried only after proving the earlier attempt did not land.
 */
export class SlackGateway {
  private readonly attempts: number;
  private readonly retryBaseMs: number;
  private readonly random: () => number;
  private readonly settleMs: number;
  private readonly channelPacing: KeyedPacer | undefined;

  constructor(
    private readonly client: WebClient,
    private readonly options: GatewayOptions,
  ) {
    this.attempts = options.attempts ?? 4;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.random = options.random ?? Math.random;
    this.settleMs = options.settleMs ?? 2_000;
    const interval = options.channelPostIntervalMs ?? 0;
    const burst = options.channelPostBurst ?? 4;
    this.channelPacing = interval > 0 ? new KeyedPacer(interval, burst) : undefined;
  }

  /** Posts a message (paced per channel); resolves its ts. */
  post(options: PostOptions): Promise<string> {
    const pacing = this.channelPacing;
    return pacing ? pacing.run(options.channel, () => this.postNow(options)) : this.postNow(options);
  }

  /** Stops pacing timers (on shutdown); queued posts are dropped. */
  async close(): Promise<void> {
    this.channelPacing?.close();
  }

  private async postNow({ channel, threadTs, message, dedupeKey }: PostOptions): Promise<string> {
    const startedAt = Date.now();
    let blocks: SlackMessage['blocks'] | undefined = message.blocks;
    for (let attempt = 0; ; attempt++) {
      try {
        const result = await this.client.chat.postMessage({
          channel,
          text: message.text,
          ...(blocks ? { blocks } : {}),
          ...(threadTs ? { thread_ts: threadTs } : {}),
          ...(dedupeKey
            ? { metadata: { event_type: MESSAGE_EVENT_TYPE, event_payload: { key: dedupeKey } } }
            : {}),
          unfurl_links: false,
          unfurl_media: false,
        });
        const ts = String(result.ts);
        if (attempt > 0 && dedupeKey)
          this.removeDuplicatesLater(channel, threadTs ?? null, dedupeKey, startedAt);
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
          // After a timeout or reset Slack may still be storing the message: let it settle, then look
          // before posting again. An HTTP 5xx answer came back, so a short backoff is enough.
          const settle = kind.code === 'request_failed' ? this.settleMs : 0;
          await sleep(Math.max(settle, this.retryDelay(kind, attempt)));
          const landed = await this.findPosted(channel, threadTs ?? null, dedupeKey, startedAt).catch(
            () => undefined,
          );
          if (landed) return landed;
          continue;
        }
        await sleep(this.retryDelay(kind, attempt));
      }
    }
  }

  async update(channel: string, ts: string, message: SlackMessage): Promise<void> {
    let blocks: SlackMessage['blocks'] | undefined = message.blocks;
    await this.retrying('chat.update', async () => {
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

  async addReaction(channel: string, ts: string, name: string): Promise<void> {
    await this.retrying('reactions.add', async () => {
      try {
        await this.client.reactions.add({ channel, timestamp: ts, name });
      } catch (error) {
        if (classify(error).code === 'already_reacted') return;
        throw error;
      }
    });
  }

  async joinChannel(channel: string): Promise<void> {
    await this.retrying('conversations.join', () => this.client.conversations.join({ channel }));
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
      await this.client.files.uploadV2({
        channel_id: input.channel,
        filename: input.filename,
        title: input.title,
        file: Buffer.from(input.content, 'utf8'),
        ...(input.initialComment ? { initial_comment: input.initialComment } : {}),
      });
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
      this.client.chat.postEphemeral({
        channel,
        user,
        text: message.text,
        ...(blocks ? { blocks } : {}),
        ...(threadTs ? { thread_ts: threadTs } : {}),
      });
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

  /** A user's display name (users.info: display name, else real name, else handle); undefined if unknown. */
  async userName(user: string): Promise<string | undefined> {
    try {
      const result = await this.retrying('users.info', () => this.client.users.info({ user }));
      const info = result.user;
      const name = info?.profile?.display_name || info?.real_name || info?.name;
      return name || undefined;
    } catch (error) {
      if (error instanceof SlackDeliveryError && error.code === 'user_not_found') return undefined;
      throw error;
    }
  }

  /** The messages of a thread, oldest first, root included (first page of up to `limit`). */
  async threadReplies(channel: string, ts: string, limit = 200): Promise<ThreadReply[]> {
    const result = await this.retrying('conversations.replies', () =>
      this.client.conversations.replies({ channel, ts, limit }),
    );
    return (result.messages ?? []) as ThreadReply[];
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
    const oldest = ((sinceMs - 60_000) / 1000).toFixed(6);
    // Retried like any read: a lookup that fails once would otherwise repost a message that did land, or
    // leave a duplicate the sweep could not see.
    const result = threadTs
      ? await this.retrying('conversations.replies', () =>
          this.client.conversations.replies({
            channel,
            ts: threadTs,
            oldest,
            include_all_metadata: true,
            limit: 200,
          }),
        )
      : await this.retrying('conversations.history', () =>
          this.client.conversations.history({ channel, oldest, include_all_metadata: true, limit: 100 }),
        );
    const messages = (result.messages ?? []) as Array<{
      ts?: string;
      metadata?: { event_type?: string; event_payload?: { key?: unknown } };
    }>;
    return messages
      .filter(
        (m) => m.metadata?.event_type === MESSAGE_EVENT_TYPE && m.metadata.event_payload?.key === key && m.ts,
      )
      .map((m) => m.ts as string)
      .sort((a, b) => Number(a) - Number(b));
  }

  /**
   * Last line of defence: an attempt that timed out may still land after its retry did. Once things have
   * settled, every copy but the first is deleted, so readers end up with exactly one.
   */
  private removeDuplicatesLater(
    channel: string,
    threadTs: string | null,
    key: string,
    sinceMs: number,
  ): void {
    const timer = setTimeout(() => {
      this.findAllPosted(channel, threadTs, key, sinceMs)
        .then(async ([, ...extra]) => {
          for (const ts of extra) {
            await this.client.chat.delete({ channel, ts });
            this.options.logger.warn({ channel, key }, 'deleted a duplicate left by a timed-out post');
          }
        })
        .catch((error: unknown) =>
          this.options.logger.warn({ error: describeError(error) }, 'duplicate check failed'),
        );
    }, this.settleMs);
    timer.unref();
  }

  private async retrying<T>(method: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        const kind = classify(error);
        this.options.metrics?.slackError(method, kind.code);
        if (kind.type === 'platform' || attempt + 1 >= this.attempts) {
          this.options.logger.debug({ method, error: describeError(error) }, 'Slack call failed');
          throw toDeliveryError(error, kind);
        }
        await sleep(this.retryDelay(kind, attempt));
      }
    }
  }

  private retryDelay(kind: Classified, attempt: number): number {
    if (kind.type === 'rate_limited') return kind.retryAfterMs;
    return backoffDelay(attempt, { baseMs: this.retryBaseMs, maxMs: 10_000, random: this.random });
  }
}

type Classified =
  | { type: 'platform'; code: string }
  | { type: 'rate_limited'; code: 'ratelimited'; retryAfterMs: number }
  | { type: 'ambiguous'; code: string };

function classify(error: unknown): Classified {
  const e = error as { code?: string; data?: { error?: string }; retryAfter?: number; statusCode?: number };
  switch (e?.code) {
    case webApi.ErrorCode.PlatformError:
      return { type: 'platform', code: e.data?.error ?? 'unknown_error' };
    case webApi.ErrorCode.RateLimitedError:
      return {
        type: 'rate_limited',
        code: 'ratelimited',
        retryAfterMs: Math.max(1, e.retryAfter ?? 1) * 1000,
      };
    case webApi.ErrorCode.HTTPError:
      return { type: 'ambiguous', code: `http_${e.statusCode ?? 'error'}` };
    default:
      return { type: 'ambiguous', code: 'request_failed' };
  }
}

function isBlocksProblem(code: string): boolean {
  return (
    code === 'invalid_blocks' ||
    // Undocumented: more than ~12,000 characters of text across the blocks (bolt-js #2509).
    code === 'msg_blocks_too_long' ||
    code === 'msg_too_long' ||
    code === 'invalid_blocks_format' ||
    code === 'too_many_blocks'
  );
}

function toDeliveryError(error: unknown, kind: Classified): SlackDeliveryError {
  return new SlackDeliveryError(kind.code, `Slack call failed: ${kind.code}`, { cause: error });
}
