/**
 * Emoji sequences Unicode publishes (RGI: recommended for general interchange), built from their parts and
 * kept only when Node's own `\p{RGI_Emoji}` (the `v` flag) says Unicode lists them: ZWJ sequences (people
 * at work, families, couples, hair, gender and hearts), flags (region pairs and the three tag flags),
 * keycaps, skin tones, and presentation sequences.
 */

// biome-ignore lint/complexity/useRegexLiterals: a `v` literal needs an ES2024 target; Node 20 runs it.
const RGI = new RegExp(String.raw`^\p{RGI_Emoji}$`, 'v');
const ZWJ = '\u200d';
const VS16 = '\ufe0f';
const TONES = ['', '🏻', '🏼', '🏽', '🏾', '🏿'];
const PEOPLE = ['🧑', '👩', '👨'];
const WORK = [
  '💻',
  '🔧',
  '🚀',
  '⚕️',
  '🎓',
  '🏫',
  '🌾',
  '🍳',
  '🎤',
  '🎨',
  '🔬',
  '✈️',
  '🚒',
  '⚖️',
  '🏭',
  '💼',
  '🦰',
  '🦱',
  '🦳',
  '🦲',
  '🦯',
  '🦼',
  '🦽',
  '🍼',
  '🎄',
];
const ACTIVITIES = [
  '🏃',
  '🚶',
  '🧘',
  '🏊',
  '🚴',
  '🤷',
  '🤦',
  '🙋',
  '💁',
  '🙆',
  '🕵️',
  '👮',
  '🧙',
  '🧚',
  '🏋️',
  '⛹️',
  '🏌️',
];
const GENDERS = ['♀️', '♂️'];
const FAMILIES = ['👨‍👩‍👦', '👨‍👩‍👧‍👦', '👩‍👩‍👧', '👨‍👨‍👦‍👦', '👩‍👦', '👨‍👧‍👧', '🧑‍🧑‍🧒', '🧑‍🧒'];
const COUPLES = ['👩‍❤️‍👨', '👩‍❤️‍💋‍👨', '👨‍❤️‍👨', '🧑🏻‍❤️‍🧑🏿', '👩🏽‍❤️‍💋‍👩🏾', '🧑🏼‍🤝‍🧑🏾', '👫🏻', '👭🏿'];
const OTHER_ZWJ = [
  '🏳️‍🌈',
  '🏳️‍⚧️',
  '🏴‍☠️',
  '❤️‍🔥',
  '❤️‍🩹',
  '👁️‍🗨️',
  '🐕‍🦺',
  '🐈‍⬛',
  '🐻‍❄️',
  '😶‍🌫️',
  '😮‍💨',
  '😵‍💫',
  '🧔‍♀️',
  '🐦‍🔥',
  '🍋‍🟩',
  '⛓️‍💥',
];
const TAG_FLAGS = ['🏴󠁧󠁢󠁥󠁮󠁧󠁿', '🏴󠁧󠁢󠁳󠁣󠁴󠁿', '🏴󠁧󠁢󠁷󠁬󠁳󠁿'];
const REGIONS = ['US', 'GB', 'FR', 'DE', 'JP', 'BR', 'IN', 'ZA', 'UA', 'KR', 'CA', 'EU', 'UN', 'AQ'];
const KEYCAP_BASES = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '#', '*'];
const PRESENTATION = ['❤️', '☺️', '✌️', '☝️', '©️', '®️', '‼️', '™️', '↔️', '▶️', '☀️', '☁️', '⭐', '✔️', '✉️', '☎️', '⚠️'];
const TONED = ['👍', '👋', '✌️', '🙏', '💪', '🧑', '👶', '👵', '🤝', '🫶', '🖐️', '👂', '🧒'];

function flag(region: string): string {
  return Array.from(region, (letter) => String.fromCodePoint(0x1f1e6 + letter.charCodeAt(0) - 65)).join('');
}

function withTone(emoji: string, tone: string): string {
  // A skin tone replaces the presentation selector (✌️ → ✌🏽).
  return tone === '' ? emoji : emoji.replace(VS16, '') + tone;
}

function candidates(): string[] {
  const out: string[] = [...FAMILIES, ...COUPLES, ...OTHER_ZWJ, ...TAG_FLAGS, ...PRESENTATION];
  for (const person of PEOPLE)
    for (const tone of TONES) for (const work of WORK) out.push(`${person}${tone}${ZWJ}${work}`);
  for (const doer of ACTIVITIES)
    for (const tone of TONES)
      for (const gender of GENDERS) out.push(`${withTone(doer, tone)}${ZWJ}${gender}`);
  for (const region of REGIONS) out.push(flag(region));
  for (const base of KEYCAP_BASES) out.push(`${base}${VS16}\u20e3`);
  for (const emoji of TONED) for (const tone of TONES) out.push(withTone(emoji, tone));
  return out;
}

/** The sequences above that Unicode recommends (each checked with `\p{RGI_Emoji}`), no duplicates. */
export const RGI_EMOJI_SEQUENCES: readonly string[] = [...new Set(candidates())].filter((emoji) =>
  RGI.test(emoji),
);

export const isRgiEmoji = (text: string) => RGI.test(text);
