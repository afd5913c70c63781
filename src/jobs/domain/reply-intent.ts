import { isInvisibleCodePoint } from '../../common/untrusted-text.js';

/**
 * Whether a reply in a job's thread reads as an instruction for the agent, or is people talking: a bare
 * acknowledgement ("thanks!", "LGTM 👍", ":tada:", "nice one") or a reply that begins by addressing
 * someone else (`<@U…>` that is not the bot, or a plain `@name`). Pure and token-based: the text is capped
 * first and read one token at a time, with no regex that can backtrack.
 */

function wordSet(words: string): ReadonlySet<string> {
  return new Set(words.split(' '));
}

/** Longer than this, a reply is never a bare acknowledgement (and only its start is read). */
const ACK_MAX_CHARS = 300;

/** Words that acknowledge on their own; a reply made of these (and fillers) is chatter. Lower case. */
const ACK_WORDS = wordSet(
  'thanks thank thx thnx thanx thks tks ty tysm tyvm cheers merci danke gracias lgtm ok okay okey okie ' +
    'k kk great nice cool awesome perfect excellent amazing brilliant wonderful fantastic superb sweet ' +
    'neat good fine lovely beautiful yay woo woot woohoo wow yes yep yeah yup sure noted ack agreed ' +
    'gotcha got kudos bravo congrats congratulations haha lol hooray hurray ace solid love legend ' +
    'appreciated appreciate done sounds looks',
);

/** Words that only fill an acknowledgement out ("thank you so much", "looks good to me", "nice one"). */
const FILLER_WORDS = wordSet(
  'you u ya so much very really super pretty totally a lot one to me us all this that thats s it is ' +
    'looking look sound work job stuff again as always indeed man mate folks everyone team guys y just ' +
    'well for the now oh ah and too of course bot agent buddy by from here there i we will ll thing ' +
    'things then alright right absolutely definitely lots many big huge works worked',
);

/** What stretched acknowledgements squeeze to ("coooool" → "col", "goood" → "god", "yasss" → "yas"). */
const STRETCHED_ACKS = wordSet('col god yas nic swet');

/** Emoticons and `+1` (longest first): each one acknowledges, removed before words are read. */
const ACK_TOKENS = new Set(['+100', '+1', ':)', ':-)', ':d', ';)', ';-)', '&lt;3', '<3', '^^', '(y)', 'xd']);

// Tested on one character at a time, never on the text: anything else (emoji, punctuation) separates words.
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

export type ReplyIntent = 'instruction' | 'acknowledgement' | 'addresses_someone_else';

/**
 * What a reply in a job's thread is. `text` is the reply's Slack markup as received; `botUserId` the bot's
 * own user id: a reply that mentions the bot is always an instruction.
 */
export function replyIntent(text: string, botUserId: string | undefined): ReplyIntent {
  const tokens = tokensOf(text.slice(0, ACK_MAX_CHARS + 1));
  if (botUserId !== undefined && tokens.some((token) => mentionedId(token) === botUserId))
    return 'instruction';
  const first = tokens[0];
  if (first !== undefined && addressesSomeone(first)) return 'addresses_someone_else';
  if (text.length > ACK_MAX_CHARS) return 'instruction';
  let words = 0;
  let acks = 0;
  for (const token of tokens) {
    const read = readToken(token);
    if (read === undefined) return 'instruction';
    words += read.words;
    acks += read.acks;
  }
  // Emoji and punctuation only say nothing to do; words need one that acknowledges ("you" is not a reply).
  return words === 0 || acks > 0 ? 'acknowledgement' : 'instruction';
}

/** Chatter is never sent to the agent. */
export function readsAsInstruction(text: string, botUserId: string | undefined): boolean {
  return replyIntent(text, botUserId) === 'instruction';
}

/** The user id of a `<@U…>` or `<@U…|name>` token (with punctuation after it), else undefined. */
function mentionedId(token: string): string | undefined {
  if (!token.startsWith('<@')) return undefined;
  const close = token.indexOf('>');
  if (close === -1) return undefined;
  const inner = token.slice(2, close);
  const bar = inner.indexOf('|');
  return bar === -1 ? inner : inner.slice(0, bar);
}

