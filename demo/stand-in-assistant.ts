import type { DemoMessage } from './stand-in-slack.js';

type Json = Record<string, unknown>;

/** A streamed message's steps (`task_update` chunks, latest per id) and its markdown text, as Slack shows them. */
export interface DemoStream {
  state: 'streaming' | 'stopped';
  text: string;
  steps: Array<{ id: string; title: string; status: string; details?: string; output?: string }>;
}

/** The AI app container's thread state the page draws: status line, title, suggested prompts. */
export interface AssistantThread {
  channel: string;
  threadTs: string;
  status: string;
  title: string;
  prompts: Array<{ title: string; message: string }>;
  session: string;
}

/**
 * Slack's AI app container for the playground: assistant.threads.* and agents.sessions.setStatus keep a
 * thread's status, title and prompts; chat.startStream / appendStream / stopStream make a streamed message.
 */
export class StandInAssistant {
  readonly threads = new Map<string, AssistantThread>();

  constructor(
    private readonly messages: DemoMessage[],
    private readonly nextTs: () => string,
    private readonly botUser: string,
  ) {}

  thread(channel: string, threadTs: string): AssistantThread {
    const key = `${channel}:${threadTs}`;
    let thread = this.threads.get(key);
    if (!thread) {
      thread = { channel, threadTs, status: '', title: '', prompts: [], session: '' };
      this.threads.set(key, thread);
    }
    return thread;
  }

  /** The bot posted in a thread: its status line clears, as Slack clears it. */
  posted(channel: string, threadTs: string): void {
    const thread = this.threads.get(`${channel}:${threadTs}`);
    if (thread) thread.status = '';
  }

  answer(method: string, args: Json): Json | undefined {
    switch (method) {
      case 'assistant.threads.setStatus':
      case 'assistant.threads.setTitle':
      case 'assistant.threads.setSuggestedPrompts':
      case 'agents.sessions.setStatus': {
        const thread = this.thread(String(args.channel_id ?? ''), String(args.thread_ts ?? ''));
        if (method === 'assistant.threads.setStatus') thread.status = String(args.status ?? '');
        if (method === 'assistant.threads.setTitle') thread.title = String(args.title ?? '');
        if (method === 'agents.sessions.setStatus') thread.session = String(args.status ?? '');
        if (method === 'assistant.threads.setSuggestedPrompts') {
          const prompts = Array.isArray(args.prompts) ? (args.prompts as Json[]) : [];
          thread.prompts = prompts
            .slice(0, 4)
            .map((p) => ({ title: String(p?.title ?? ''), message: String(p?.message ?? '') }));
        }
        return { ok: true };
      }
      case 'chat.startStream': {
        const message: DemoMessage = {
          ts: this.nextTs(),
          channel: String(args.channel ?? ''),
          user: this.botUser,
          text: '',
          thread_ts: String(args.thread_ts ?? ''),
          reactions: [],
          stream: { state: 'streaming', text: '', steps: [] },
        };
        this.messages.push(message);
        this.apply(message, args);
        // The status line clears when the bot's message arrives, as in Slack.
        this.thread(message.channel, message.thread_ts ?? '').status = '';
        return { ok: true, channel: message.channel, ts: message.ts };
      }
      case 'chat.appendStream':
      case 'chat.stopStream': {
        const message = this.messages.find((m) => m.ts === String(args.ts ?? '') && m.stream);
        if (!message?.stream) return { ok: false, error: 'message_not_found' };
        if (message.stream.state === 'stopped') return { ok: false, error: 'message_not_in_streaming_state' };
        this.apply(message, args);
        if (method === 'chat.stopStream') {
          message.stream.state = 'stopped';
          if (Array.isArray(args.blocks) && args.blocks.length > 0) message.blocks = args.blocks;
        }
        return { ok: true, channel: message.channel, ts: message.ts };
      }
      default:
        return undefined;
    }
  }

  private apply(message: DemoMessage, args: Json): void {
    const stream = message.stream;
    if (!stream) return;
    if (typeof args.markdown_text === 'string') stream.text += args.markdown_text;
    const chunks = Array.isArray(args.chunks) ? (args.chunks as Json[]) : [];
    for (const chunk of chunks.slice(0, 50)) {
      if (chunk?.type === 'markdown_text') stream.text += String(chunk.text ?? '');
      if (chunk?.type !== 'task_update') continue;
      const step = {
        id: String(chunk.id ?? ''),
        title: String(chunk.title ?? ''),
        status: String(chunk.status ?? ''),
        ...(chunk.details ? { details: String(chunk.details) } : {}),
        ...(chunk.output ? { output: String(chunk.output) } : {}),
      };
      const at = stream.steps.findIndex((s) => s.id === step.id);
      if (at >= 0) stream.steps[at] = step;
      else stream.steps.push(step);
    }
  }
}
