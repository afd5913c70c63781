import type { TaskUpdateChunk } from '@slack/types';
import type { Outbox } from '../delivery/ports.js';
import { type AssistantPayload, SESSION_KEY_PREFIX } from './assistant-delivery.js';
import { stripInvisible } from './markup.js';
import { oneLine } from './messages/limits.js';
import type { SlackMessage } from './messages/types.js';
import type { SlackCalls } from './slack-calls.js';

/** A suggested prompt of the assistant container: what the button says and the message it sends. */
export interface SuggestedPrompt {
  title: string;
  message: string;
}

/** One step of a streamed job message (a `task_update` chunk: the same id updates the step in place). */
export type StreamStep = Pick<TaskUpdateChunk, 'id' | 'title' | 'status' | 'details' | 'output'>;

/** Slack caps thread titles and task titles near 256 characters; ours stay well inside. */
const TITLE_MAX = 120;
const DETAILS_MAX = 500;

/**
 * Every call the bot makes in an assistant thread (status line, title, prompts, streamed steps), one method
 * per kind, each paced like every other Slack call. The status line and the stream's steps are owed through
 * the outbox; prompts, title and the stream's start answer the person at once (the start's ts is needed). Bolt's per-event `setStatus`/`setTitle` utilities are bound to the request's
 * client, so they can neither be paced nor used from a poll on another replica: these calls replace them.
 */
export class AssistantCalls {
  private lastSeq = 0;

  constructor(
    private readonly gateway: Pick<SlackCalls, 'callPaced'>,
    private readonly outbox: Outbox,
  ) {}

  async suggestPrompts(channelId: string, threadTs: string, title: string, prompts: SuggestedPrompt[]) {
    await this.gateway.callPaced(
      'assistant.threads.setSuggestedPrompts',
      channelId,
      'user',
      (client) =>
        client.assistant.threads.setSuggestedPrompts({
          channel_id: channelId,
          thread_ts: threadTs,
          title,
          prompts: prompts.slice(0, 4),
        }),
      { retry: true },
    );
  }

  /** The thread's title in the container's history: plain text, one line, capped. */
  async setTitle(channelId: string, threadTs: string, title: string): Promise<void> {
    await this.gateway.callPaced(
      'assistant.threads.setTitle',
      channelId,
      'user',
      (client) =>
        client.assistant.threads.setTitle({
          channel_id: channelId,
          thread_ts: threadTs,
          title: plainLine(title, TITLE_MAX),
        }),
      { retry: true },
    );
  }

  /**
   * "docs-agent is …" under the thread; an empty status clears it (Slack clears it after 2 minutes). Owed
   * through the outbox: the latest status of a thread wins, whichever replica set it.
   */
  async setStatus(channelId: string, threadTs: string, status: string): Promise<void> {
    await this.outbox.owe({
      key: `assistant-status:${channelId}:${threadTs}`,
      target: { kind: 'assistant', call: 'status', channel: channelId, ts: threadTs },
      payload: { status },
      priority: 'reply',
      seq: this.nextSeq(),
    });
  }

  /**
   * The thread's agent session: `processing` while the bot works (Slack shows its Stop button), `active`
   * (idle) once it is done or stopped. `setStatus` creates the session (with its title) if needed. Owed
   * through the outbox: the latest status of a thread wins, whichever replica set it.
   */
  async setSessionStatus(
    channelId: string,
    threadTs: string,
    status: 'processing' | 'active',
    title?: string,
  ): Promise<void> {
    const payload: AssistantPayload = {
      session: status,
      ...(title ? { title: plainLine(title, TITLE_MAX) } : {}),
    };
    await this.outbox.owe({
      key: `${SESSION_KEY_PREFIX}${channelId}:${threadTs}`,
      target: { kind: 'assistant', call: 'status', channel: channelId, ts: threadTs },
      payload,
      priority: 'reply',
      seq: this.nextSeq(),
    });
  }

