import { readFileSync } from 'node:fs';
import { acceptedScopes } from '../../scripts/lib/slack-method-scopes.js';
import { missingArgument, traceRefusal } from './fake-slack-arguments.js';

/**
 * What real Slack refuses before it looks at a call's arguments: a method it does not have
 * (`unknown_method`), a bot token whose app lacks the scope (`missing_scope`, checked against the scopes
 * manifest.yml asks for, so a call the manifest forgot fails here first), and a call without a token
 * (`not_authed`). Tokens themselves are checked by the OAuth side (fake-slack-oauth.ts). Which scopes open
 * which method is the one table the manifest rules use too (scripts/lib/slack-method-scopes.ts). Then, as
 * Slack does before it acts, a missing required argument (fake-slack-arguments.ts).
 */

/** Called with no bot token at all (client credentials, an app-level token). */
const WITHOUT_BOT_TOKEN = new Set(['oauth.v2.access', 'apps.connections.open']);

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
  const needed = acceptedScopes(method, String(args.channel ?? ''));
  if (needed === undefined) return { ok: false, error: 'unknown_method' };
  if (!authorization && typeof args.token !== 'string') return { ok: false, error: 'not_authed' };
  const refusal =
    needed.length === 0 || needed.some((scope) => granted.has(scope))
      ? missingArgument(method, args)
      : { ok: false, error: 'missing_scope', needed: needed.join(','), provided: [...granted].join(',') };
  if (refusal) traceRefusal(method, refusal);
  return refusal;
}
