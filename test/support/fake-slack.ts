import type { IncomingMessage, ServerResponse } from 'node:http';
import { FakeSlackAssistant } from './fake-slack-assistant.js';
import { FakeSlackHistory } from './fake-slack-history.js';
import { HeldCalls } from './fake-slack-holds.js';
import { FakeChannelMembers } from './fake-slack-members.js';
import { FakeSlackOAuth } from './fake-slack-oauth.js';
import { FakeSlackReactions } from './fake-slack-reactions.js';
import { manifestBotScopes, strictRefusal } from './fake-slack-strict.js';
import { FakeSlackSurfaces } from './fake-slack-surfaces.js';
import type { FakeUser, Fault, SlackCall, StoredMessage } from './fake-slack-types.js';
import { FakeSlackUnfurls } from './fake-slack-unfurls.js';
import { usersInfoAnswer } from './fake-slack-users.js';
import { listen, readBody, sendJson, waitFor } from './http.js';
import { seededRandom } from './seeded-random.js';
import { BlockKitEnforcer } from './slack-block-kit-limits.js';
import type { SlackRateTiers } from './slack-rate-tiers.js';
import { multipartFile, parseArgs, safeParse } from './slack-request.js';

export type { Fault, SlackCall, StoredMessage } from './fake-slack-types.js';

/** The scopes an install of this app grants: what manifest.yml asks for. */
const GRANTED_SCOPES = manifestBotScopes();

/**
 * A fake of Slack's Web API (the methods the bot calls) and of response_url endpoints. It records every call,
 * keeps posted messages so conversations.history/replies answer realistically, and can inject faults.
 */
export class FakeSlack {
  readonly calls: SlackCall[] = [];
  /**
   * Calls answered late by a `delay` fault: the call's index in `calls`, and how many calls had arrived when
   * it was answered, so a test says what came before the answer (an order, not a time).
   */
  readonly delayedAnswers: Array<{ method: string; call: number; callsBeforeAnswer: number }> = [];
  readonly messages: StoredMessage[] = [];
  readonly responses: Array<{ path: string; body: Record<string, unknown> }> = [];
  /** Bytes POSTed to upload URLs from files.getUploadURLExternal (files upload v2), by file id. */
  readonly uploads: Array<{ fileId: string; content: string }> = [];
  /** Channels the bot is not a member of; public ones (C…) can be joined. */
  readonly notMemberOf = new Set<string>();
  readonly users = new Map<string, FakeUser>();
  /** users.info's `team_id` per user (default T0TEAM), and `enterprise_user.enterprise_id` of Grid users. */
  readonly userTeams = new Map<string, string>();
  readonly userEnterprises = new Map<string, string>();
  /** Grid users who are admins of their whole org (users.info `enterprise_user.is_admin`). */
  readonly orgAdmins = new Set<string>();
  /** Users Slack answers `user_not_found` for. */
  readonly unknownUsers = new Set<string>();
  readonly botUserId = 'U0DOCSBOT';
  readonly botId = 'B0DOCSBOT';
  /** What apps.connections.open hands out (Socket Mode tests run a WebSocket server there). */
  socketUrl = '';
  /** Slack's per-method rate tiers (test/support/slack-rate-tiers.ts); off unless a test sets it. */
  rateTiers: SlackRateTiers | undefined;
  private readonly faults = new Map<string, Fault[]>();
  /** Faults for matching calls only: held forever, or stored but answered late (fake-slack-holds.ts). */
  readonly held = new HeldCalls();
  /** Every fault the seeded random mode injected, in order. */
  readonly randomInjected: Array<{ method: string; fault: Fault }> = [];
  private random: { rate: number; faults: Record<string, Fault[]>; next: () => number } | undefined;
  private tsCounter = 0;
  /** Block Kit limits, response_url rules, and every refusal they caused (`blockKit.refusals`). */
  readonly blockKit = new BlockKitEnforcer();
  /** Modals, Home tabs, trigger_ids, single-message reads; members of channels (fake-slack-members.ts). */
  readonly surfaces = new FakeSlackSurfaces();
  /** Reactions per message (add/remove with Slack's errors). */
  readonly reactions = new FakeSlackReactions(this.botUserId);
  readonly members = new FakeChannelMembers(this);
  /** conversations.history / replies, paged with cursors as Slack pages them. */
  readonly history = new FakeSlackHistory(this);
  readonly assistant = new FakeSlackAssistant(this);
  /** Link previews: chat.unfurl only for links announced with `unfurls.share` (fake-slack-unfurls.ts). */
  readonly unfurls = new FakeSlackUnfurls();
  /** "Add to Slack": authorize page, oauth.v2.access, auth.test per token (fake-slack-oauth.ts). */
  readonly oauth = new FakeSlackOAuth(this);
  private responseUrlCounter = 0;
  private close_: (() => Promise<void>) | undefined;
  url = '';

