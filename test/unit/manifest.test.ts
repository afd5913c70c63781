import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from '@slack/bolt';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { parseAssistantWords } from '../../src/slack/assistant-words.js';
import { registerListeners, type SlackDeps } from '../../src/slack/listeners/index.js';
import { ASSISTANT_PROMPTS } from '../../src/slack/messages/assistant-replies.js';

/*
 * What the project owns about its manifest: everything the code registers with Bolt is declared, and the
 * bot scopes are exactly those its Web API calls and event subscriptions need. Validation against Slack's
 * published schema is `scripts/check-manifest.ts` (run by `.ci/run` where that schema is available): tests
 * never read outside the repository.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const text = readFileSync(join(ROOT, 'manifest.yml'), 'utf8');
const manifest = parse(text);
const botScopes: string[] = manifest.oauth_config.scopes.bot;
const botEvents: string[] = manifest.settings.event_subscriptions.bot_events;

const LOOKUP_SCOPES = ['channels:history', 'groups:history', 'im:history', 'mpim:history'];

/** Bot scope each Web API method the code calls needs (Slack's method pages); `[]` for none. */
const METHOD_SCOPES: Record<string, string[]> = {
  'auth.test': [],
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.delete': ['chat:write'],
  'conversations.join': ['channels:join'],
  // Home's New job checks the user and the bot are in the picked public or private channel.
  'conversations.members': ['channels:read', 'groups:read'],
  // Reading a thread, and the look-up of a post by its key after an unknown outcome, in every kind of
  // conversation the bot posts in: public and private channels, DMs and group DMs (mpim).
  'conversations.history': LOOKUP_SCOPES,
  'conversations.replies': LOOKUP_SCOPES,
  'users.info': ['users:read'],
  'reactions.add': ['reactions:write'],
  'reactions.remove': ['reactions:write'],
  'files.uploadV2': ['files:write'],
  // Modals need no scope of their own: the trigger_id of the user's interaction authorises them.
  'views.open': [],
  // Home tabs likewise: publishing a user's Home needs only the Home tab enabled (features.app_home).
  'views.publish': [],
  // The AI app container (Slack's method pages: assistant:write).
  'assistant.threads.setStatus': ['assistant:write'],
  'assistant.threads.setSuggestedPrompts': ['assistant:write'],
  'assistant.threads.setTitle': ['assistant:write'],
  // Streamed messages are messages: chat:write. `client.chatStream()` starts one with chat.startStream.
  'chat.startStream': ['chat:write'],
  'chat.appendStream': ['chat:write'],
  'chat.stopStream': ['chat:write'],
  // Link previews.
  'chat.unfurl': ['links:write'],
  // Thread-based agent sessions (Slack's agent-sessions guide: chat:write manages them).
  'agents.sessions.setStatus': ['chat:write'],
};
/** Bot scope each event subscription needs (`null`: none). */
const EVENT_SCOPES: Record<string, string | null> = {
  app_home_opened: null,
  app_mention: 'app_mentions:read',
  'message.channels': 'channels:history',
  'message.groups': 'groups:history',
  'message.im': 'im:history',
  'message.mpim': 'mpim:history',
  reaction_added: 'reactions:read',
  assistant_thread_started: 'assistant:write',
  assistant_thread_context_changed: 'assistant:write',
  app_uninstalled: null,
  tokens_revoked: null,
  link_shared: 'links:read',
  // Agent sessions belong to apps declared as agents, which carry assistant:write.
  agent_session_stopped: 'assistant:write',
};
/** Event types a listener could match; a registered pattern is tried against each. */
const KNOWN_EVENT_TYPES = [
  'message',
  'app_mention',
  'app_home_opened',
  'reaction_added',
  'member_joined_channel',
  'assistant_thread_started',
  'assistant_thread_context_changed',
  'app_uninstalled',
  'tokens_revoked',
  'link_shared',
  'agent_session_stopped',
];
/** The events Bolt's `Assistant` routes (besides messages in DM threads, which need message.im). */
const ASSISTANT_EVENTS = ['assistant_thread_started', 'assistant_thread_context_changed', 'message'];

/** The Bolt registrations of the real listeners, recorded on a real (never started) Bolt app. */
function recordRegistrations() {
  const app = new App({ signingSecret: 'unused', authorize: async () => ({}) });
  const seen = {
    commands: [] as string[],
    actions: 0,
    events: [] as string[],
    shortcuts: 0,
    views: 0,
    assistant: 0,
  };
  const patterns: Array<string | RegExp> = [];
  app.command = ((name: string) => void seen.commands.push(name)) as never;
  app.action = (() => void seen.actions++) as never;
  app.shortcut = (() => void seen.shortcuts++) as never;
  app.view = (() => void seen.views++) as never;
  app.options = (() => void seen.views++) as never;
  app.message = (() => void patterns.push('message')) as never;
  app.event = ((type: string | RegExp) => void patterns.push(type)) as never;
  app.assistant = (() => {
    seen.assistant++;
    patterns.push(...ASSISTANT_EVENTS);
  }) as never;
  // With the assistant surface wired, as the composition root does.
  registerListeners(app, { assistant: { sessions: {} } } as SlackDeps);
  seen.events = KNOWN_EVENT_TYPES.filter((type) =>
    patterns.some((p) => (typeof p === 'string' ? p === type : p.test(type))),
  );
  return seen;
}

