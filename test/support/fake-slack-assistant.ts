import type { FakeSlack, StoredMessage } from './fake-slack.js';
import { safeParse } from './slack-request.js';

/** A `task_update` step of a streamed message, as the fake keeps it (the latest chunk per id). */
export interface FakeStreamStep {
  id: string;
  title: string;
  status: string;
  details?: string;
  output?: string;
}

export interface FakeStream {
  channel: string;
  ts: string;
  threadTs: string;
  recipientUserId: string;
  state: 'streaming' | 'stopped';
  startedAt: number;
  steps: Map<string, FakeStreamStep>;
  /** Every chunk in the order it arrived (start, appends, stop). */
  chunks: unknown[];
}

const TASK_STATUSES = new Set(['pending', 'in_progress', 'complete', 'error']);
const SESSION_STATUSES = new Set(['processing', 'active', 'suspended', 'closed']);
const CHUNK_TYPES = new Set(['markdown_text', 'task_update', 'plan_update', 'blocks']);

/**
 * Slack's AI app container for the fake: assistant.threads.setStatus / setSuggestedPrompts / setTitle, and
 * streamed messages (chat.startStream / appendStream / stopStream) with Slack's documented errors. A stream
 * ends after `streamLifetimeMs` (Slack: about five minutes); `refuseStreaming` makes chat.startStream
 * refuse as Slack does where streaming is not available (plan, surface).
 */
export class FakeSlackAssistant {
  readonly statuses: Array<{ channel: string; threadTs: string; status: string }> = [];
  readonly titles: Array<{ channel: string; threadTs: string; title: string }> = [];
  readonly prompts: Array<{ channel: string; threadTs: string; prompts: unknown[]; title?: string }> = [];
  readonly streams = new Map<string, FakeStream>();
  /** agents.sessions.setStatus calls, in order (the session's lifecycle status per thread). */
  readonly sessions: Array<{ channel: string; threadTs: string; status: string; title?: string }> = [];
  /** Every append or stop Slack refused because the stream was over (closed by time or by Stop). */
  readonly refusedOver: Array<{ method: string; ts: string }> = [];
  /** Error code chat.startStream answers with while set. */
  refuseStreaming: string | undefined;
  streamLifetimeMs = 5 * 60_000;

  constructor(private readonly slack: FakeSlack) {}

  /** The latest status of a thread ('' when cleared or never set). */
  statusOf(channel: string, threadTs: string): string {
    return this.statuses.filter((s) => s.channel === channel && s.threadTs === threadTs).at(-1)?.status ?? '';
  }

  /** The latest agent-session status of a thread ('' when never set). */
  sessionOf(channel: string, threadTs: string): string {
    return this.sessions.filter((s) => s.channel === channel && s.threadTs === threadTs).at(-1)?.status ?? '';
  }

  /**
   * The person pressed Stop in a thread: Slack stops the app's streams there itself and resolves their ts
   * (the event's `streaming_message_ts`); the app is told with `agent_session_stopped`.
   */
  stopByUser(channel: string, threadTs: string): string[] {
    const stopped: string[] = [];
    for (const stream of this.streams.values()) {
      if (stream.channel !== channel || stream.threadTs !== threadTs || !this.streaming(stream)) continue;
      stream.state = 'stopped';
      stopped.push(stream.ts);
    }
    return stopped;
  }

  private streaming(stream: FakeStream): boolean {
    if (Date.now() - stream.startedAt > this.streamLifetimeMs) stream.state = 'stopped';
    return stream.state === 'streaming';
  }

  /** Ends every open stream as Slack does when its time is up. */
  expireStreams(): void {
    for (const stream of this.streams.values()) stream.startedAt = 0;
  }

  answer(method: string, args: Record<string, unknown>): Record<string, unknown> | undefined {
    switch (method) {
      case 'assistant.threads.setStatus':
      case 'assistant.threads.setTitle':
      case 'assistant.threads.setSuggestedPrompts':
        return this.thread(method, args);
      case 'chat.startStream':
        return this.start(args);
      case 'chat.appendStream':
      case 'chat.stopStream':
        return this.continue(method, args);
      case 'agents.sessions.setStatus':
        return this.session(args);
      default:
        return undefined;
    }
  }

  private thread(method: string, args: Record<string, unknown>): Record<string, unknown> {
    const channel = String(args.channel_id ?? '');
    const threadTs = String(args.thread_ts ?? '');
    if (!channel || !threadTs) return { ok: false, error: 'invalid_arguments' };
    if (!channel.startsWith('D')) return { ok: false, error: 'channel_not_found' };
    if (method === 'assistant.threads.setStatus') {
      if (typeof args.status !== 'string') return { ok: false, error: 'invalid_arguments' };
      this.statuses.push({ channel, threadTs, status: args.status });
    } else if (method === 'assistant.threads.setTitle') {
      if (typeof args.title !== 'string' || args.title.length === 0)
        return { ok: false, error: 'invalid_arguments' };
      this.titles.push({ channel, threadTs, title: args.title });
    } else {
      const prompts = parsed(args.prompts);
      if (!Array.isArray(prompts) || prompts.length === 0 || prompts.length > 4)
        return { ok: false, error: 'invalid_arguments' };
      for (const p of prompts as Array<Record<string, unknown>>)
        if (typeof p?.title !== 'string' || typeof p?.message !== 'string')
          return { ok: false, error: 'invalid_arguments' };
      this.prompts.push({ channel, threadTs, prompts, ...(args.title ? { title: String(args.title) } : {}) });
    }
    return { ok: true };
  }

