import { belongsToEmoji, flagTagSequenceEnd, ZWJ } from './emoji-sequences.js';

/**
 * The one sanitiser for text from outside (docs readers through the analytics API, platform fields):
 * invisible characters out (emoji kept whole), length capped by code points. Linear: one pass, no regex.
 */

/** What the analytics schema allows a reader string: longer ones are cut before anything else runs. */
export const MAX_READER_TEXT = 2000;

export interface CleanText {
  text: string;
  /** Invisible characters removed (tag characters, bidi controls, zero-width characters, BOM, selectors). */
  removed: number;
  /** True when the text was cut to the cap. */
  cut: boolean;
}

/**
 * Tag characters (U+E0000–E007F: invisible ASCII "smuggling"), bidi embeddings/overrides (U+202A–202E) and
 * isolates (U+2066–2069), zero-width and direction marks (U+200B–200F), word joiner and invisible operators
 * (U+2060–2064), the BOM (U+FEFF), and variation selectors (U+FE00–FE0F, U+E0100–E01EF: a run of them after
 * any character smuggles bytes). Inside an emoji some of them belong: `cleanUntrusted` keeps those.
 */
export function isInvisibleCodePoint(cp: number): boolean {
  return (
    (cp >= 0x200b && cp <= 0x200f) ||
    (cp >= 0x202a && cp <= 0x202e) ||
    (cp >= 0x2060 && cp <= 0x2064) ||
    (cp >= 0x2066 && cp <= 0x2069) ||
    (cp >= 0xfe00 && cp <= 0xfe0f) ||
    cp === 0xfeff ||
    (cp >= 0xe0000 && cp <= 0xe007f) ||
    (cp >= 0xe0100 && cp <= 0xe01ef)
  );
}

/**
 * `text` without invisible characters, at most `max` code points (a surrogate pair is never split; a lone
 * surrogate becomes U+FFFD so the result is always well-formed). Emoji stay whole: a joiner between emoji,
 * a presentation selector after one and the tags of a flag tag sequence are kept (`belongsToEmoji`), and
 * the cap never leaves half of one behind. Stops reading once the cap is reached.
 */
export function cleanUntrusted(text: string, max = MAX_READER_TEXT): CleanText {
  let out = '';
  let kept = 0;
  let removed = 0;
  // The code point kept just before this one; -1 when the one before was dropped.
  let prev = -1;
  let i = 0;
  while (i < text.length) {
    const cp = text.codePointAt(i) ?? 0;
    const width = cp > 0xffff ? 2 : 1;
    const flagEnd = flagTagSequenceEnd(text, i);
    if (flagEnd !== -1) {
      const length = (flagEnd - i) / 2;
      if (kept + length > max) return { text: out, removed, cut: true };
      out += text.slice(i, flagEnd);
      kept += length;
      prev = -1;
      i = flagEnd;
      continue;
    }
    if (isInvisibleCodePoint(cp)) {
      const next = text.codePointAt(i + width) ?? -1;
      // A joiner or a keycap's selector is kept only with room for what it joins.
      const room = cp === ZWJ || next === 0x20e3 ? 2 : 1;
      if (belongsToEmoji(cp, prev, next) && kept + room <= max) {
        out += String.fromCodePoint(cp);
        kept += 1;
        prev = cp;
      } else {
        removed += 1;
        prev = -1;
      }
    } else {
      if (kept === max) return { text: out, removed, cut: true };
      const lone = cp >= 0xd800 && cp <= 0xdfff;
      out += lone ? '\ufffd' : String.fromCodePoint(cp);
      kept += 1;
      prev = lone ? 0xfffd : cp;
    }
    i += width;
  }
  return { text: out, removed, cut: false };
}

/**
 * Brackets that read like the marker brackets around quoted text (⟦ ⟧) or like any other bracket a reader
 * could pass off as one, after NFKC (which already folds fullwidth ［ ］ ＜ ＞ and 〈 〉 U+2329/232A): each
 * becomes an ASCII parenthesis. Square brackets are folded too, so nothing bracket-like but ( ) is left.
 */
const OPENING = '[⟦〚⟨〈‹«❬❮❰❲❴⟪⟬⟮⦃⦅⦇⦉⦋⦍⦏⦑⦓⦕⦗⧘⧚⧼【〔〖〘《「『⸢⸤⸦⸨⁅⌈⌊⌜⌞〝';
const CLOSING = ']⟧〛⟩〉›»❭❯❱❳❵⟫⟭⟯⦄⦆⦈⦊⦌⦎⦐⦒⦔⦖⦘⧙⧛⧽】〕〗〙》」』⸣⸥⸧⸩⁆⌉⌋⌝⌟〞〟';
const FOLDED = new Map<string, string>([
  ...Array.from(OPENING, (ch): [string, string] => [ch, '(']),
  ...Array.from(CLOSING, (ch): [string, string] => [ch, ')']),
]);

/**
 * `text` (cleaned and capped first by the caller) in NFKC with every bracket look-alike folded to ( or ),
 * so quoted text can neither close the marker it sits in nor open one of its own, however it is spelled.
 * Linear: one normalisation, one pass.
 */
export function foldBracketLookalikes(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFKC')) out += FOLDED.get(ch) ?? ch;
  return out;
}

/** The first `max` code points of `text` (no surrogate pair split), before any other processing. */
export function capCodePoints(text: string, max = MAX_READER_TEXT): string {
  if (text.length <= max) return text;
  let i = 0;
  for (let kept = 0; kept < max && i < text.length; kept += 1) {
    const cp = text.codePointAt(i) ?? 0;
    i += cp > 0xffff ? 2 : 1;
  }
  return text.slice(0, i);
}

/** Whitespace runs → one space, trimmed; linear. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** `text` without trailing characters for which `drop` holds: a backwards scan, linear whatever the input. */
export function trimEndWhile(text: string, drop: (ch: string) => boolean): string {
  let end = text.length;
  while (end > 0 && drop(text[end - 1] as string)) end -= 1;
  return text.slice(0, end);
}

/** Longest URL kept: the views show one too long for a button as a text link. */
const MAX_URL_CHARS = 30_000;

/**
 * A well-formed http(s) URL with nothing Slack markup could act on: no whitespace or control characters,
 * no `<`, `>`, `|`, `"` or backtick, no invisible characters. Anything else is treated as no URL at all.
 */
export function isSafeHttpUrl(value: string): boolean {
  if (value.length > MAX_URL_CHARS || !/^https?:\/\/[^/]/i.test(value)) return false;
  // Any Unicode space (a no-break or ideographic one too): the URL parser would encode it, but Slack ends
  // the link there, so the rest would show as text after a link to somewhere else.
  if (/\s/u.test(value)) return false;
  for (let i = 0; i < value.length; i += 1) {
    const code = value.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f || (code >= 0x80 && code <= 0x9f)) return false;
    if (code === 0x3c || code === 0x3e || code === 0x7c || code === 0x22 || code === 0x60) return false;
    if (isInvisibleCodePoint(value.codePointAt(i) ?? 0)) return false;
  }
  if (!URL.canParse(value)) return false;
  const { protocol, hostname } = new URL(value);
  return (protocol === 'http:' || protocol === 'https:') && hostname !== '';
}