  static async start(): Promise<FakeSlack> {
    const fake = new FakeSlack();
    const server = await listen((req, res) => fake.handle(req, res));
    fake.url = server.url;
    fake.close_ = server.close;
    return fake;
  }

  get apiUrl(): string {
    return `${this.url}/api/`;
  }

  /** A response_url; without an id each call mints a fresh one (Slack gives every request its own). */
  responseUrl(id?: string): string {
    this.responseUrlCounter += 1;
    return `${this.url}/response/${id ?? `cmd-${this.responseUrlCounter}`}`;
  }

  /** The next `times` calls of `method` fail this way. */
  inject(method: string, fault: Fault, times = 1): void {
    const list = this.faults.get(method) ?? [];
    for (let i = 0; i < times; i++) list.push(fault);
    this.faults.set(method, list);
  }

  /**
   * Seeded random faults: a call of a method listed in `faults` (after explicit `inject` faults) fails with
   * probability `rate`, with a fault drawn from that method's list. `undefined` turns the mode off.
   */
  randomFaults(options: { seed: number; rate: number; faults: Record<string, Fault[]> } | undefined): void {
    if (!options) {
      this.random = undefined;
      return;
    }
    this.random = { rate: options.rate, faults: options.faults, next: seededRandom(options.seed) };
  }

  private randomFault(method: string, args: Record<string, unknown>): Fault | undefined {
    const choices = this.random?.faults[method];
    if (!this.random || !choices?.length || this.random.next() >= this.random.rate) return undefined;
    const fault = choices[Math.floor(this.random.next() * choices.length)]!;
    // Layout errors only happen to calls that carry blocks (a text-only post cannot have invalid blocks).
    const hasBlocks = Array.isArray(args.blocks) && args.blocks.length > 0;
    if (fault.kind === 'error' && /blocks|msg_too_long/.test(fault.error) && !hasBlocks) return undefined;
    this.randomInjected.push({ method, fault });
    return fault;
  }

  callsOf = (method: string): SlackCall[] => this.calls.filter((call) => call.method === method);

  threadReplies(channel: string, threadTs: string): StoredMessage[] {
    return this.messages.filter(
      (m) => m.channel === channel && m.thread_ts === threadTs && m.ts !== threadTs,
    );
  }

  message(channel: string, ts: string): StoredMessage | undefined {
    return this.messages.find((m) => m.channel === channel && m.ts === ts);
  }

  waitForCall(
    method: string,
    predicate: (call: SlackCall) => boolean = () => true,
    timeoutMs = 5000,
  ): Promise<SlackCall> {
    return waitFor(() => this.calls.find((c) => c.method === method && predicate(c)), {
      timeoutMs,
      what: `Slack ${method}`,
    });
  }

  /** Everything the bot sent to Slack (messages, updates, responses) except the token it authenticates with. */
  everythingSent(): string {
    const args = this.calls.map(({ args: { token: _token, ...rest } }) => rest);
    return JSON.stringify({ calls: args, responses: this.responses });
  }

  nextTs(): string {
    this.tsCounter += 1;
    return `${Math.floor(Date.now() / 1000)}.${String(this.tsCounter).padStart(6, '0')}`;
  }

