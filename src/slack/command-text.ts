import { isBlank } from '../jobs/conversation-service.js';
import { slackToPlainText, type UserNameResolver } from './markup.js';
import { MAX_PROMPT_CHARS } from './messages/help.js';

export type DocsAgentCommand =
  | { kind: 'help' }
  | { kind: 'list' }
  | { kind: 'project' }
  | { kind: 'status'; jobId: string }
  | { kind: 'status_usage' }
  | { kind: 'start'; prompt: string }
  | { kind: 'too_long'; length: number };

/** Job ids as the platform issues them; anything else after `status` is an instruction, not a lookup. */
const JOB_ID = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/;

/**
 * Parses `/docs-agent` text: `help`, `list`, `project`, `status <job id>`, or an instruction converted to plain text
 * and checked for length. Only the exact forms are subcommands, so an instruction that starts with "list"
 * or "status" (`/docs-agent status codes need a table`) still starts a job. `status` followed by one word
 * is always a lookup: a word that is no job id gets the usage, never a job whose prompt is "status …".
 */
export function parseDocsAgentCommand(
  text: string | undefined,
  resolveUser?: UserNameResolver,
): DocsAgentCommand {
  const prompt = slackToPlainText(text ?? '', resolveUser).trim();
  // Invisible-only text (zero-width, direction marks) is no instruction: answer with help, start nothing.
  if (isBlank(prompt) || /^(help|-h|--help|\?)$/i.test(prompt)) return { kind: 'help' };
  if (/^list$/i.test(prompt)) return { kind: 'list' };
  if (/^project$/i.test(prompt)) return { kind: 'project' };
  if (/^status$/i.test(prompt)) return { kind: 'status_usage' };
  const status = /^status\s+(\S+)$/i.exec(prompt);
  if (status)
    return JOB_ID.test(status[1]!) ? { kind: 'status', jobId: status[1]! } : { kind: 'status_usage' };
  const length = Array.from(prompt).length;
  if (length > MAX_PROMPT_CHARS) return { kind: 'too_long', length };
  return { kind: 'start', prompt };
}

export function tooLongMessage(
  length: number,
  what = 'Your instruction',
  advice = 'Shorten it (link to a doc or issue instead of pasting it) and try again.',
): string {
  return `${what} is ${length.toLocaleString('en-US')} characters long; the limit is ${MAX_PROMPT_CHARS.toLocaleString('en-US')}. Nothing was started. ${advice}`;
}

export function statusUsageMessage(command = '/docs-agent'): string {
  return `Usage: \`${command} status &lt;job id&gt;\`. The job id is on the job card; \`${command} list\` shows the jobs of this channel.`;
}

/** Who to ask: the admins by name when known (`ask`), else a workspace admin. */
export function whoToAsk(ask: readonly string[] | undefined): string {
  const named = (ask ?? []).filter((id) => /^[UW][A-Z0-9]{2,30}$/.test(id)).map((id) => `<@${id}>`);
  if (named.length === 0) return 'a workspace admin';
  return named.length === 1 ? named[0]! : `${named.slice(0, -1).join(', ')} or ${named.at(-1)}`;
}

export function accessDeniedMessage(
  reason: 'user' | 'channel' | 'external',
  ask?: readonly string[],
): string {
  if (reason === 'external') return EXTERNAL_USER_TEXT;
  return reason === 'user'
    ? `You're not on this bot's list of allowed users, so I can't start or steer docs agent jobs for you. Ask ${whoToAsk(ask)} to add you to docs-agent's allowed users.`
    : `docs-agent is not enabled in this conversation. Use it in an allowed channel, or ask ${whoToAsk(ask)} to allow this channel for docs-agent.`;
}

/** To a Slack Connect user of another organisation (ALLOW_EXTERNAL_USERS is off). */
/** OAuth mode: the workspace's own managers choose, in Slack. */
export const EXTERNAL_USER_TEXT_MANAGED =
  "docs-agent only works for members of the workspace that installed it, and you're in another organisation (Slack Connect), so I started, changed and showed nothing. Ask someone in that workspace to do it, or ask its docs-agent managers to allow people of other organisations (`/docs-agent settings external-users on`).";

export const EXTERNAL_USER_TEXT =
  "docs-agent only works for members of the workspace that installed it, and you're in another organisation (Slack Connect), so I started, changed and showed nothing. Ask someone in that workspace to do it, or ask a workspace admin there to allow people of other organisations.";
