import { slackToPlainText, type UserNameResolver } from './markup.js';
import { MAX_PROMPT_CHARS } from './views/help.js';

export type DocsAgentCommand =
  | { kind: 'help' }
  | { kind: 'start'; prompt: string }
  | { kind: 'too_long'; length: number };

/** Parses `/docs-agent` text: help, or an instruction converted to plain text and checked for length. */
export function parseDocsAgentCommand(
  text: string | undefined,
  resolveUser?: UserNameResolver,
): DocsAgentCommand {
  const prompt = slackToPlainText(text ?? '', resolveUser).trim();
  if (prompt === '' || /^(help|-h|--help|\?)$/i.test(prompt)) return { kind: 'help' };
  const length = Array.from(prompt).length;
  if (length > MAX_PROMPT_CHARS) return { kind: 'too_long', length };
  return { kind: 'start', prompt };
}

export function tooLongMessage(length: number): string {
  return `Your instruction is ${length.toLocaleString('en-US')} characters long; the limit is ${MAX_PROMPT_CHARS.toLocaleString('en-US')}. Nothing was started. Shorten it (link to a doc or issue instead of pasting it) and try again.`;
}

export function accessDeniedMessage(reason: 'user' | 'channel'): string {
  return reason === 'user'
    ? "You're not on this bot's list of allowed users, so I can't start or steer docs agent jobs for you. Ask an admin to add you to `ALLOWED_USER_IDS`."
    : 'docs-agent is not enabled in this conversation. Use it in an allowed channel, or ask an admin to add this channel to `ALLOWED_CHANNEL_IDS`.';
}
