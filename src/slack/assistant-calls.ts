import type { TaskUpdateChunk } from '@slack/types';
import { stripInvisible } from './markup.js';
import { oneLine } from './messages/limits.js';
import type { SlackCalls } from './slack-calls.js';
import type { SlackPriority } from './slack-pacing.js';

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
 * Every call the bot owes an assistant thread (status line, title, prompts, streamed steps), one method per
 * kind, each paced through the gateway's pacing like every other Slack call. The one place to route them
 * through a delivery outbox. Bolt's per-event `setStatus`/`setTitle` utilities are bound to the request's
 * client, so they can neither be paced nor used from a poll on another replica: these calls replace them.
 */
export class AssistantCalls {
  constructor(private readonly gateway: Pick<SlackCalls, 'callPaced'>) {}

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

  /** "docs-agent is …" under the thread; an empty status clears it (Slack clears it after 2 minutes). */
  async setStatus(
    channelId: string,
    threadTs: string,
    status: string,
    priority: SlackPriority = 'reply',
  ): Promise<void> {
    await this.gateway.callPaced(
      'assistant.threads.setStatus',
      channelId,
      priority,
      (client) => client.assistant.threads.setStatus({ channel_id: channelId, thread_ts: threadTs, status }),
      { retry: true },
    );
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
   * Updates steps of a stream by id. The stream may have been started by another replica (the ts is in the
   * state store), so this is chat.appendStream on that ts; repeating it shows the same steps.
   */
  async appendStream(channelId: string, ts: string, steps: StreamStep[]): Promise<void> {
    await this.gateway.callPaced(
      'chat.appendStream',
      channelId,
      'refresh',
      (client) => client.chat.appendStream({ channel: channelId, ts, chunks: steps.map(chunkOf) }),
      { retry: true },
    );
  }

  /** Ends a stream with its last steps. */
  async stopStream(channelId: string, ts: string, steps: StreamStep[]): Promise<void> {
    await this.gateway.callPaced(
      'chat.stopStream',
      channelId,
      'reply',
      (client) => client.chat.stopStream({ channel: channelId, ts, chunks: steps.map(chunkOf) }),
      { retry: true },
    );
  }
}

/**
 * Text from outside as one plain line: no invisible or direction characters, no angle brackets (no
 * `<!channel>` or `<@U…>` can survive to ping anyone, whatever Slack renders), capped.
 */
export function plainLine(text: string, max: number): string {
  return oneLine(stripInvisible(text).replace(/[<>]/g, ''), max);
}

function chunkOf(step: StreamStep): TaskUpdateChunk {
  return {
    type: 'task_update',
    id: step.id,
    title: plainLine(step.title, TITLE_MAX),
    status: step.status,
    ...(step.details ? { details: plainLine(step.details, DETAILS_MAX) } : {}),
    ...(step.output ? { output: plainLine(step.output, DETAILS_MAX) } : {}),
  };
}
