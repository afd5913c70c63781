import { createHmac, randomBytes } from 'node:crypto';
import { addReaction, assistantMessage, messageShortcut } from './bot-events.js';
import {
  BOT_USER,
  DEMO_CHANNEL,
  DEMO_TEAM,
  DEMO_USER,
  type DemoMessage,
  type StandInSlack,
} from './stand-in-slack.js';

type Json = Record<string, unknown>;

/** What the person did on the page, as the page script posts it. */
export interface PageAction {
  kind: 'type' | 'click' | 'submit' | 'home' | 'close' | 'scenario' | 'shortcut' | 'react' | 'assistant';
  text?: string;
  threadTs?: string;
  /** Where a clicked element is: a message's ts, `modal` or `home`. */
  surface?: string;
  actionId?: string;
  blockId?: string;
  value?: string;
  elementType?: string;
  /** A scenario bar's button (`scenario`). */
  name?: string;
  /** Modal inputs: block id → { action id, kind, value }. */
  inputs?: Record<string, { action: string; kind: string; value: string }>;
}

export const user = { id: DEMO_USER, username: 'alex', name: 'alex', team_id: DEMO_TEAM };
export const triggerId = () => `${Date.now()}.4242.${randomBytes(8).toString('hex')}`;

/**
 * Turns the person's actions into the signed requests Slack would send the bot (slash commands, events,
 * interactivity) and applies what the bot answers on the HTTP response (a command's text, a modal's errors).
 */
export class BotRequests {
  constructor(
    private readonly slack: StandInSlack,
    private readonly eventsUrl: string,
    private readonly signingSecret: string,
  ) {}

  async perform(action: PageAction): Promise<void> {
    if (action.kind === 'type') return this.type(String(action.text ?? '').slice(0, 4000), action.threadTs);
    if (action.kind === 'home')
      return void (await this.post(
        JSON.stringify(
          this.envelope({ type: 'app_home_opened', user: DEMO_USER, channel: 'D0DEMOHOME', tab: 'home' }),
        ),
        'application/json',
      ));
    if (action.kind === 'click') return this.click(action);
    if (action.kind === 'shortcut') return messageShortcut(this, this.slack, String(action.surface ?? ''));
    if (action.kind === 'react') return addReaction(this, this.slack, String(action.surface ?? ''), 'memo');
    if (action.kind === 'assistant')
      return assistantMessage(this, this.slack, String(action.text ?? '').slice(0, 4000));
    if (action.kind === 'close' && action.surface === 'assistant') {
      this.slack.assistantThread = undefined;
      return this.slack.changed();
    }
    if (action.kind === 'close') {
      this.slack.modal = undefined;
      this.slack.modalErrors = {};
      return this.slack.changed();
    }
    return this.submit(action);
  }

  private async type(text: string, threadTs: string | undefined): Promise<void> {
    const command = /^(\/docs-agent|\/docs-views|\/docs-health)(?:\s+([\s\S]*))?$/.exec(text.trim());
    if (command && !threadTs) {
      const body = new URLSearchParams({
        token: 'unused',
        team_id: DEMO_TEAM,
        team_domain: 'acme',
        channel_id: DEMO_CHANNEL,
        channel_name: 'docs',
        user_id: DEMO_USER,
        user_name: 'alex',
        command: command[1] ?? '',
        text: command[2] ?? '',
        api_app_id: 'A0DEMOAPP',
        is_enterprise_install: 'false',
        response_url: this.slack.responseUrl(),
        trigger_id: triggerId(),
      }).toString();
      const answer = await this.post(body, 'application/x-www-form-urlencoded');
      this.applyAnswer(answer);
      return;
    }
    const message = this.slack.addUserMessage(text, threadTs);
    const event = {
      type: 'message',
      channel: DEMO_CHANNEL,
      channel_type: 'channel',
      user: DEMO_USER,
      team: DEMO_TEAM,
      text,
      ts: message.ts,
      event_ts: message.ts,
      ...(threadTs ? { thread_ts: threadTs } : {}),
    };
    await this.post(JSON.stringify(this.envelope(event)), 'application/json');
    // Slack announces links of the app's unfurl domains with `link_shared` (the docs site, the PRs' host).
    const links = [...text.matchAll(/https:\/\/(docs\.acme\.dev|github\.com)\/[^\s<>|]{0,500}/g)].slice(0, 5);
    if (links.length === 0) return;
    const shared = {
      type: 'link_shared',
      channel: DEMO_CHANNEL,
      user: DEMO_USER,
      user_team: DEMO_TEAM,
      message_ts: message.ts,
      ...(threadTs ? { thread_ts: threadTs } : {}),
      source: 'conversations_history',
      is_bot_user_member: true,
      links: links.map(([url, domain]) => ({ url, domain })),
      event_ts: message.ts,
    };
    await this.post(JSON.stringify(this.envelope(shared)), 'application/json');
  }