/** A reply's first token naming a person: `<@U…>` (not the bot: checked before) or a typed `@name`. */
function addressesSomeone(token: string): boolean {
  if (mentionedId(token) !== undefined) return true;
  return token.length > 1 && token.startsWith('@') && LETTER_OR_DIGIT.test(token.charAt(1));
}

/** The visible tokens of a (capped) text: split on whitespace, invisible and direction characters dropped. */
function tokensOf(text: string): string[] {
  const tokens: string[] = [];
  let token = '';
  for (const char of text) {
    const cp = char.codePointAt(0) ?? 0;
    if (isInvisibleCodePoint(cp) || cp === 0xad || cp === 0x180e) continue;
    if (char.trim() === '') {
      if (token !== '') tokens.push(token);
      token = '';
    } else token += char;
  }
  if (token !== '') tokens.push(token);
  return tokens;
}

/**
 * One token of an acknowledgement: emoji, emoticons, shortcodes, mentions (not at the start), ack words and
 * fillers. Undefined when it holds any other word; else how many words it has and how many acknowledge.
 */
function readToken(token: string): { words: number; acks: number } | undefined {
  const lower = token.toLowerCase();
  if (mentionedId(lower) !== undefined) return { words: 0, acks: 0 };
  let rest = withoutShortcodes(lower);
  let acks = 0;
  for (const emoticon of ACK_TOKENS) {
    const parts = rest.split(emoticon);
    acks += parts.length - 1;
    rest = parts.join(' ');
  }
  let words = acks;
  let word = '';
  for (const char of `${decodeEntities(rest)} `) {
    if (LETTER_OR_DIGIT.test(char)) {
      word += char;
      continue;
    }
    if (word !== '') {
      const kind = wordKind(word);
      if (kind === undefined) return undefined;
      words += 1;
      if (kind === 'ack') acks += 1;
    }
    word = '';
  }
  return { words, acks };
}

function wordKind(word: string): 'ack' | 'filler' | undefined {
  if (ACK_WORDS.has(word)) return 'ack';
  if (FILLER_WORDS.has(word)) return 'filler';
  return stretchedKind(word);
}

/** `text` with its emoji shortcodes (`:tada:`, `:+1::skin-tone-2:`) replaced by spaces, scanned once. */
function withoutShortcodes(text: string): string {
  let out = '';
  let i = 0;
  while (i < text.length) {
    if (text[i] === ':') {
      let j = i + 1;
      while (j < text.length && isShortcodeChar(text[j] as string)) j += 1;
      if (j > i + 1 && text[j] === ':') {
        out += ' ';
        i = j + 1;
        continue;
      }
    }
    out += text[i];
    i += 1;
  }
  return out;
}

function isShortcodeChar(char: string): boolean {
  return (char >= 'a' && char <= 'z') || (char >= '0' && char <= '9') || "_+-'".includes(char);
}

/** Slack escapes `&`, `<` and `>` in message text. */
function decodeEntities(text: string): string {
  return text.replaceAll('&amp;', '&').replaceAll('&lt;', '<').replaceAll('&gt;', '>');
}

/** Stretched words ("thanksss", "okkk", "coooool", "sooo", "hahaha") read as the word they stretch. */
function stretchedKind(word: string): 'ack' | 'filler' | undefined {
  if (word.length > 40) return undefined;
  let squeezed = '';
  for (const char of word) if (squeezed.at(-1) !== char) squeezed += char;
  if (ACK_WORDS.has(squeezed) || STRETCHED_ACKS.has(squeezed)) return 'ack';
  if (FILLER_WORDS.has(squeezed)) return 'filler';
  const laugh =
    squeezed.length >= 4 && (squeezed.replaceAll('ha', '') === '' || squeezed.replaceAll('he', '') === '');
  return laugh ? 'ack' : undefined;
}
