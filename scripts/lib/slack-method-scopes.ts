/*
 * The one table of which bot scopes each Slack Web API method the bot calls takes (Slack's method pages).
 * Two readers, one source: the manifest rules (scripts/lib/manifest-rules.ts) ask for the scopes the bot
 * needs for the way it uses each method (`neededScopes`), and the fake Slack (test/support/fake-slack-strict.ts)
 * refuses a call whose token holds none of the scopes Slack accepts for it (`acceptedScopes`).
 */

export type ConversationKind = 'public' | 'private' | 'im' | 'mpim';

export type ScopeRule =
  /** Any one of these scopes opens the method; the first is the one the manifest asks for. `[]`: none. */
  | { anyOf: readonly string[] }
  /** One scope per kind of conversation (its first entry), for the kinds the bot uses the method on. */
  | {
      byConversation: Readonly<Record<ConversationKind, readonly string[]>>;
      botUses: readonly ConversationKind[];
    };

const ALL_KINDS: readonly ConversationKind[] = ['public', 'private', 'im', 'mpim'];

const HISTORY = {
  public: ['channels:history'],
  private: ['groups:history'],
  im: ['im:history'],
  mpim: ['mpim:history'],
} as const;

const any = (...scopes: string[]): ScopeRule => ({ anyOf: scopes });

export const METHOD_SCOPE_RULES: Readonly<Record<string, ScopeRule>> = {
  'auth.test': any(),
  'chat.postMessage': any('chat:write'),
  'chat.update': any('chat:write'),
  'chat.postEphemeral': any('chat:write'),
  'chat.delete': any('chat:write'),
  // Streamed messages are messages: chat:write. `client.chatStream()` starts one with chat.startStream.
  'chat.startStream': any('chat:write'),
  'chat.appendStream': any('chat:write'),
  'chat.stopStream': any('chat:write'),
  // Link previews.
  'chat.unfurl': any('links:write'),
  'conversations.join': any('channels:join'),
  // Home's New job checks the user and the bot are in the picked public or private channel.
  'conversations.members': {
    byConversation: {
      public: ['channels:read'],
      private: ['groups:read'],
      im: ['im:read'],
      mpim: ['mpim:read'],
    },
    botUses: ['public', 'private'],
  },
  // Reading a thread, and the look-up of a post by its key after an unknown outcome, in every kind of
  // conversation the bot posts in: public and private channels, DMs and group DMs (mpim).
  'conversations.history': { byConversation: HISTORY, botUses: ALL_KINDS },
  'conversations.replies': { byConversation: HISTORY, botUses: ALL_KINDS },
  // The welcome message's DM with the installer.
  'conversations.open': any('im:write', 'mpim:write'),
  'users.info': any('users:read'),
  'reactions.add': any('reactions:write'),
  'reactions.remove': any('reactions:write'),
  'files.getUploadURLExternal': any('files:write'),
  'files.completeUploadExternal': any('files:write'),
  // Modals need no scope of their own: the trigger_id of the user's interaction authorises them.
  'views.open': any(),
  'views.update': any(),
  'views.push': any(),
  // Home tabs likewise: publishing a user's Home needs only the Home tab enabled (features.app_home).
  'views.publish': any(),
  // The AI app container (Slack's method pages: assistant:write; setStatus takes chat:write too since 2026-03-05).
  'assistant.threads.setStatus': any('assistant:write', 'chat:write'),
  'assistant.threads.setSuggestedPrompts': any('assistant:write'),
  'assistant.threads.setTitle': any('assistant:write'),
  // Thread-based agent sessions (Slack's agent-sessions guide: chat:write manages them).
  'agents.sessions.setStatus': any('chat:write', 'assistant:write'),
};

/** @slack/web-api helpers that are no Slack method, with the methods they call. */
export const CLIENT_HELPERS: Readonly<Record<string, readonly string[]>> = {
  'files.uploadV2': ['files.getUploadURLExternal', 'files.completeUploadExternal'],
};

/** The scopes the manifest asks for so the bot can use `method` as it does; undefined for an unknown one. */
export function neededScopes(method: string): string[] | undefined {
  const helper = CLIENT_HELPERS[method];
  if (helper) return [...new Set(helper.flatMap((m) => neededScopes(m) ?? []))];
  const rule = METHOD_SCOPE_RULES[method];
  if (!rule) return undefined;
  if ('anyOf' in rule) return rule.anyOf.slice(0, 1);
  return rule.botUses.flatMap((kind) => rule.byConversation[kind].slice(0, 1));
}

/** Scopes of which Slack accepts any one for this call (`[]`: none needed); undefined: no such method. */
export function acceptedScopes(method: string, channel: string): readonly string[] | undefined {
  const rule = METHOD_SCOPE_RULES[method];
  if (!rule) return undefined;
  if ('anyOf' in rule) return rule.anyOf;
  const { byConversation } = rule;
  if (channel.startsWith('D')) return byConversation.im;
  // G… ids are private channels and group DMs alike.
  if (channel.startsWith('G')) return [...byConversation.private, ...byConversation.mpim];
  return byConversation.public;
}