  private async click(action: PageAction): Promise<void> {
    const surface = action.surface ?? '';
    const message = this.slack.find(surface);
    const clicked = {
      type: action.elementType === 'button' ? 'button' : action.elementType,
      action_id: action.actionId,
      block_id: action.blockId,
      action_ts: String(Date.now() / 1000),
      ...(action.elementType === 'button'
        ? { value: action.value }
        : { selected_option: { value: action.value, text: { type: 'plain_text', text: action.value } } }),
    };
    const payload: Json = {
      type: 'block_actions',
      team: { id: DEMO_TEAM, domain: 'acme' },
      user,
      api_app_id: 'A0DEMOAPP',
      trigger_id: triggerId(),
      actions: [clicked],
      ...(message ? this.messageContext(message) : {}),
      ...(surface === 'home' && this.slack.home
        ? { container: { type: 'view', view_id: 'VHOME' }, view: { ...this.slack.home, id: 'VHOME' } }
        : {}),
      ...(surface === 'modal' && this.slack.modal
        ? { container: { type: 'view', view_id: this.slack.modalId }, view: this.modalView(action.inputs) }
        : {}),
    };
    await this.interact(payload);
  }

  private messageContext(message: DemoMessage): Json {
    return {
      container: {
        type: message.ephemeral ? 'message' : 'message',
        message_ts: message.ts,
        channel_id: message.channel,
        is_ephemeral: Boolean(message.ephemeral),
        ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
      },
      channel: { id: message.channel, name: message.channel === DEMO_CHANNEL ? 'docs' : 'directmessage' },
      ...(message.ephemeral
        ? {}
        : {
            message: {
              type: 'message',
              user: message.user,
              ...(message.user === BOT_USER ? { bot_id: 'B0DOCSBOT' } : {}),
              ts: message.ts,
              text: message.text,
              blocks: message.blocks,
              ...(message.thread_ts ? { thread_ts: message.thread_ts } : {}),
            },
          }),
      response_url: this.slack.responseUrl(message.ts),
    };
  }

  private modalView(inputs: PageAction['inputs'] = {}): Json {
    const values: Record<string, Record<string, Json>> = {};
    for (const [blockId, { action, kind, value }] of Object.entries(inputs)) {
      values[blockId] = {
        [action]:
          kind === 'text'
            ? { type: 'plain_text_input', value }
            : kind === 'timepicker'
              ? { type: kind, selected_time: value || null }
              : kind === 'multi_users_select'
                ? { type: kind, selected_users: value.split(/[\s,]+/).filter(Boolean) }
                : kind === 'checkboxes'
                  ? {
                      type: kind,
                      selected_options: value ? [{ value, text: { type: 'plain_text', text: value } }] : [],
                    }
                  : kind === 'conversations_select'
                    ? { type: kind, selected_conversation: value }
                    : kind === 'channels_select'
                      ? { type: kind, selected_channel: value }
                      : { type: kind, selected_option: { value, text: { type: 'plain_text', text: value } } },
      };
    }
    return { ...this.slack.modal, id: this.slack.modalId, state: { values } };
  }

  private async submit(action: PageAction): Promise<void> {
    if (!this.slack.modal) return;
    const payload = {
      type: 'view_submission',
      team: { id: DEMO_TEAM, domain: 'acme' },
      user,
      api_app_id: 'A0DEMOAPP',
      trigger_id: triggerId(),
      view: this.modalView(action.inputs),
    };
    const answer = await this.interact(payload);
    const body = parseJson(answer);
    if (body?.response_action === 'errors') {
      this.slack.modalErrors = (body.errors as Record<string, string>) ?? {};
    } else if (body?.response_action === 'update' || body?.response_action === 'push') {
      this.slack.modal = body.view as Json;
      this.slack.modalErrors = {};
    } else {
      this.slack.modal = undefined;
      this.slack.modalErrors = {};
    }
    this.slack.changed();
  }

  interact(payload: Json): Promise<string> {
    return this.post(
      new URLSearchParams({ payload: JSON.stringify(payload) }).toString(),
      'application/x-www-form-urlencoded',
    );
  }

  envelope(event: Json): Json {
    return {
      type: 'event_callback',
      token: 'unused',
      team_id: DEMO_TEAM,
      api_app_id: 'A0DEMOAPP',
      event,
      event_id: `Ev${randomBytes(6).toString('hex').toUpperCase()}`,
      event_time: Math.floor(Date.now() / 1000),
      authorizations: [{ team_id: DEMO_TEAM, user_id: BOT_USER, is_bot: true, is_enterprise_install: false }],
    };
  }

  private applyAnswer(answer: string): void {
    const body = parseJson(answer);
    if (body) this.slack.respond(body);
    else if (answer.trim()) this.slack.respond({ text: answer });
  }

  /** POSTs a body signed as Slack signs it: v0=HMAC-SHA256(secret, "v0:{timestamp}:{body}"). */
  async post(body: string, contentType: string): Promise<string> {
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = createHmac('sha256', this.signingSecret)
      .update(`v0:${timestamp}:${body}`)
      .digest('hex');
    const response = await fetch(this.eventsUrl, {
      method: 'POST',
      headers: {
        'content-type': contentType,
        'x-slack-request-timestamp': String(timestamp),
        'x-slack-signature': `v0=${signature}`,
      },
      body,
    });
    return response.text();
  }
}

function parseJson(text: string): Json | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? (value as Json) : undefined;
  } catch {
    return undefined;
  }
}
