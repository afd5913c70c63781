import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type DemoStream, StandInAssistant } from './stand-in-assistant.js';

type Json = Record<string, unknown>;

export const DEMO_TEAM = 'T0DEMO';
export const DEMO_CHANNEL = 'C0DEMODOCS';
export const DEMO_USER = 'U0DEMOALEX';
export const BOT_USER = 'U0DOCSBOT';
/** The person's DM with the app: its Messages tab and the assistant's threads. */
export const DEMO_DM = 'D0DEMOALEX';

export interface DemoMessage {
  ts: string;
  channel: string;
  user: string;
  text: string;
  blocks?: unknown[];
  thread_ts?: string;
  /** Only the person sees it (chat.postEphemeral, a command's answer). */
  ephemeral?: boolean;
  reactions: string[];
  /** Link previews the bot attached with chat.unfurl, by URL. */
  unfurls?: Record<string, unknown>;
  /** A streamed message (chat.startStream): its steps and text so far. */
  stream?: DemoStream;
}

export interface RecordedCall {
  at: string;
  method: string;
  summary: string;
}

/**
 * Slack's Web API for the playground: keeps the channel's messages, the modal and App Home the bot opens,
 * reactions and unfurls, and records every call so the page can list them. One channel, one person.
 */
export class StandInSlack {
  readonly messages: DemoMessage[] = [];
  readonly calls: RecordedCall[] = [];
  modal: Json | undefined;
  modalId = '';
  /** A modal's field errors from the last refused submission, by block id. */
  modalErrors: Record<string, string> = {};
  home: Json | undefined;
  /** The assistant thread open beside the channel (the split view), if any. */
  assistantThread: string | undefined;
  readonly assistant = new StandInAssistant(this.messages, () => this.nextTs(), BOT_USER);
  private tsCounter = 0;
  private responseCounter = 0;
  private readonly responseSources = new Map<string, string>();
  private server: Server | undefined;
  private readonly listeners = new Set<() => void>();
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve));
  }

  /** Called after every change (the page pushes an update to the browser). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  changed(): void {
    for (const listener of this.listeners) listener();
  }

  nextTs(): string {
    this.tsCounter += 1;
    return `${Math.floor(Date.now() / 1000)}.${String(this.tsCounter).padStart(6, '0')}`;
  }

  /** A response_url; `sourceTs` is the message a button was clicked on (replace_original acts on it). */
  responseUrl(sourceTs?: string): string {
    this.responseCounter += 1;
    const path = `/response/r${this.responseCounter}`;
    if (sourceTs) this.responseSources.set(path, sourceTs);
    return `${this.url}${path}`;
  }

  /** A message the person wrote (the page posts it here before sending the event to the bot). */
  addUserMessage(text: string, threadTs?: string, channel = DEMO_CHANNEL): DemoMessage {
    const message: DemoMessage = {
      ts: this.nextTs(),
      channel,
      user: DEMO_USER,
      text,
      reactions: [],
      ...(threadTs ? { thread_ts: threadTs } : {}),
    };
    this.messages.push(message);
    this.changed();
    return message;
  }

  /** What a command's HTTP answer or a response_url post shows: Slack's `respond` semantics. */
  respond(body: Json, source?: { ts: string }): void {
    const original = source ? this.find(source.ts) : undefined;
    if (body.delete_original === true && original) this.messages.splice(this.messages.indexOf(original), 1);
    else if (body.replace_original === true && original) Object.assign(original, messageFields(body));
    else if (body.text !== undefined || body.blocks !== undefined)
      this.messages.push({
        ts: this.nextTs(),
        channel: DEMO_CHANNEL,
        user: BOT_USER,
        reactions: [],
        ...messageFields(body),
        ...(body.response_type === 'in_channel' ? {} : { ephemeral: true }),
      });
    this.changed();
  }

  find(ts: string): DemoMessage | undefined {
    return this.messages.find((m) => m.ts === ts);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const path = req.url ?? '/';
    const args = parseArgs(raw, req.headers['content-type']);
    const send = (body: Json) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (path.startsWith('/response/')) {
      this.record('response_url', args);
      const sourceTs = this.responseSources.get(path);
      this.respond(args, sourceTs ? { ts: sourceTs } : undefined);
      return send({ ok: true });
    }
    const method = path.replace(/^\/api\//, '').split('?')[0] ?? '';
    this.record(method, args);
    const answer = this.answer(method, args);
    this.changed();
    send(answer);
  }

  private record(method: string, args: Json): void {
    const { token: _token, blocks, view, ...rest } = args;
    const detail = JSON.stringify(rest);
    const extra = blocks ? ` +${(blocks as unknown[]).length} blocks` : view ? ' +view' : '';
    this.calls.push({ at: new Date().toISOString(), method, summary: `${detail.slice(0, 160)}${extra}` });
    if (this.calls.length > 200) this.calls.shift();
  }

  private answer(method: string, args: Json): Json {
    const ts = String(args.ts ?? '');
    const assistant = this.assistant.answer(method, args);
    if (assistant) return assistant;
    switch (method) {
      case 'auth.test':
        return { ok: true, team_id: DEMO_TEAM, team: 'Acme', user_id: BOT_USER, bot_id: 'B0DOCSBOT' };
      case 'chat.postMessage':
      case 'chat.postEphemeral': {
        const message: DemoMessage = {
          ts: this.nextTs(),
          channel: String(args.channel ?? DEMO_CHANNEL),
          user: BOT_USER,
          reactions: [],
          ...messageFields(args),
          ...(args.thread_ts ? { thread_ts: String(args.thread_ts) } : {}),
          ...(method === 'chat.postEphemeral' ? { ephemeral: true } : {}),
        };
        this.messages.push(message);
        if (message.thread_ts) this.assistant.posted(message.channel, message.thread_ts);
        return { ok: true, channel: message.channel, ts: message.ts, message_ts: message.ts, message };
      }
      case 'chat.update': {
        const message = this.find(ts);
        if (!message) return { ok: false, error: 'message_not_found' };
        Object.assign(message, messageFields(args));
        return { ok: true, channel: message.channel, ts };
      }
      case 'chat.delete': {
        const message = this.find(ts);
        if (message) this.messages.splice(this.messages.indexOf(message), 1);
        return message ? { ok: true, ts } : { ok: false, error: 'message_not_found' };
      }
      case 'chat.unfurl': {
        const message = this.find(ts);
        const unfurls = typeof args.unfurls === 'object' ? (args.unfurls as Json) : {};
        if (message) message.unfurls = { ...message.unfurls, ...unfurls };
        return { ok: true };
      }
      case 'reactions.add':
      case 'reactions.remove': {
        const message = this.find(String(args.timestamp ?? ''));
        const name = String(args.name ?? '');
        if (!message) return { ok: false, error: 'message_not_found' };
        const has = message.reactions.includes(name);
        if (method === 'reactions.add' && has) return { ok: false, error: 'already_reacted' };
        if (method === 'reactions.remove' && !has) return { ok: false, error: 'no_reaction' };
        message.reactions = has ? message.reactions.filter((r) => r !== name) : [...message.reactions, name];
        return { ok: true };
      }
      case 'views.open':
      case 'views.update':
      case 'views.push': {
        this.modal = args.view as Json;
        this.modalId = `V${this.nextTs().replace('.', '')}`;
        return { ok: true, view: { ...this.modal, id: this.modalId } };
      }
      case 'views.publish':
        this.home = args.view as Json;
        return { ok: true, view: { ...this.home, id: 'VHOME' } };
      case 'conversations.history':
      case 'conversations.replies': {
        const thread = String(args.ts ?? '');
        const channel = String(args.channel ?? DEMO_CHANNEL);
        const visible = this.messages.filter((m) => !m.ephemeral && m.channel === channel);
        const list =
          method === 'conversations.history'
            ? visible.filter((m) => !m.thread_ts || m.thread_ts === m.ts).reverse()
            : visible.filter((m) => m.ts === thread || m.thread_ts === thread);
        const limited = ts && method === 'conversations.history' ? list.filter((m) => m.ts === ts) : list;
        return {
          ok: true,
          messages: limited.map(({ reactions: _r, ephemeral: _e, stream: _s, ...m }) => m),
          has_more: false,
        };
      }
      case 'conversations.members':
        return { ok: true, members: [DEMO_USER, BOT_USER], response_metadata: { next_cursor: '' } };
      case 'conversations.open':
        return { ok: true, channel: { id: `D${String(args.users ?? '').replace(/^U/, '')}` } };
      case 'conversations.join':
        return { ok: true, channel: { id: String(args.channel ?? '') } };
      case 'users.info':
        return {
          ok: true,
          user: {
            id: String(args.user),
            team_id: DEMO_TEAM,
            name: 'alex',
            real_name: 'Alex Rivera',
            profile: { display_name: 'alex' },
            is_restricted: false,
            is_admin: true,
            tz: 'Europe/Berlin',
          },
        };
      default:
        return { ok: true };
    }
  }
}

function messageFields(args: Json): Pick<DemoMessage, 'text' | 'blocks'> {
  return {
    text: String(args.text ?? ''),
    ...(Array.isArray(args.blocks) ? { blocks: args.blocks } : { blocks: undefined }),
  };
}

function parseArgs(raw: string, contentType: string | undefined): Json {
  if (!raw) return {};
  try {
    if (contentType?.includes('application/json')) return JSON.parse(raw) as Json;
  } catch {
    return {};
  }
  const args: Json = {};
  for (const [key, value] of new URLSearchParams(raw)) {
    try {
      args[key] = /^[[{]/.test(value) ? JSON.parse(value) : value;
    } catch {
      args[key] = value;
    }
  }
  return args;
}