  private session(args: Record<string, unknown>): Record<string, unknown> {
    const channel = String(args.channel_id ?? '');
    const threadTs = String(args.thread_ts ?? '');
    if (!channel || !threadTs) return { ok: false, error: 'invalid_arguments' };
    if (!SESSION_STATUSES.has(String(args.status))) return { ok: false, error: 'invalid_arguments' };
    const title = typeof args.title === 'string' ? args.title : undefined;
    if (title !== undefined && (title.length === 0 || title.length > 200))
      return { ok: false, error: 'invalid_arguments' };
    this.sessions.push({ channel, threadTs, status: String(args.status), ...(title ? { title } : {}) });
    return { ok: true };
  }

  private start(args: Record<string, unknown>): Record<string, unknown> {
    if (this.refuseStreaming) return { ok: false, error: this.refuseStreaming };
    const channel = String(args.channel ?? '');
    if (!channel) return { ok: false, error: 'channel_not_found' };
    if (this.slack.notMemberOf.has(channel)) return { ok: false, error: 'not_in_channel' };
    if (!args.thread_ts) return { ok: false, error: 'invalid_arguments' };
    // Slack asks for both, in DMs too (though its pages call them optional there).
    if (!args.recipient_team_id) return { ok: false, error: 'missing_recipient_team_id' };
    if (!args.recipient_user_id) return { ok: false, error: 'missing_recipient_user_id' };
    const chunks = parsed(args.chunks ?? []);
    const problem = chunkProblem(chunks);
    if (problem) return { ok: false, error: problem };
    const message: StoredMessage = {
      channel,
      ts: this.slack.nextTs(),
      thread_ts: String(args.thread_ts),
      text: '',
      user: this.slack.botUserId,
      bot_id: this.slack.botId,
    };
    this.slack.messages.push(message);
    const stream: FakeStream = {
      channel,
      ts: message.ts,
      threadTs: message.thread_ts!,
      recipientUserId: String(args.recipient_user_id),
      state: 'streaming',
      startedAt: Date.now(),
      steps: new Map(),
      chunks: [],
    };
    this.streams.set(`${channel}:${message.ts}`, stream);
    this.apply(stream, chunks as unknown[]);
    return { ok: true, channel, ts: message.ts };
  }

  private continue(method: string, args: Record<string, unknown>): Record<string, unknown> {
    const stream = this.streams.get(`${String(args.channel ?? '')}:${String(args.ts ?? '')}`);
    if (!stream) return { ok: false, error: 'message_not_found' };
    if (!this.streaming(stream)) {
      this.refusedOver.push({ method, ts: stream.ts });
      return { ok: false, error: 'message_not_in_streaming_state' };
    }
    const chunks = parsed(args.chunks ?? []);
    const problem = chunkProblem(chunks);
    if (problem) return { ok: false, error: problem };
    const blocks = parsed(args.blocks ?? []);
    if (method === 'chat.stopStream' && !Array.isArray(blocks)) return { ok: false, error: 'invalid_blocks' };
    this.apply(stream, chunks as unknown[]);
    if (method === 'chat.stopStream') {
      stream.state = 'stopped';
      // The blocks end the message; metadata is kept as on any message (found again by its key).
      const message = this.slack.message(stream.channel, stream.ts);
      if (message) {
        if ((blocks as unknown[]).length > 0) message.blocks = blocks as unknown[];
        const metadata = parsed(args.metadata);
        if (metadata && typeof metadata === 'object')
          message.metadata = metadata as StoredMessage['metadata'];
      }
    }
    return { ok: true, channel: stream.channel, ts: stream.ts };
  }

  private apply(stream: FakeStream, chunks: unknown[]): void {
    for (const chunk of chunks as Array<Record<string, unknown>>) {
      stream.chunks.push(chunk);
      if (chunk.type === 'task_update') {
        const step = chunk as unknown as FakeStreamStep;
        stream.steps.set(step.id, { ...stream.steps.get(step.id), ...step });
      }
    }
  }
}

function parsed(value: unknown): unknown {
  return typeof value === 'string' ? safeParse(value) : value;
}

/** Slack's `invalid_chunks` for what it would refuse; `msg_too_long` per chunk (not cumulative). */
function chunkProblem(chunks: unknown): string | undefined {
  if (!Array.isArray(chunks)) return 'invalid_chunks';
  for (const chunk of chunks as Array<Record<string, unknown>>) {
    if (!chunk || !CHUNK_TYPES.has(String(chunk.type))) return 'invalid_chunks';
    if (chunk.type === 'task_update') {
      if (typeof chunk.id !== 'string' || typeof chunk.title !== 'string') return 'invalid_chunks';
      if (!TASK_STATUSES.has(String(chunk.status))) return 'invalid_chunks';
      if (chunk.title.length > 256) return 'msg_too_long';
    }
    if (chunk.type === 'markdown_text' && String(chunk.text ?? '').length > 12_000) return 'msg_too_long';
  }
  return undefined;
}