  /**
   * Ends a stream with a result under its own key (once per key, whoever owes it): the last steps, then the
   * result's blocks (buttons) in the same message. If Slack no longer streams it, the result is posted as
   * a reply in the thread instead (src/slack/assistant-delivery.ts): one result, one message.
   */
  async finishStream(input: {
    key: string;
    channelId: string;
    ts: string;
    threadTs: string;
    steps: StreamStep[];
    result: SlackMessage;
  }): Promise<void> {
    const payload: AssistantPayload = {
      chunks: input.steps.map(chunkOf),
      result: { threadTs: input.threadTs, text: input.result.text, blocks: input.result.blocks ?? [] },
    };
    await this.outbox.owe({
      key: input.key,
      target: { kind: 'assistant', call: 'stop', channel: input.channelId, ts: input.ts },
      payload,
      priority: 'reply',
    });
  }

  /** A reply in the thread, owed once per key (found again by its key if an attempt's answer was lost). */
  async reply(key: string, channelId: string, threadTs: string, message: SlackMessage): Promise<void> {
    await this.outbox.owe({
      key,
      target: { kind: 'post', channel: channelId, threadTs },
      payload: message,
      priority: 'reply',
    });
  }

  /**
   * Starts a streamed message with its first steps (WebClient's `chatStream()`: its first flush is
   * chat.startStream); resolves the message's ts. Tried once: a retry after an unknown outcome could
   * start two streams, and the caller falls back to the card instead.
   */
  async startStream(
    target: { channelId: string; threadTs: string; teamId: string; userId: string },
    steps: StreamStep[],
  ): Promise<string> {
    return this.gateway.callPaced(
      'chat.startStream',
      target.channelId,
      'user',
      async (client) => {
        const streamer = client.chatStream({
          channel: target.channelId,
          thread_ts: target.threadTs,
          recipient_team_id: target.teamId,
          recipient_user_id: target.userId,
          task_display_mode: 'timeline',
        });
        await streamer.append({ chunks: steps.map(chunkOf) });
        if (!streamer.ts) throw new Error('chat.startStream answered without a ts');
        return streamer.ts;
      },
      { retry: false },
    );
  }

  /**
   * Updates steps of a stream by id (the stream may have been started by another replica: its ts is in the
   * state store). Owed: the latest steps of a stream win; once it is stopped, later updates are dropped.
   */
  async appendStream(channelId: string, ts: string, steps: StreamStep[]): Promise<void> {
    await this.oweStream(channelId, ts, 'append', steps, this.nextSeq());
  }

  /** Ends a stream with its last steps: the stream's final state (no update after it is ever sent). */
  async stopStream(channelId: string, ts: string, steps: StreamStep[]): Promise<void> {
    await this.oweStream(channelId, ts, 'stop', steps, Number.MAX_SAFE_INTEGER);
  }

  private async oweStream(
    channelId: string,
    ts: string,
    call: 'append' | 'stop',
    steps: StreamStep[],
    seq: number,
  ): Promise<void> {
    await this.outbox.owe({
      key: `assistant-stream:${channelId}:${ts}`,
      target: { kind: 'assistant', call, channel: channelId, ts },
      payload: { chunks: steps.map(chunkOf) },
      priority: call === 'stop' ? 'final' : 'intermediate',
      seq,
    });
  }

  /** Orders this process's states (time, never twice the same): latest wins across replicas within skew. */
  private nextSeq(): number {
    this.lastSeq = Math.max(Date.now(), this.lastSeq + 1);
    return this.lastSeq;
  }
}

/**
 * Text from outside as one plain line: no invisible or direction characters, no angle brackets (no
 * `<!channel>` or `<@U…>` can survive to ping anyone, whatever Slack renders), capped.
 */
export function plainLine(text: string, max: number): string {
  return oneLine(stripInvisible(text).replace(/[<>]/g, ''), max);
}

export function chunkOf(step: StreamStep): TaskUpdateChunk {
  return {
    type: 'task_update',
    id: step.id,
    title: plainLine(step.title, TITLE_MAX),
    status: step.status,
    ...(step.details ? { details: plainLine(step.details, DETAILS_MAX) } : {}),
    ...(step.output ? { output: plainLine(step.output, DETAILS_MAX) } : {}),
  };
}
