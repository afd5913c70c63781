import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import {
  EVENT_SCOPES,
  METHOD_SCOPES,
  manifestProblems,
  recordRegistrations,
  webApiMethodsInSource,
} from '../../scripts/lib/manifest-rules.js';
import { parseAssistantWords } from '../../src/slack/assistant-words.js';
import { ASSISTANT_PROMPTS } from '../../src/slack/messages/assistant-replies.js';

/*
 * What the project owns about its manifest: everything the code registers with Bolt is declared, and the
 * bot scopes are exactly those its Web API calls and event subscriptions need (the rules and tables live in
 * scripts/lib/manifest-rules.ts, shared with `npm run manifest` and `npm run doctor`). Validation against
 * Slack's published schema is `scripts/check-manifest.ts` (run by `.ci/run` where that schema is available):
 * tests never read outside the repository.
 */

const ROOT = join(import.meta.dirname, '..', '..');
const text = readFileSync(join(ROOT, 'manifest.yml'), 'utf8');
const manifest = parse(text);
const botScopes: string[] = manifest.oauth_config.scopes.bot;
const botEvents: string[] = manifest.settings.event_subscriptions.bot_events;

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

  it('agrees with the code by the rules the generator and the doctor apply', () => {
    expect(manifestProblems(manifest, registered)).toEqual([]);
  });

  it('those rules name each disagreement', () => {
    const broken = structuredClone(manifest);
    broken.oauth_config.scopes.bot = botScopes.filter((s) => s !== 'links:write').concat('channels:manage');
    broken.features.slash_commands.pop();
    broken.settings.interactivity.is_enabled = false;
    expect(manifestProblems(broken, registered)).toEqual([
      'slash command /docs-health is not declared',
      'settings.interactivity.is_enabled must be true (buttons and modals)',
      'bot scope links:write is missing',
      'bot scope channels:manage is not needed by the code',
    ]);
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
