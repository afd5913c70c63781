import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { App } from '@slack/bolt';
import { parseAssistantWords } from '../../src/slack/assistant-words.js';
import { registerListeners, type SlackDeps } from '../../src/slack/listeners/index.js';
import { ASSISTANT_PROMPTS } from '../../src/slack/messages/assistant-replies.js';
import { CLIENT_HELPERS, METHOD_SCOPE_RULES, neededScopes } from './slack-method-scopes.js';

/*
 * What the project owns about its manifest: everything the code registers with Bolt is declared, and the bot
 * scopes are exactly those its Web API calls and event subscriptions need. Shared by the manifest test, the
 * manifest generator (`npm run manifest`) and `npm run doctor`. Validation against Slack's published schema
 * is scripts/check-manifest.ts.
 */

export const ROOT = join(import.meta.dirname, '..', '..');
/**
 * Bot scopes each Web API method the code calls needs, as the bot uses it: read from the one table in
 * slack-method-scopes.ts that the fake Slack also refuses calls by.
 */
export const METHOD_SCOPES: Record<string, string[]> = Object.fromEntries(
  [...Object.keys(METHOD_SCOPE_RULES), ...Object.keys(CLIENT_HELPERS)].map((m) => [m, neededScopes(m) ?? []]),
);
/** Bot scope each event subscription needs (`null`: none). */
export const EVENT_SCOPES: Record<string, string | null> = {
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

export interface Registrations {
  commands: string[];
  actions: number;
  events: string[];
  shortcuts: number;
  views: number;
  assistant: number;
}

/** The Bolt registrations of the real listeners, recorded on a real (never started) Bolt app. */
export function recordRegistrations(): Registrations {
  const app = new App({ signingSecret: 'unused', authorize: async () => ({}) });
  const seen: Registrations = { commands: [], actions: 0, events: [], shortcuts: 0, views: 0, assistant: 0 };
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
  // Every listener is registered whatever the deps (each request reads its own), as the composition root does.
  registerListeners(app, () => ({ assistant: { sessions: {} } }) as SlackDeps);
  seen.events = KNOWN_EVENT_TYPES.filter((type) =>
    patterns.some((p) => (typeof p === 'string' ? p === type : p.test(type))),
  );
  return seen;
}

/** `client.<family>.<method>(` calls in src, as Slack method names. */
export function webApiMethodsInSource(): string[] {
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

/** The bot scopes the code needs: its Web API calls' and its event subscriptions', plus commands. */
export function neededBotScopes(botEvents: readonly string[], registered: Registrations): string[] {
  const needed = new Set<string>();
  for (const method of webApiMethodsInSource()) for (const s of METHOD_SCOPES[method] ?? []) needed.add(s);
  for (const event of botEvents) {
    const scope = EVENT_SCOPES[event];
    if (scope) needed.add(scope);
  }
  if (registered.commands.length > 0) needed.add('commands');
  return [...needed].sort();
}

// biome-ignore lint/suspicious/noExplicitAny: a parsed manifest is checked field by field below.
type Manifest = any;

const difference = (a: readonly string[], b: readonly string[]) => a.filter((x) => !b.includes(x));

/** Every way the manifest disagrees with the code, as lines saying what to change; [] when it agrees. */
export function manifestProblems(manifest: Manifest, registered = recordRegistrations()): string[] {
  const problems: string[] = [];
  const declared: string[] = (manifest?.features?.slash_commands ?? []).map(
    (c: { command: string }) => c.command,
  );
  for (const c of difference(registered.commands, declared))
    problems.push(`slash command ${c} is not declared`);
  for (const c of difference(declared, registered.commands))
    problems.push(`slash command ${c} is not handled`);
  const botEvents: string[] = manifest?.settings?.event_subscriptions?.bot_events ?? [];
  const types = [...new Set(botEvents.map((e) => e.split('.')[0] ?? e))];
  for (const e of difference(registered.events, types)) problems.push(`bot event ${e} is not subscribed`);
  for (const e of difference(types, registered.events))
    problems.push(`bot event ${e} is subscribed but unused`);
  for (const e of botEvents.filter((e) => !(e in EVENT_SCOPES)))
    problems.push(`no scope known for event ${e}`);
  const unmapped = webApiMethodsInSource().filter((m) => !(m in METHOD_SCOPES));
  for (const m of unmapped) problems.push(`Web API method ${m} has no entry in METHOD_SCOPES`);
  if (registered.actions > 0 && manifest?.settings?.interactivity?.is_enabled !== true)
    problems.push('settings.interactivity.is_enabled must be true (buttons and modals)');
  // OAuth mode (HTTP with a redirect URL) refreshes rotating tokens; a single-workspace token cannot be.
  const oauth =
    manifest?.settings?.socket_mode_enabled !== true &&
    (manifest?.oauth_config?.redirect_urls?.length ?? 0) > 0;
  if ((manifest?.settings?.token_rotation_enabled === true) !== oauth)
    problems.push(
      oauth
        ? 'settings.token_rotation_enabled must be true in OAuth mode (the bot refreshes its tokens)'
        : 'settings.token_rotation_enabled must be false without OAuth: SLACK_BOT_TOKEN cannot be refreshed',
    );
  if (registered.shortcuts > 0 && (manifest?.features?.shortcuts?.length ?? 0) === 0)
    problems.push('features.shortcuts must declare the message shortcut');
  const scopes: string[] = manifest?.oauth_config?.scopes?.bot ?? [];
  const needed = neededBotScopes(botEvents, registered);
  for (const s of difference(needed, scopes)) problems.push(`bot scope ${s} is missing`);
  for (const s of difference(scopes, needed)) problems.push(`bot scope ${s} is not needed by the code`);
  if (manifest?.features?.app_home?.home_tab_enabled !== registered.events.includes('app_home_opened'))
    problems.push('features.app_home.home_tab_enabled must be true (Home is published on app_home_opened)');
  if (registered.assistant > 0) {
    const view = manifest?.features?.agent_view;
    const prompts = JSON.stringify(view?.suggested_prompts ?? []);
    if (!view?.agent_description || view.agent_description.length > 300)
      problems.push('features.agent_view.agent_description must be 1 to 300 characters');
    if (prompts !== JSON.stringify(ASSISTANT_PROMPTS.map((p) => ({ ...p }))))
      problems.push('features.agent_view.suggested_prompts must be the prompts the bot answers');
  }
  for (const prompt of ASSISTANT_PROMPTS)
    if (parseAssistantWords(prompt.message).kind === 'instruction')
      problems.push(`suggested prompt "${prompt.message}" would start an agent job`);
  const domains: string[] = manifest?.features?.unfurl_domains ?? [];
  if (registered.events.includes('link_shared') && !domains.includes('github.com'))
    problems.push('features.unfurl_domains must include github.com (our jobs’ pull requests)');
  if (!registered.events.includes('link_shared') && domains.length > 0)
    problems.push('features.unfurl_domains is set but nothing previews links');
  for (const command of manifest?.features?.slash_commands ?? [])
    if ((command.usage_hint ?? '').length > 64)
      problems.push(`${command.command}'s usage_hint is longer than Slack's autocomplete shows (64)`);
  return problems;
}
