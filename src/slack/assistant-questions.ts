/**
 * A question in an assistant thread ("What's our most-read page?") is answered, never turned into a job:
 * from the page-view or docs-health report when it is about them, from help when it asks what the bot can
 * do, else with an offer to start a job. Pure and token-based on a capped text: no regex over the text.
 */

export type AssistantQuestion = 'views' | 'health' | 'help' | 'other';

/** Only the start of a long text is read: a question is decided by its first and last words. */
const QUESTION_MAX_CHARS = 500;

const QUESTION_WORDS = new Set(
  (
    'what whats which how why when who whos whom whose where wheres is are am was were can could ' +
    'does do did should would will shall may might have has any anything'
  ).split(' '),
);

/** About traffic: answered with the page-view report. */
const VIEWS_WORDS = new Set(
  (
    'views view viewed pageviews traffic visits visitors visited read reads readers popular ' +
    'most-read most-visited top busiest visit reading audience'
  ).split(' '),
);

/** About where readers get stuck: answered with the docs-health report. */
const HEALTH_WORDS = new Set(
  (
    'health healthy broken stuck failing failed searches search feedback unhappy complaints complain ' +
    'problems struggle struggling errors'
  ).split(' '),
);

/** About the bot itself: answered with help. */
const HELP_WORDS = new Set('help you your yourself commands command docs-agent bot job jobs'.split(' '));
const HELP_VERBS = new Set('do use work start ask'.split(' '));

/** Whether `plain` (plain text, mentions resolved) is a question, and what about; undefined if it is not one. */
export function assistantQuestion(plain: string): AssistantQuestion | undefined {
  const text = plain.slice(0, QUESTION_MAX_CHARS).trim();
  const words = wordsOf(text);
  const first = words[0];
  if (first === undefined) return undefined;
  const asks = text.endsWith('?') || QUESTION_WORDS.has(first);
  if (!asks) return undefined;
  // Health first: "where do readers get stuck?" is about getting stuck, not about readers.
  if (words.some((w) => HEALTH_WORDS.has(w))) return 'health';
  if (words.some((w) => VIEWS_WORDS.has(w))) return 'views';
  const aboutMe = words.some((w) => HELP_WORDS.has(w)) && words.some((w) => HELP_VERBS.has(w));
  return aboutMe ? 'help' : 'other';
}

/** Lower-case words: letters, digits and inner hyphens; apostrophes dropped ("what's" → "whats"). */
function wordsOf(text: string): string[] {
  const words: string[] = [];
  let word = '';
  for (const char of `${text.toLowerCase()} `) {
    if (char === "'" || char === '’') continue;
    if (char === '-' && word !== '') {
      word += char;
      continue;
    }
    if (isWordChar(char)) {
      word += char;
      continue;
    }
    if (word !== '') words.push(word.endsWith('-') ? word.slice(0, -1) : word);
    word = '';
  }
  return words;
}

function isWordChar(char: string): boolean {
  return (char >= 'a' && char <= 'z') || (char >= '0' && char <= '9') || char.toUpperCase() !== char;
}
