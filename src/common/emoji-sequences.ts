/**
 * The invisible characters that belong to an emoji (UTS #51): the zero-width joiner inside a ZWJ sequence
 * (👩‍💻), a presentation selector after an emoji (❤️, 1️⃣) and the tag characters of a flag tag sequence
 * (🏴󠁧󠁢󠁳󠁣󠁴󠁿). Each is decided from its neighbours only (one code point back, a few ahead): linear, no regex over
 * the text.
 */

export const ZWJ = 0x200d;
export const TEXT_PRESENTATION = 0xfe0e;
export const EMOJI_PRESENTATION = 0xfe0f;
const KEYCAP = 0x20e3;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
/** CLDR subdivision ids (`gbsct`): a region (2 letters or 3 digits) and 1–4 letters or digits. */
const MIN_TAG_SPEC = 3;
const MAX_TAG_SPEC = 7;

// Tested on one code point at a time, never on the text.
const PICTOGRAPHIC = /^\p{Extended_Pictographic}$/u;
const EMOJI = /^\p{Emoji}$/u;

export function isPictographic(cp: number): boolean {
  return cp > 0x7f && PICTOGRAPHIC.test(String.fromCodePoint(cp));
}

function isEmoji(cp: number): boolean {
  return cp >= 0 && EMOJI.test(String.fromCodePoint(cp));
}

const isModifier = (cp: number) => cp >= 0x1f3fb && cp <= 0x1f3ff;
const isKeycapBase = (cp: number) => cp === 0x23 || cp === 0x2a || (cp >= 0x30 && cp <= 0x39);
const isVariationSelector = (cp: number) => cp === TEXT_PRESENTATION || cp === EMOJI_PRESENTATION;

/**
 * Whether the invisible `cp` is part of an emoji, given the code point kept just before it (`prev`, -1 when
 * that one was dropped or there is none) and the one after it (`next`, -1 at the end). A joiner needs an emoji
 * on both sides; a presentation selector follows an emoji (a keycap's digit only when the keycap mark comes
 * next).
 */
export function belongsToEmoji(cp: number, prev: number, next: number): boolean {
  if (prev < 0) return false;
  if (cp === ZWJ)
    return (isPictographic(prev) || isModifier(prev) || prev === EMOJI_PRESENTATION) && isPictographic(next);
  if (isVariationSelector(cp)) {
    if (isKeycapBase(prev)) return next === KEYCAP;
    // Never a second selector, nor one after a skin tone (the tone already chose the emoji's look).
    return !isVariationSelector(prev) && !isModifier(prev) && isEmoji(prev);
  }
  return false;
}

/**
 * When a flag tag sequence (🏴 + tag letters/digits + cancel tag) starts at `start` (a UTF-16 index), the
 * index just past it; otherwise -1. Looks at most MAX_TAG_SPEC + 2 code points ahead.
 */
export function flagTagSequenceEnd(text: string, start: number): number {
  if (text.codePointAt(start) !== BLACK_FLAG) return -1;
  let i = start + 2;
  for (let spec = 0; spec <= MAX_TAG_SPEC; spec += 1) {
    const cp = text.codePointAt(i) ?? -1;
    if (cp === CANCEL_TAG) return spec >= MIN_TAG_SPEC ? i + 2 : -1;
    const tagSpec = (cp >= 0xe0030 && cp <= 0xe0039) || (cp >= 0xe0061 && cp <= 0xe007a);
    if (!tagSpec) return -1;
    i += 2;
  }
  return -1;
}
