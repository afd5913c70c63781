/**
 * The one list of credential shapes, and the one scanner over it: what `findSecret` refuses in text from
 * people (instructions, follow-ups, form values, command text), what `scrubSecrets` replaces in a job record
 * before it is saved, and what every log line loses (`scrubShapes`). No regex runs on the text: one pass,
 * a switch on each character that can start a shape, then a bounded look at it, so the cost is linear.
 */

/** `unchecked`: text too long to scan, refused as if it held a credential. */
export type SecretKind = 'github' | 'slack' | 'docs' | 'cloud' | 'pem' | 'unchecked';

export interface SecretMatch {
  kind: SecretKind;
  start: number;
  end: number;
}

/** A prefix and then one run of token characters (`[A-Za-z0-9_-]`) of at least `minBody`. */
interface PrefixShape {
  kind: SecretKind;
  /** `?` stands for any ASCII letter (Slack's `xox?-`). */
  prefix: string;
  minBody: number;
}

/** Prefixed shapes, by the character that starts them. */
const PREFIXED: readonly PrefixShape[] = [
  ...['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'].map((prefix) => ({
    kind: 'github' as const,
    prefix,
    minBody: 6,
  })),
  { kind: 'slack', prefix: 'xox?-', minBody: 6 },
  { kind: 'slack', prefix: 'xapp-', minBody: 6 },
  // The docs platform's admin keys: `svc_` and a secret part (at least 8, as project settings accept).
  { kind: 'docs', prefix: 'svc_', minBody: 8 },
];

/** Prefixed shapes by their first character, so a position is tried only against those that can start there. */
const PREFIXED_BY_FIRST: Readonly<Record<string, readonly PrefixShape[]>> = Object.freeze(
  Object.fromEntries(
    [...new Set(PREFIXED.map((shape) => shape.prefix[0]!))].map((first) => [
      first,
      Object.freeze(PREFIXED.filter((shape) => shape.prefix[0] === first)),
    ]),
  ),
);

/** Cloud access key ids: `AKIA`/`ASIA` and exactly 16 upper-case letters or digits, a word of its own. */
const CLOUD_PREFIXES = ['AKIA', 'ASIA'];
const CLOUD_BODY = 16;
const PEM_BEGIN = '-----BEGIN ';
const PEM_END = '-----END ';
const PEM_TAIL = 'PRIVATE KEY-----';
/** The longest label between `-----BEGIN ` and `PRIVATE KEY-----` (`ENCRYPTED `, `OPENSSH `, `RSA `…). */
const PEM_LABEL_MAX = 40;

/** Text longer than this is not scanned for `findSecret`: it is refused as if it held one (fail closed). */
export const MAX_SECRET_SCAN_CHARS = 1_000_000;

const REDACTED = '[redacted]';

/** Character classes of the 7-bit range, one bit each: token (`[A-Za-z0-9_-]`), upper-alnum, alnum, letter. */
const TOKEN = 1;
const UPPER_ALNUM = 2;
const ALNUM = 4;
const LETTER = 8;
const CLASSES = (() => {
  const table = new Uint8Array(128);
  for (let c = 48; c <= 57; c++) table[c] = TOKEN | UPPER_ALNUM | ALNUM;
  for (let c = 65; c <= 90; c++) table[c] = TOKEN | UPPER_ALNUM | ALNUM | LETTER;
  for (let c = 97; c <= 122; c++) table[c] = TOKEN | ALNUM | LETTER;
  table[95] = TOKEN;
  table[45] = TOKEN;
  return table;
})();

const is = (code: number, klass: number): boolean => code < 128 && (CLASSES[code]! & klass) !== 0;
const isToken = (code: number) => is(code, TOKEN);
const isUpperAlnum = (code: number) => is(code, UPPER_ALNUM);
const isAlnum = (code: number) => is(code, ALNUM);
const isLetter = (code: number) => is(code, LETTER);

function prefixAt(text: string, at: number, prefix: string): boolean {
  if (at + prefix.length > text.length) return false;
  for (let k = 0; k < prefix.length; k++) {
    const want = prefix.charCodeAt(k);
    const got = text.charCodeAt(at + k);
    if (want === 63 /* ? */ ? !isLetter(got) : want !== got) return false;
  }
  return true;
}

/** The kind and end of a prefixed shape starting at `at`, if one does. */
function prefixedEnd(text: string, at: number): { kind: SecretKind; end: number } | undefined {
  for (const shape of PREFIXED_BY_FIRST[text.charAt(at)] ?? []) {
    if (!prefixAt(text, at, shape.prefix)) continue;
    let end = at + shape.prefix.length;
    while (end < text.length && isToken(text.charCodeAt(end))) end++;
    if (end - at - shape.prefix.length >= shape.minBody) return { kind: shape.kind, end };
  }
  return undefined;
}