  close = async (): Promise<void> => this.close_?.();

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = await readBody(req);
    const path = req.url ?? '/';
    if (this.oauth.page(req, res)) return;
    if (path.startsWith('/upload/')) {
      this.uploads.push({
        fileId: path.slice('/upload/'.length),
        content: multipartFile(raw, req.headers['content-type']),
      });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('OK');
      return;
    }
    if (path.startsWith('/response/')) {
      // `inject('response_url', …)`: a status fault answers without taking the answer.
      const fault = this.faults.get('response_url')?.shift();
      if (fault?.kind === 'status') return sendJson(res, fault.status, { ok: false, error: 'fault' });
      const body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
      const refusal = this.blockKit.responseUrlRefusal(path, body);
      if (refusal) {
        res.writeHead(refusal.status, { 'content-type': 'text/plain' });
        res.end(refusal.error);
        return;
      }
      this.responses.push({ path, body });
      sendJson(res, 200, { ok: true });
      return;
    }
    const method = path.replace(/^\/api\//, '').split('?')[0] ?? '';
    const args = parseArgs(raw, req.headers['content-type']);
    const { authorization } = req.headers;
    this.calls.push({ method, args, authorization });
    const call = this.calls.length - 1;
    const tenant = this.oauth.tenantOf(authorization, args) ?? 'T0TEAM';
    // Refused before anything else, as Slack does: an unknown method, a missing token or scope.
    const strict = strictRefusal(method, args, authorization, GRANTED_SCOPES);
    if (strict) return sendJson(res, 200, strict);
    const retryAfter = this.rateTiers?.take(method, tenant, args);
    if (retryAfter !== undefined)
      return sendJson(res, 429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(retryAfter) });
    if (await this.held.apply(method, args, res, () => this.answer(method, args, authorization))) return;
    const fault = this.faults.get(method)?.shift() ?? this.randomFault(method, args);
    if (fault) {
      if (fault.kind === 'error') return sendJson(res, 200, { ok: false, error: fault.error });
      if (fault.kind === 'status') {
        const headers: Record<string, string> =
          fault.retryAfter === undefined ? {} : { 'retry-after': String(fault.retryAfter) };
        return sendJson(res, fault.status, { ok: false, error: 'fault' }, headers);
      }
      if (fault.kind === 'drop') {
        req.socket.destroy();
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, fault.ms));
      this.delayedAnswers.push({ method, call, callsBeforeAnswer: this.calls.length });
      if (!fault.thenSucceed) {
        res.destroy();
        return;
      }
    }
    const refused = this.blockKit.methodRefusal(method, args);
    if (refused) return sendJson(res, 200, refused);
    sendJson(res, 200, this.answer(method, args, authorization));
  }

  private answer(method: string, args: Record<string, unknown>, auth?: string): Record<string, unknown> {
    const surfaced =
      this.oauth.answer(method, args, auth) ??
      this.history.answer(method, args) ??
      this.surfaces.answer(method, args) ??
      this.reactions.answer(method, args) ??
      this.members.answer(method, args) ??
      this.assistant.answer(method, args) ??
      this.unfurls.answer(method, args);
    if (surfaced) return surfaced;
    const channel = String(args.channel ?? '');
    switch (method) {
      case 'apps.connections.open':
        return this.socketUrl ? { ok: true, url: this.socketUrl } : { ok: false, error: 'invalid_auth' };
      case 'chat.postMessage': {
        if (this.notMemberOf.has(channel))
          return { ok: false, error: channel.startsWith('C') ? 'not_in_channel' : 'channel_not_found' };
        const message: StoredMessage = {
          channel,
          ts: this.nextTs(),
          text: String(args.text ?? ''),
          blocks: args.blocks as unknown[] | undefined,
          metadata: args.metadata as StoredMessage['metadata'],
          user: this.botUserId,
          bot_id: this.botId,
          ...(args.thread_ts ? { thread_ts: String(args.thread_ts) } : {}),
        };
        this.messages.push(message);
        return { ok: true, channel, ts: message.ts, message };
      }
      case 'chat.update': {
        const message = this.message(channel, String(args.ts));
        if (!message) return { ok: false, error: 'message_not_found' };
        message.text = String(args.text ?? '');
        message.blocks = args.blocks as unknown[] | undefined;
        return { ok: true, channel, ts: message.ts };
      }
      case 'chat.delete': {
        const index = this.messages.findIndex((m) => m.channel === channel && m.ts === String(args.ts));
        if (index === -1) return { ok: false, error: 'message_not_found' };
        this.messages.splice(index, 1);
        return { ok: true, channel, ts: String(args.ts) };
      }
      case 'chat.postEphemeral':
        return { ok: true, message_ts: this.nextTs() };
      case 'conversations.join':
        if (!channel.startsWith('C')) return { ok: false, error: 'method_not_supported_for_channel_type' };
        this.notMemberOf.delete(channel);
        return { ok: true, channel: { id: channel } };
      case 'files.getUploadURLExternal': {
        const fileId = `F${String(this.calls.length).padStart(8, '0')}`;
        return { ok: true, file_id: fileId, upload_url: `${this.url}/upload/${fileId}` };
      }
      case 'files.completeUploadExternal': {
        if (this.notMemberOf.has(String(args.channel_id ?? '')))
          return { ok: false, error: 'not_in_channel' };
        const files = (typeof args.files === 'string' ? safeParse(args.files) : args.files) as unknown;
        return { ok: true, files: Array.isArray(files) ? files : [] };
      }
      case 'users.info':
        return usersInfoAnswer(this, args);
      // The DM with a user: one per user, as Slack keeps it.
      case 'conversations.open':
        return { ok: true, channel: { id: `D${String(args.users ?? '').replace(/^U/, '')}` } };
      default:
        return { ok: true };
    }
  }
}
