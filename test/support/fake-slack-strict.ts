import { readFileSync } from 'node:fs';

/**
 * What real Slack refuses before it looks at a call's arguments: a method it does not have
 * (`unknown_method`), a bot token whose app lacks the scope (`missing_scope`, checked against the scopes
 * manifest.yml asks for, so a call the manifest forgot fails here first), and a call without a token
 * (`not_authed`). Tokens themselves are checked by the OAuth side (fake-slack-oauth.ts).
 */

/** The scopes a bot token needs per method (any one of them); `[]`: none (views, auth.test). */
const SCOPES: Readonly<Record<string, readonly string[] | ((channel: string) => readonly string[])>> = {
  'chat.postMessage': ['chat:write'],
  'chat.update': ['chat:write'],
  'chat.delete': ['chat:write'],
  'chat.postEphemeral': ['chat:write'],
  'chat.startStream': ['chat:write'],
  'chat.appendStream': ['chat:write'],
  'chat.stopStream': ['chat:write'],
  'chat.unfurl': ['links:write'],
  'conversations.history': (channel) => byChannel(channel, 'history'),
  'conversations.replies': (channel) => byChannel(channel, 'history'),
  'conversations.members': (channel) => byChannel(channel, 'read'),
  'conversations.join': ['channels:join'],
  'conversations.open': ['im:write', 'mpim:write'],
  'users.info': ['users:read'],
  'reactions.add': ['reactions:write'],
  'reactions.remove': ['reactions:write'],
  'files.getUploadURLExternal': ['files:write'],
  'files.completeUploadExternal': ['files:write'],
  // setStatus takes chat:write too since 2026-03-05.
  'assistant.threads.setStatus': ['assistant:write', 'chat:write'],
  'assistant.threads.setSuggestedPrompts': ['assistant:write'],
  'assistant.threads.setTitle': ['assistant:write'],
  'agents.sessions.setStatus': ['assistant:write', 'chat:write'],
  'views.open': [],
  'views.update': [],
  'views.push': [],
  'views.publish': [],
  'auth.test': [],
};

/** Called with no bot token at all (client credentials, an app-level token). */
const WITHOUT_BOT_TOKEN = new Set(['oauth.v2.access', 'apps.connections.open']);

function byChannel(channel: string, what: 'history' | 'read'): readonly string[] {
  if (channel.startsWith('D')) return [`im:${what}`];
  if (channel.startsWith('G')) return [`groups:${what}`, `mpim:${what}`];
  return [`channels:${what}`];
}

/** The bot scopes manifest.yml asks for (the `oauth_config.scopes.bot` list). */
export function manifestBotScopes(path = new URL('../../manifest.yml', import.meta.url)): Set<string> {
  const lines = readFileSync(path, 'utf8').split('\n');
  const scopes = new Set<string>();
  let inBot = false;
  for (const line of lines) {
    if (/^\s{4}bot:\s*$/.test(line)) inBot = true;
    else if (inBot && /^\s{6}- /.test(line)) scopes.add(line.trim().slice(2).trim());
    else if (inBot && line.trim() !== '' && !line.trim().startsWith('#')) inBot = false;
  }
  return scopes;
}

export function strictRefusal(
  method: string,
  args: Record<string, unknown>,
  authorization: string | undefined,
  granted: ReadonlySet<string>,
): Record<string, unknown> | undefined {
  if (WITHOUT_BOT_TOKEN.has(method)) return undefined;
  const needs = SCOPES[method];
  if (needs === undefined) return { ok: false, error: 'unknown_method' };
  if (!authorization && typeof args.token !== 'string') return { ok: false, error: 'not_authed' };
  const needed = typeof needs === 'function' ? needs(String(args.channel ?? '')) : needs;
  if (needed.length === 0 || needed.some((scope) => granted.has(scope))) return undefined;
  return { ok: false, error: 'missing_scope', needed: needed.join(','), provided: [...granted].join(',') };
}