/** `client.<family>.<method>(` calls in src, as Slack method names. */
function webApiMethodsInSource(): string[] {
  const methods = new Set<string>();
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      // Slack's Web API is called from src/slack only; src/github's `client.rest.…` is Octokit.
      if (entry.isDirectory()) {
        if (entry.name !== 'github') walk(path);
      } else if (entry.name.endsWith('.ts')) {
        const source = readFileSync(path, 'utf8');
        for (const match of source.matchAll(/\bclient\.([a-z]+)\.(?:([a-z]+)\.)?([A-Za-z0-9]+)\(/g)) {
          methods.add([match[1], match[2], match[3]].filter(Boolean).join('.'));
        }
        if (/\bclient\.chatStream\(/.test(source)) methods.add('chat.startStream');
      }
    }
  };
  walk(join(ROOT, 'src'));
  return [...methods].sort();
}

describe('manifest.yml', () => {
  const registered = recordRegistrations();

  it('declares every slash command the code registers, and no other', () => {
    expect(registered.commands.length).toBeGreaterThan(0);
    const declared = manifest.features.slash_commands.map((c: { command: string }) => c.command);
    expect([...declared].sort()).toEqual([...registered.commands].sort());
  });

  it('subscribes to the events the code listens for, and only those', () => {
    expect(registered.events.length).toBeGreaterThan(0);
    const subscribedTypes = new Set(botEvents.map((e) => e.split('.')[0]));
    expect([...subscribedTypes].sort()).toEqual([...registered.events].sort());
  });

  it('enables every interactive surface the code registers', () => {
    expect(registered.actions).toBeGreaterThan(0);
    expect(manifest.settings.interactivity?.is_enabled).toBe(true);
    if (registered.shortcuts > 0) expect(manifest.features.shortcuts?.length ?? 0).toBeGreaterThan(0);
  });

  it('requests exactly the bot scopes the code’s Web API calls and event subscriptions need', () => {
    const methods = webApiMethodsInSource();
    expect(methods).toContain('chat.postMessage');
    const unmapped = methods.filter((m) => !(m in METHOD_SCOPES));
    expect(unmapped, 'add these Web API methods to METHOD_SCOPES').toEqual([]);
    const needed = new Set<string>(methods.flatMap((m) => METHOD_SCOPES[m] ?? []));
    for (const event of botEvents) {
      expect(EVENT_SCOPES[event], `no scope known for event ${event}`).toBeDefined();
      const scope = EVENT_SCOPES[event];
      if (scope) needed.add(scope);
    }
    if (registered.commands.length > 0) needed.add('commands');
    expect([...botScopes].sort()).toEqual([...needed].sort());
  });

  it('enables the Home tab exactly when the code publishes Home views on app_home_opened', () => {
    const publishesHome = registered.events.includes('app_home_opened');
    expect(publishesHome).toBe(true);
    expect(manifest.features.app_home.home_tab_enabled).toBe(publishesHome);
    expect(webApiMethodsInSource()).toContain('views.publish');
  });

  it('declares the AI app container with the prompts the bot offers, each answered at once', () => {
    expect(registered.assistant).toBe(1);
    const view = manifest.features.agent_view;
    expect(view.agent_description.length).toBeGreaterThan(0);
    expect(view.agent_description.length).toBeLessThanOrEqual(300);
    expect(view.suggested_prompts).toEqual(ASSISTANT_PROMPTS.map((p) => ({ ...p })));
    expect(view.suggested_prompts.length).toBeLessThanOrEqual(4);
    // A prompt that read as an instruction would start an agent job with one click.
    for (const prompt of ASSISTANT_PROMPTS)
      expect(parseAssistantWords(prompt.message).kind, prompt.message).not.toBe('instruction');
    for (const event of ['assistant_thread_started', 'assistant_thread_context_changed', 'message.im'])
      expect(botEvents).toContain(event);
    expect(botScopes).toContain('assistant:write');
  });

  it('declares unfurl domains exactly when the code previews links (link_shared)', () => {
    const domains: string[] = manifest.features.unfurl_domains ?? [];
    expect(domains.length > 0).toBe(registered.events.includes('link_shared'));
    expect(domains).toContain('github.com');
  });

  it('keeps every usage hint short enough for Slack’s autocomplete to show whole', () => {
    for (const command of manifest.features.slash_commands as Array<{ usage_hint?: string }>)
      expect((command.usage_hint ?? '').length).toBeLessThanOrEqual(64);
  });

  it('gives every bot scope a comment saying why', () => {
    const lines = text.split('\n');
    expect(botScopes.length).toBeGreaterThan(0);
    for (const scope of botScopes) {
      const line = lines.findIndex((l) => l.trim() === `- ${scope}`);
      expect(lines[line - 1]?.trim().startsWith('#'), `${scope} has no comment`).toBe(true);
    }
  });
});
