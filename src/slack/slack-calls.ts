import { setTimeout as sleep } from 'node:timers/promises';
import type { webApi } from '@slack/bolt';
import { backoffDelay } from '../common/backoff.js';
import { describeError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { SharedSlots } from '../common/shared-slots.js';
import type { SlackMessage } from './messages/types.js';
import {
  type Classified,
  classify,
  SlackAttemptError,
  SlackDeliveryError,
  toDeliveryError,
} from './slack-errors.js';
import { HISTORY_PAGE_LIMIT, type PacingOptions, SlackPacing, type SlackPriority } from './slack-pacing.js';
import { TOKEN_REJECTED } from './token-rejections.js';
import { type SlackUser, slackUserOf } from './user-names.js';

export type WebClient = webApi.WebClient;

/** A message of a thread, as conversations.replies reports it (the fields the bot reads). */
export interface ThreadReply {
  ts?: string;
  user?: string;
  bot_id?: string;
  app_id?: string;
  team?: string;
  user_team?: string;
  subtype?: string;
  text?: string;
}

export interface PostOptions {
  channel: string;
  threadTs?: string | null;
  message: SlackMessage;
  /**
   * Identity of this message, carried in its metadata (how a look-up finds it). A post is never retried
   * here: what must reach someone exactly once is owed through the outbox, which looks it up and retries.
   */
  dedupeKey?: string;
  /** Queue position when Slack's per-channel limit makes posts wait (default `user`). */
  priority?: SlackPriority;
}

/** Counts failed Slack Web API calls (each attempt) by method and Slack's error code. Injected; optional. */
export interface SlackApiMetrics {
  slackError(method: string, code: string): void;
}

export interface GatewayOptions {
  logger: Logger;
  /**
   * Slack answered a call with a rejected token (revoked, invalid, account gone, or rotated away a moment
   * ago): called for every such answer; the listener decides (once) what it means.
   */
  onTokenRejected?: (code: string) => void;
  metrics?: SlackApiMetrics;
  /** Pacing slots shared by replicas (Redis mode); absent: this process paces alone. */
  sharedSlots?: SharedSlots;
  /** Attempts for retryable failures (default 4). */
  attempts?: number;
  retryBaseMs?: number;
  /**
   * Slack allows about one chat.postMessage per second per channel, with short bursts: posts to one channel
   * are paced to that (a burst of `channelPostBurst`, then one per interval) instead of running into 429s,
   * which keeps a flood of commands from crowding out acknowledgements. 0 turns it off.
   */
  channelPostIntervalMs?: number;
  channelPostBurst?: number;
  /** Every other method is paced to its tier per workspace, at this percentage of it (0 = off). */
  tierRatePercent?: PacingOptions['tierRatePercent'];
  /** Calls waiting per method (per channel for posts) at most (default DEFAULT_MAX_QUEUE). */
  maxQueue?: number;
  /** SLACK_APP_TIER: which history-read limits apply; a look-up waits `lookupWaitMs` for a read, at most. */
  appTier?: PacingOptions['appTier'];
  lookupWaitMs?: number;
  random?: () => number;
}

/**
 * Paced, retried Web API calls: every call waits for its method's pace (per channel for posts); 429s hold
 * the method back for Retry-After (Slack did not act on the call); other failures of idempotent calls are
 * retried with backoff. The WebClient itself is built with retries off, so this is the only retry loop.
 */
export class SlackCalls {
  protected readonly attempts: number;
  protected readonly retryBaseMs: number;
  protected readonly random: () => number;
  private readonly pacing: SlackPacing;
  private sharedFailureLoggedAt = 0;

  constructor(
    protected readonly client: WebClient,
    protected readonly options: GatewayOptions,
  ) {
    this.attempts = options.attempts ?? 4;
    this.retryBaseMs = options.retryBaseMs ?? 500;
    this.random = options.random ?? Math.random;
    this.pacing = new SlackPacing({
      channelPostIntervalMs: options.channelPostIntervalMs ?? 0,
      channelPostBurst: options.channelPostBurst ?? 2,
      tierRatePercent: options.tierRatePercent ?? 100,
      ...(options.maxQueue === undefined ? {} : { maxQueue: options.maxQueue }),
      ...(options.appTier ? { appTier: options.appTier } : {}),
      ...(options.sharedSlots ? { shared: options.sharedSlots } : {}),
      onSharedFailure: (error) => {
        // Once a minute at most: while the store is down every call would say it.
        if (Date.now() - this.sharedFailureLoggedAt < 60_000) return;
        this.sharedFailureLoggedAt = Date.now();
        const error_ = describeError(error);
        options.logger.warn({ error: error_ }, 'shared Slack pacing unavailable; pacing in-process');
      },
    });
  }

  /** Stops pacing timers (on shutdown); queued calls fail with `shutting_down`. */
  async close(): Promise<void> {
    this.pacing.close();
  }

  /** Runs one Web API call in its method's (and channel's) pace. */
  protected paced<T>(
    method: string,
    channel: string | undefined,
    priority: SlackPriority,
    call: () => Promise<T>,
  ): Promise<T> {
    return this.pacing.run(method, channel, priority, call).catch((error: unknown) => {
      this.noticeRejectedToken(error);
      throw error;
    });
  }

  /** One call only if its method's slot is free within a second (else `slack_budget_spent`); never retried. */
  protected pacedNow<T>(method: string, channel: string | undefined, call: () => Promise<T>): Promise<T> {
    return this.pacing.runNow(method, channel, call).catch((error: unknown) => {
      const kind = classify(error);
      if (kind.type === 'rate_limited') this.pacing.holdOff(method, channel, kind.retryAfterMs);
      throw error;
    });
  }

  private noticeRejectedToken(error: unknown): void {
    const { code } = classify(error);
    if (TOKEN_REJECTED.has(code)) this.options.onTokenRejected?.(code);
  }

  /**
   * One call in its method's pacing slot, never retried here (the delivery outbox decides). `ready` runs
   * inside the slot, right before the call (it takes the delivery's lease); undefined skips the call. A 429
   * still holds the whole method back. Failures are thrown as `SlackAttemptError` with their class.
   */
  async attemptOnce<R, T>(
    method: string,
    channel: string | undefined,
    priority: SlackPriority,
    ready: () => Promise<R | undefined>,
    call: (ready: R) => Promise<T>,
  ): Promise<{ called: false } | { called: true; ready: R; value: T }> {
    try {
      return await this.paced(method, channel, priority, async () => {
        const got = await ready();
        if (got === undefined) return { called: false as const };
        return { called: true as const, ready: got, value: await call(got) };
      });
    } catch (error) {
      if (error instanceof SlackAttemptError) throw error;
      const kind = classify(error);
      this.options.metrics?.slackError(method, kind.code);
      if (kind.type === 'rate_limited') this.pacing.holdOff(method, channel, kind.retryAfterMs);
      throw new SlackAttemptError(kind, error);
    }
  }

  /**
   * A Web API call made outside the gateway (assistant status lines and streams), in its method's pace.
   * `retry`: idempotent, retried like a read; else tried once. Failures are SlackDeliveryErrors.
   */
  async callPaced<T>(
    method: string,
    channel: string | undefined,
    priority: SlackPriority,
    call: (client: WebClient) => Promise<T>,
    { retry }: { retry: boolean },
  ): Promise<T> {
    if (retry) return this.retrying(method, channel, priority, () => call(this.client));
    try {
      return await this.paced(method, channel, priority, () => call(this.client));
    } catch (error) {
      const kind = classify(error);
      this.options.metrics?.slackError(method, kind.code);
      throw toDeliveryError(error, kind);
    }
  }

  async addReaction(channel: string, ts: string, name: string): Promise<void> {
    await this.retrying('reactions.add', channel, 'user', async () => {
      try {
        await this.client.reactions.add({ channel, timestamp: ts, name });
      } catch (error) {
        if (classify(error).code === 'already_reacted') return;
        throw error;
      }
    });
  }

  /** Removes the bot's own reaction; one that is not there (`no_reaction`) is already removed. */
  async removeReaction(channel: string, ts: string, name: string): Promise<void> {
    await this.retrying('reactions.remove', channel, 'user', async () => {
      try {
        await this.client.reactions.remove({ channel, timestamp: ts, name });
      } catch (error) {
        if (classify(error).code === 'no_reaction') return;
        throw error;
      }
    });
  }

  /** One page of a channel's members (conversations.members), paced like any read of that channel. */
  async channelMembers(args: { channel: string; cursor?: string; limit?: number }) {
    return this.retrying('conversations.members', args.channel, 'user', () =>
      this.client.conversations.members(args),
    );
  }

  async joinChannel(channel: string): Promise<void> {
    await this.retrying('conversations.join', channel, 'user', () =>
      this.client.conversations.join({ channel }),
    );
  }

  /**
   * A user as users.info knows them (undefined if Slack does not): name, own team (a Slack Connect user's
   * organisation's), guest or stranger, workspace admin or owner, Grid org and org admin or owner.
   */
  async userInfo(user: string): Promise<SlackUser | undefined> {
    try {
      const result = await this.retrying('users.info', undefined, 'user', () =>
        this.client.users.info({ user }),
      );
      return slackUserOf(result.user);
    } catch (error) {
      if (error instanceof SlackDeliveryError && error.code === 'user_not_found') return undefined;
      throw error;
    }
  }

  /** The messages of a thread, oldest first, root included (first page of up to `limit`, the tier's page). */
  async threadReplies(channel: string, ts: string, limit = 200): Promise<ThreadReply[]> {
    const page = Math.min(limit, HISTORY_PAGE_LIMIT[this.options.appTier ?? 'internal']);
    const result = await this.retrying('conversations.replies', channel, 'user', () =>
      this.client.conversations.replies({ channel, ts, limit: page }),
    );
    return (result.messages ?? []) as ThreadReply[];
  }

  protected async retrying<T>(
    method: string,
    channel: string | undefined,
    priority: SlackPriority,
    call: () => Promise<T>,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.paced(method, channel, priority, call);
      } catch (error) {
        const kind = classify(error);
        this.options.metrics?.slackError(method, kind.code);
        if (kind.type === 'platform' || attempt + 1 >= this.attempts) {
          this.options.logger.debug({ method, error: describeError(error) }, 'Slack call failed');
          throw toDeliveryError(error, kind);
        }
        await this.waitBeforeRetry(method, channel, kind, attempt);
      }
    }
  }

  /** A 429 holds the whole method (it is Slack's per-method budget), not just this call. */
  protected async waitBeforeRetry(
    method: string,
    channel: string | undefined,
    kind: Classified,
    attempt: number,
  ): Promise<void> {
    // Paced methods wait in the pacer (with the rest of the method's calls); unpaced ones wait here.
    if (kind.type === 'rate_limited' && this.pacing.holdOff(method, channel, kind.retryAfterMs)) return;
    await sleep(this.retryDelay(kind, attempt));
  }

  protected retryDelay(kind: Classified, attempt: number): number {
    if (kind.type === 'rate_limited') return kind.retryAfterMs;
    return backoffDelay(attempt, { baseMs: this.retryBaseMs, maxMs: 10_000, random: this.random });
  }
}