function cloudEnd(text: string, at: number): number {
  if (at > 0 && isAlnum(text.charCodeAt(at - 1))) return -1;
  if (!(prefixAt(text, at, CLOUD_PREFIXES[0]!) || prefixAt(text, at, CLOUD_PREFIXES[1]!))) return -1;
  const end = at + 4 + CLOUD_BODY;
  if (end > text.length) return -1;
  for (let k = at + 4; k < end; k++) if (!isUpperAlnum(text.charCodeAt(k))) return -1;
  if (end < text.length && isAlnum(text.charCodeAt(end))) return -1;
  return end;
}

/** A private key block from its BEGIN line to the end of its END line (or of the text when it has none). */
function pemEnd(text: string, at: number): number {
  if (!text.startsWith(PEM_BEGIN, at)) return -1;
  const labelFrom = at + PEM_BEGIN.length;
  let k = labelFrom;
  while (k < text.length && k - labelFrom <= PEM_LABEL_MAX && !text.startsWith(PEM_TAIL, k)) {
    const code = text.charCodeAt(k);
    if (!(isUpperAlnum(code) || code === 32)) return -1;
    k++;
  }
  if (!text.startsWith(PEM_TAIL, k)) return -1;
  const endAt = text.indexOf(PEM_END, k + PEM_TAIL.length);
  if (endAt < 0) return text.length;
  let end = endAt + PEM_END.length;
  while (end < text.length && end - endAt <= PEM_END.length + PEM_LABEL_MAX + PEM_TAIL.length) {
    if (text.startsWith(PEM_TAIL, end)) return end + PEM_TAIL.length;
    end++;
  }
  return end;
}

/** The shape starting at `at`, if one does. */
function shapeAt(text: string, at: number): SecretMatch | undefined {
  switch (text.charCodeAt(at)) {
    case 103: // g
    case 120: // x
    case 115: {
      // s
      const found = prefixedEnd(text, at);
      return found ? { kind: found.kind, start: at, end: found.end } : undefined;
    }
    case 65: {
      // A
      const end = cloudEnd(text, at);
      return end < 0 ? undefined : { kind: 'cloud', start: at, end };
    }
    case 45: {
      // -
      const end = pemEnd(text, at);
      return end < 0 ? undefined : { kind: 'pem', start: at, end };
    }
    default:
      return undefined;
  }
}

/** Every credential shape in the text, left to right, none overlapping. Linear in the text's length. */
export function* secretMatches(text: string): Generator<SecretMatch> {
  let i = 0;
  while (i < text.length) {
    const match = shapeAt(text, i);
    if (match) {
      yield match;
      i = match.end;
    } else i++;
  }
}

/**
 * The first credential in text from outside, or undefined. Over `MAX_SECRET_SCAN_CHARS` the text is not
 * scanned and counts as holding one (callers cap their input far below that).
 */
export function findSecret(text: string): SecretMatch | undefined {
  if (text.length > MAX_SECRET_SCAN_CHARS) return { kind: 'unchecked', start: 0, end: text.length };
  for (const match of secretMatches(text)) return match;
  return undefined;
}

/** The text with every credential shape replaced by `[redacted]`. */
export function scrubSecrets(text: string): string {
  let parts: string[] | undefined;
  let copied = 0;
  for (const match of secretMatches(text)) {
    parts ??= [];
    parts.push(text.slice(copied, match.start), REDACTED);
    copied = match.end;
  }
  if (!parts) return text;
  parts.push(text.slice(copied));
  return parts.join('');
}

/**
 * A copy of a stored value (a job record) with every credential shape in its strings, however deep,
 * replaced by `[redacted]`; the value itself when it holds none (the usual case: nothing is copied).
 */
export function scrubDeep<T>(value: T): T {
  if (typeof value === 'string') return scrubSecrets(value) as T;
  if (Array.isArray(value)) {
    const items = value.map((item: unknown) => scrubDeep(item));
    return items.some((item, i) => item !== value[i]) ? (items as T) : value;
  }
  if (value === null || typeof value !== 'object') return value;
  let copy: Record<string, unknown> | undefined;
  for (const [key, item] of Object.entries(value)) {
    const scrubbed = scrubDeep(item);
    if (scrubbed === item) continue;
    copy ??= { ...(value as Record<string, unknown>) };
    copy[key] = scrubbed;
  }
  return (copy ?? value) as T;
}
