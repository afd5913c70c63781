/**
 * Slack markup in user text. Two directions:
 * - `escapeMrkdwn`: text we echo inside mrkdwn, so `<!channel>` or `<@U…>` in a prompt renders literally
 *   and can never ping anyone.
 * - `slackToPlainText`: what Slack sent us, turned into readable text for the docs agent.
 */

import { capCodePoints, cleanUntrusted } from '../common/untrusted-text.js';

/** Slack's own cap on a message's text: anything longer is cut before any other processing. */
export const MAX_SLACK_TEXT = 40_000;

const ENTITY: Record<string, string> = { '&amp;': '&', '&lt;': '<', '&gt;': '>' };

export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function decodeEntities(text: string): string {
  return text.replace(/&(amp|lt|gt);/g, (entity) => ENTITY[entity] ?? entity);
}

export type UserNameResolver = (userId: string) => string | undefined;

/**
 * Slack text as the agent gets it, the same for every way in (commands, mentions, DMs, reviewed messages of
 * bots, apps and outsiders, thread context, assistant messages, resolved names): capped first, invisible and
 * bidi characters out last, so what a person reviews is what the agent receives.
 *
 * `<@U123>` → `@name` (or `@U123` when the name is unknown), `<#C123|general>` → `#general`,
 * `<!channel>` → `@channel`, `<!subteam^S1|@writers>` → `@writers`, `<https://x|label>` → `label (https://x)`,
 * `<mailto:a@b|a@b>` → `a@b`; entities decoded last so escaped brackets stay text.
 */
export function slackToPlainText(text: string, resolveUser: UserNameResolver = () => undefined): string {
  const converted = capCodePoints(text, MAX_SLACK_TEXT).replace(/<([^<>\n]*)>/g, (_match, inner: string) => {
    const [target = '', label] = splitLabel(inner);
    if (target.startsWith('@')) {
      const id = target.slice(1);
      const name = label ?? resolveUser(id);
      return `@${name ?? id}`;
    }
    if (target.startsWith('#')) return `#${label ?? target.slice(1)}`;
    if (target.startsWith('!')) {
      const special = target.slice(1);
      if (special.startsWith('subteam^')) return label ?? '@group';
      if (special.startsWith('date^')) return label ?? '';
      return `@${label ?? special}`;
    }
    if (target.startsWith('mailto:')) return label ?? target.slice('mailto:'.length);
    if (label && label !== target) return `${label} (${target})`;
    return target;
  });
  return stripInvisible(decodeEntities(converted));
}

function splitLabel(inner: string): [string, string | undefined] {
  const bar = inner.indexOf('|');
  if (bar === -1) return [inner, undefined];
  const label = inner.slice(bar + 1);
  return [inner.slice(0, bar), label === '' ? undefined : label];
}

/** Removes characters that render invisibly or flip direction (the one sanitiser's classes, tags included). */
export function stripInvisible(text: string): string {
  return cleanUntrusted(text, Number.MAX_SAFE_INTEGER).text;
}

const SCHEMES = new Set(['mailto', 'tel', 'sms', 'ftp', 'slack', 'file']);
const isAlnum = (ch: string | undefined) => ch !== undefined && /^[\p{L}\p{N}]$/u.test(ch);

/**
 * Text from outside with nothing Slack could turn into a link: every whitespace-separated word that looks like
 * a URL, a domain or an address gets `hxxp`, `[:]//`, `[.]` and `[at]` (`https://evil.example` →
 * `hxxps[:]//evil[.]example`): Slack auto-links bare URLs and domains in mrkdwn, which escaping cannot stop.
 * Linear: one pass per word, no regex over the whole text.
 */
export function defuseLinks(text: string): string {
  let out = '';
  let start = 0;
  for (let i = 0; i <= text.length; i += 1) {
    const ch = text[i];
    if (ch !== undefined && !/\s/.test(ch)) continue;
    out += defuseWord(text.slice(start, i)) + (ch ?? '');
    start = i + 1;
  }
  return out;
}

function defuseWord(word: string): string {
  if (!/[.:@]/.test(word)) return word;
  let out = '';
  // The letters just before this character (at most 7): `mailto:`, `tel:` and the like are schemes too.
  let letters = '';
  for (let i = 0; i < word.length; i += 1) {
    const ch = word[i] as string;
    const rest = word.slice(i, i + 5).toLowerCase();
    // Whatever comes before it: Slack links `https://…` after a non-ASCII letter (`ࠀhttps://…`) too.
    if (rest === 'http:' || rest.startsWith('https')) {
      out += 'hxxp';
      i += 3;
      letters = '';
      continue;
    }
    if (ch === ':' && (word[i + 1] === '/' || SCHEMES.has(letters.toLowerCase()))) out += '[:]';
    // `www.` links on its own in Slack, even cut short (`www.…` after a truncation).
    else if (ch === '.' && ((isAlnum(word[i - 1]) && isAlnum(word[i + 1])) || /www$/i.test(letters)))
      out += '[.]';
    else if (ch === '@' && isAlnum(word[i + 1])) out += '[at]';
    else out += ch;
    letters = /^[a-z]$/i.test(ch) ? (letters + ch).slice(-7) : '';
  }
  return out;
}

/** Outside text (readers, the platform) for mrkdwn: no markup, no mention, no link, no code span breakout. */
export function untrustedMrkdwn(text: string): string {
  return escapeMrkdwn(defuseLinks(text)).replace(/`/g, 'ˋ');
}

/**
 * A submitted form field: capped at `max` + 1 code points before anything else (so an over-long value is
 * still seen as too long), invisible and bidi characters out, trimmed.
 */
export function submittedText(value: string | null | undefined, max: number): string {
  return cleanUntrusted(value ?? '', max + 1).text.trim();
}
